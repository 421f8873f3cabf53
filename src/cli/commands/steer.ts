// Stepping in: `approve` / `deny` a tool call, `send` a follow-up, `close` a chat run, `cancel` a run. Client
// calls only: `resume`, which runs a worker, is in resume.ts, so these commands never load the worker's code.
import type { Client } from '@temporalio/client';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { commandLine } from '../invocation.js';
import { logLine } from '../log.js';
import { printText } from '../output.js';
import { agentClient } from '../lazy-client.js';
import { stopWaitingOnSignal } from '../stop-waiting.js';
import { withTemporal } from '../temporal.js';

/** After this long without an answer to an update, say that it needs a worker (and keep waiting). */
const WORKER_NOTICE_MS = 5_000;

// ---------------------------------------------------------------------------------------------------------------
// approve, deny

export const approve = defineCommand({
  usage: 'approve <workflowId> [<toolUseId>]',
  description: `Approve a tool call that waits for a decision (a tool named in --approve); the toolUseId may be left
out when only one call is waiting. \`status\` and \`watch\` show the waiting calls.`,
  flags: {},
  examples: ['approve nightly-report', 'approve nightly-report toolu_01A09q90qw90lq917835lq9'],
  run: ({ positionals }) => decide(positionals, true),
});

const DENY_FLAGS = { reason: { type: 'string', help: 'why: the model gets it in the error result' } } satisfies Record<string, FlagSpec>;

export const deny = defineCommand({
  usage: 'deny <workflowId> [<toolUseId>] [--reason TEXT]',
  description: 'Deny a tool call that waits for a decision: the model gets an error result carrying the reason.',
  flags: DENY_FLAGS,
  examples: ['deny nightly-report --reason "do not email customers"'],
  run: ({ flags, positionals }) => decide(positionals, false, flags.reason),
});

async function decide(positionals: string[], approve: boolean, reason?: string): Promise<number> {
  const usage = approve ? 'approve <workflowId> [<toolUseId>]' : 'deny <workflowId> [<toolUseId>] [--reason TEXT]';
  const [workflowId, toolUseId] = oneOrTwo(positionals, usage, 'toolUseId');
  return stoppableSteering(workflowId, 'decision', () => withTemporal(async (temporal) => {
    const what = approve ? 'approve' : 'deny';
    const queue = await requireRunning(temporal.client, workflowId, what);
    const { approveToolCall, denyToolCall } = await agentClient();
    const ack = await rejectionIsUsage(
      () =>
        noticeIfSlow(
          approve
            ? approveToolCall(temporal.client, workflowId, toolUseId)
            : denyToolCall(temporal.client, workflowId, toolUseId, reason),
          queue,
        ),
      { client: temporal.client, workflowId, what },
    );
    printText(`${ack.approved ? 'approved' : 'denied'} ${ack.toolUseId}\n`);
    return 0;
  }));
}

/** `<workflowId> [<second>]` (`approve`, `deny`, `answer`). */
export function oneOrTwo(positionals: string[], usage: string, second: string): [string, string | undefined] {
  if (positionals.length === 0) throw new UsageError(`missing workflowId\nusage: ${usage}`);
  if (positionals.length > 2) {
    throw new UsageError(`unexpected argument ${positionals.slice(2).map((p) => JSON.stringify(p)).join(' ')}\nusage: ${usage}`);
  }
  if (positionals[1] !== undefined && !positionals[1].trim()) throw new UsageError(`the ${second} is empty\nusage: ${usage}`);
  return [positionals[0], positionals[1]];
}

// ---------------------------------------------------------------------------------------------------------------
// send, close, cancel

export const send = defineCommand({
  usage: 'send <workflowId> "<text>"',
  description: `A follow-up message: a running run takes it at its next turn (with the tool results), a --chat run
waiting after its answer takes it at once.`,
  flags: {},
  examples: ['send nightly-report "Also list the three largest cities."'],
  run: sendCommand,
});

async function sendCommand({ positionals }: Parsed<Record<string, never>>): Promise<number> {
  const [workflowId, text] = expectPositionals(positionals, ['workflowId', 'text'], 'send <workflowId> "<text>"');
  if (!text.trim()) throw new UsageError('the message is empty');
  return stoppableSteering(workflowId, 'message', () => withTemporal(async (temporal) => {
    const what = 'send a message to';
    const queue = await requireRunning(temporal.client, workflowId, what);
    const { sendFollowUp } = await agentClient();
    const { queued } = await rejectionIsUsage(() => noticeIfSlow(sendFollowUp(temporal.client, workflowId, text), queue), { client: temporal.client, workflowId, what });
    logLine(`message sent to ${workflowId}: the run takes it at its next turn (${queued} waiting)`);
    return 0;
  }));
}

export const close = defineCommand({
  usage: 'close <workflowId>',
  description: 'End a --chat run once it waits for its next message (its result is then final).',
  flags: {},
  examples: ['close support-chat-42'],
  run: ({ positionals }) =>
    endRun(positionals, 'close', 'closeChatRun', (id) => `close sent to ${id}: the chat run ends once it waits for its next message (\`result ${id}\`)`),
});

export const cancel = defineCommand({
  usage: 'cancel <workflowId>',
  description: 'Cancel a run: in-flight calls are cancelled; it ends with status cancelled and its partial answer.',
  flags: {},
  examples: ['cancel nightly-report'],
  run: ({ positionals }) =>
    endRun(positionals, 'cancel', 'cancelRun', (id) => `cancellation requested for ${id}: it ends with status cancelled and its partial answer (\`result ${id}\`)`),
});

/** `close` and `cancel`: the run must be running; `done` says what happens next. */
function endRun(positionals: string[], command: 'close' | 'cancel', call: 'closeChatRun' | 'cancelRun', done: (workflowId: string) => string): Promise<number> {
  const [workflowId] = expectPositionals(positionals, ['workflowId'], `${command} <workflowId>`);
  return withTemporal(async (temporal) => {
    await requireRunning(temporal.client, workflowId, command);
    const client = await agentClient();
    if (command === 'close' && !(await client.isChatRun(temporal.client, workflowId))) {
      throw new UsageError(`cannot close run ${workflowId}: it was started without --chat, and ends at its own end_turn; \`cancel ${workflowId}\` ends it now`);
    }
    await client[call](temporal.client, workflowId);
    logLine(done(workflowId));
    return 0;
  });
}

// ---------------------------------------------------------------------------------------------------------------

/** A decision, a message or an answer waits for a worker to take it, for as long as none does: Ctrl-C (or SIGTERM)
 * stops waiting (exit 130), saying that the update may still reach the run (the server holds it for the worker). */
export function stoppableSteering<T>(workflowId: string, update: 'decision' | 'message' | 'answer', fn: () => Promise<T>): Promise<T> {
  const status = commandLine(`status ${workflowId}`);
  return stopWaitingOnSignal(workflowId, `status ${workflowId}`, fn, `the ${update} may still reach run ${workflowId} once a worker takes it; ${status} shows whether it did`);
}

/** The run must be open for a decision, a message, a close or a cancel; returns its task queue. */
export async function requireRunning(client: Client, workflowId: string, what: string): Promise<string> {
  const description = await client.workflow.getHandle(workflowId).describe(); // WorkflowNotFoundError → exit 2
  if (description.status.name !== 'RUNNING') {
    throw new UsageError(`cannot ${what} run ${workflowId}: it has ended (${description.status.name}); \`result ${workflowId}\` shows how`);
  }
  return description.taskQueue;
}

/** The workflow's update validator refused (an unknown or decided tool call, an empty message, a closed chat):
 * its message, exit 2. A run that ended while the update waited (for a worker, say) is said to have ended, as
 * `requireRunning` says it (`run` names it and what was asked), not to be missing. */
export async function rejectionIsUsage<T>(fn: () => Promise<T>, run?: { client: Client; workflowId: string; what: string }): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const { WorkflowNotFoundError, WorkflowUpdateFailedError } = await import('@temporalio/client');
    if (err instanceof WorkflowUpdateFailedError) throw new UsageError(err.cause?.message ?? err.message);
    if (run && err instanceof WorkflowNotFoundError) await requireRunning(run.client, run.workflowId, run.what);
    throw err;
  }
}

/** An update waits for a worker to take it: say so when that takes a while, rather than seem to hang. */
export async function noticeIfSlow<T>(promise: Promise<T>, queue: string): Promise<T> {
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
