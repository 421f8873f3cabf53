// Stepping in: `approve` / `deny` a tool call, `send` a follow-up, `close` a chat run, `cancel` a run, and
// `resume` a stopped or failed one (with a worker in this process, like `run`).
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  approveToolCall,
  cancelRun,
  closeChatRun,
  denyToolCall,
  getAgentResult,
  resumeAgent,
  sendFollowUp,
} from '../../client/index.js';
import { durationFlag } from '../settings.js';
import { expectPositionals, parseArgs, UsageError } from '../args.js';
import { CONFIG_FLAG, loadCliConfig } from '../config.js';
import { logLine } from '../log.js';
import { withTemporal } from '../temporal.js';
import { runWithWorker, taskQueue, useScriptedModel } from './run.js';

/** After this long without an answer to an update, say that it needs a worker (and keep waiting). */
const WORKER_NOTICE_MS = 5_000;

// ---------------------------------------------------------------------------------------------------------------
// approve, deny

export function approveCommand(argv: string[]): Promise<number> {
  return decide(argv, true);
}

export function denyCommand(argv: string[]): Promise<number> {
  return decide(argv, false);
}

async function decide(argv: string[], approve: boolean): Promise<number> {
  const usage = approve ? 'approve <workflowId> [<toolUseId>]' : 'deny <workflowId> [<toolUseId>] [--reason TEXT]';
  const { flags, positionals } = parseArgs(argv, approve ? {} : { reason: { type: 'string' } });
  const [workflowId, toolUseId] = oneOrTwo(positionals, usage);
  const reason = (flags as { reason?: string }).reason;
  return withTemporal(async (temporal) => {
    const queue = await requireRunning(temporal.client, workflowId, approve ? 'approve' : 'deny');
    const ack = await rejectionIsUsage(() =>
      noticeIfSlow(
        approve
          ? approveToolCall(temporal.client, workflowId, toolUseId)
          : denyToolCall(temporal.client, workflowId, toolUseId, reason),
        queue,
      ),
    );
    process.stdout.write(`${ack.approved ? 'approved' : 'denied'} ${ack.toolUseId}\n`);
    return 0;
  });
}

function oneOrTwo(positionals: string[], usage: string): [string, string | undefined] {
  if (positionals.length === 0) throw new UsageError(`missing workflowId\nusage: ${usage}`);
  if (positionals.length > 2) {
    throw new UsageError(`unexpected argument ${positionals.slice(2).map((p) => JSON.stringify(p)).join(' ')}\nusage: ${usage}`);
  }
  if (positionals[1] !== undefined && !positionals[1].trim()) throw new UsageError(`the toolUseId is empty\nusage: ${usage}`);
  return [positionals[0], positionals[1]];
}

// ---------------------------------------------------------------------------------------------------------------
// send, close, cancel

export async function sendCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs(argv, {});
  const [workflowId, text] = expectPositionals(positionals, ['workflowId', 'text'], 'send <workflowId> "<text>"');
  if (!text.trim()) throw new UsageError('the message is empty');
  return withTemporal(async (temporal) => {
    const queue = await requireRunning(temporal.client, workflowId, 'send a message to');
    const { queued } = await rejectionIsUsage(() => noticeIfSlow(sendFollowUp(temporal.client, workflowId, text), queue));
    logLine(`message sent to ${workflowId}: the run takes it at its next turn (${queued} waiting)`);
    return 0;
  });
}

export async function closeCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs(argv, {});
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'close <workflowId>');
  return withTemporal(async (temporal) => {
    await requireRunning(temporal.client, workflowId, 'close');
    await closeChatRun(temporal.client, workflowId);
    logLine(`close sent to ${workflowId}: the chat run ends once it waits for its next message (\`result ${workflowId}\`)`);
    return 0;
  });
}

export async function cancelCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs(argv, {});
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'cancel <workflowId>');
  return withTemporal(async (temporal) => {
    await requireRunning(temporal.client, workflowId, 'cancel');
    await cancelRun(temporal.client, workflowId);
    logLine(
      `cancellation requested for ${workflowId}: it ends with status cancelled and its partial answer (\`result ${workflowId}\`)`,
    );
    return 0;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// resume

const RESUME_FLAGS = {
  json: { type: 'boolean' },
  scripted: { type: 'boolean' },
  'max-steps': { type: 'int', min: 1, max: 10_000 },
  'budget-tokens': { type: 'int', min: 1 },
  deadline: { type: 'string' },
  ...CONFIG_FLAG,
} as const;

export async function resumeCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, RESUME_FLAGS);
  const [workflowId] = expectPositionals(
    positionals,
    ['workflowId'],
    'resume <workflowId> [--max-steps N] [--budget-tokens N] [--deadline D] [--scripted] [--config FILE] [--json]',
  );
  const deadlineMs = flags.deadline !== undefined ? durationFlag('deadline', flags.deadline) : undefined;
  const { config } = await loadCliConfig(flags.config);
  const scripted = useScriptedModel(flags.scripted, config);
  return runWithWorker({
    scripted,
    config,
    json: flags.json ?? false,
    async begin(temporal) {
      const { client } = temporal;
      const description = await client.workflow.getHandle(workflowId).describe();
      if (description.status.name === 'RUNNING') {
        throw new UsageError(`run ${workflowId} is still running: only a stopped, failed or cancelled run can be resumed`);
      }
      const before = await getAgentResult(client, workflowId);
      if (before.status === 'completed') {
        throw new UsageError(`run ${workflowId} completed: there is nothing to resume`);
      }
      const why = before.guard ? ` by guard ${before.guard}` : before.error ? `: ${before.error}` : '';
      if (before.guard === 'max_steps' && flags['max-steps'] === undefined) {
        logLine('warning: the run was stopped by its step cap and --max-steps is not given: it will stop again at once');
      }
      if (before.guard === 'budget' && flags['budget-tokens'] === undefined) {
        logLine('warning: the run was stopped by its budget and --budget-tokens is not given: it may stop again at once');
      }
      const started = await resumeAgent(client, workflowId, {
        moreSteps: flags['max-steps'],
        moreBudgetTokens: flags['budget-tokens'],
        deadlineMs,
        taskQueue: taskQueue(),
      });
      logLine(`resumed run ${workflowId} (it was ${before.status}${why}) as run ${started.runId}`);
      return workflowId;
    },
    reattach: (id, embedded) =>
      embedded
        ? `npm run agent -- run --id ${id ?? workflowId}${flags.config ? ` --config ${flags.config}` : ''}${scripted ? ' --scripted' : ''}`
        : `npm run agent -- result ${id ?? workflowId}`,
  });
}

// ---------------------------------------------------------------------------------------------------------------

/** The run must be open for a decision, a message, a close or a cancel; returns its task queue. */
async function requireRunning(client: Client, workflowId: string, what: string): Promise<string> {
  const description = await client.workflow.getHandle(workflowId).describe(); // WorkflowNotFoundError → exit 2
  if (description.status.name !== 'RUNNING') {
    throw new UsageError(`cannot ${what} run ${workflowId}: it has ended (${description.status.name}); \`result ${workflowId}\` shows how`);
  }
  return description.taskQueue;
}

/** The workflow's update validator refused (an unknown or decided tool call, an empty message, a closed chat):
 * its message, exit 2. */
async function rejectionIsUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new UsageError(err.cause?.message ?? err.message);
    throw err;
  }
}

/** An update waits for a worker to take it: say so when that takes a while, rather than seem to hang. */
async function noticeIfSlow<T>(promise: Promise<T>, queue: string): Promise<T> {
  const timer = setTimeout(
    () => logLine(`waiting for a worker to take it: is a worker running on task queue "${queue}"? (\`worker\`)`),
    WORKER_NOTICE_MS,
  );
  try {
    return await promise;
  } finally {
    clearTimeout(timer);
  }
}
