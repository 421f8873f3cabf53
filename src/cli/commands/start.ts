// `start "<task>"`: start a run and print its id; a worker elsewhere runs it. `result <id>`: wait for a run and print
// its result. Neither hosts a worker, so this module imports nothing of the worker's (Temporal's worker package,
// the activities, the Anthropic and MCP SDKs): a `start` spends its CPU on the start, not on loading them. Temporal's
// client loads once the flags and the task are checked (src/cli/lazy-client.ts).
import { needsWorkerCatalog, toolCatalog, type ToolCatalog } from '../../config/tool-names.js';
import { withoutToolNames, type RunInput } from '../../config/run-input.js';
import type { McpServerConfig } from '../../config/types.js';
import { expectPositionals, UsageError } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { loadCliConfig } from '../config.js';
import { logLine } from '../log.js';
import { throughOutage } from '../outage.js';
import { exitCodeFor, printResult, printText } from '../output.js';
import { batchResults } from './batch-results.js';
import { runFromValues, START_FLAGS, valuesFromFlags, type StartFlags } from '../settings.js';
import { readTask } from '../task.js';
import { TASKS_FLAGS } from '../task-file.js';
import { startTaskFile } from './start-tasks.js';
import { taskQueue } from '../task-queue.js';
import { withTemporal, type TemporalSession } from '../temporal.js';
import { agentClient } from '../lazy-client.js';
import { stopWaitingOnSignal } from '../stop-waiting.js';
import { sayWhenNoWorker, warnWhenNoWorker } from '../worker-presence.js';
import { withListedMcpTools } from '../worker-tools.js';
import { commandLine } from '../invocation.js';

const START_USAGE = 'start "<task>" [options]  (or: start --task-file FILE, start - < task.txt, start --tasks FILE.jsonl)';

export const start = defineCommand({
  usage: START_USAGE,
  description: `Start a run and print its workflow id alone (--json: {"workflowId","runId"}). No worker runs in this
process: a \`worker\` elsewhere takes it. Takes the flags of \`run\` except --scripted (that is the worker's).
With --tasks FILE.jsonl, a run per line (each line {"task": ..., "id"?, settings as in POST /v1/runs}, the flags
given here applying to every line), each id printed as it starts; every line is checked first, and a bad line is
exit 2 naming it, with nothing started. Started again, the same file starts no duplicates (a line's run id comes
from the batch's name and the line).`,
  flags: { ...START_FLAGS, ...TASKS_FLAGS },
  examples: [
    'start "Summarise the open incidents" --max-steps 30',
    'start --task-file task.md --id weekly-digest --json',
    'start --tasks issues.jsonl --concurrency 20 --max-steps 10',
  ],
  async run({ flags: allFlags, positionals }) {
    if (allFlags.tasks !== undefined) return startTaskFile(allFlags, positionals);
    for (const f of ['concurrency', 'tasks-name'] as const) if (allFlags[f] !== undefined) throw new UsageError(`--${f} goes with --tasks FILE`);
    const { tasks: _t, concurrency: _c, 'tasks-name': _n, ...flags } = allFlags;
    const task = await readTask(positionals, flags['task-file'], START_USAGE);
    const runInput = await startRunInput(flags);
    return withTemporal(async (temporal) => {
      const { settings, priority, noWorker } = await runInput(temporal);
      const { startAgent } = await agentClient();
      const started = await startAgent(temporal.client, { task, settings, workflowId: flags.id, taskQueue: taskQueue(), priority });
      if (started.attached) logLine(`a run with id ${started.workflowId} already exists: not starting a second one`);
      // `start` does not wait for the run, but says when nothing will run it.
      await warnWhenNoWorker(temporal.client, taskQueue(), started.workflowId, noWorker);
      if (flags.json) process.stdout.write(`${JSON.stringify({ workflowId: started.workflowId, runId: started.runId })}\n`);
      else printText(`${started.workflowId}\n`);
      return 0;
    }, { replays: false });
  },
});

/** `start`'s (and `schedule create`'s) settings and priority from the flags. Bad flags are exit 2 here, before any
 * connection; tool names that only the workers can vouch for are checked by the function this returns, once they
 * have said what they offer. */
export async function startRunInput(flags: StartFlags): Promise<(temporal: TemporalSession) => Promise<RunInput & { noWorker?: boolean }>> {
  const { config } = await loadCliConfig(flags.config);
  const local = toolCatalog(config);
  const values = valuesFromFlags(flags);
  const askWorkers = needsWorkerCatalog(values.tools as string[] | undefined, local);
  const checked = runFromValues(askWorkers ? withoutToolNames(values) : values, local, flags);
  return async (temporal) => (askWorkers ? runFromWorkers(flags, values, temporal, local, config.mcpServers ?? {}) : checked);
}

/** `start`'s settings, its tools checked against what the task queue's workers offer (with no worker to ask, against
 * this process's tools and the listed tools of the config's MCP servers it names). */
async function runFromWorkers(
  flags: StartFlags,
  values: Record<string, unknown>,
  temporal: TemporalSession,
  local: ToolCatalog,
  mcpServers: Record<string, McpServerConfig>,
) {
  const { startCatalog } = await import('../../client/worker-catalog.js');
  const answer = await startCatalog(temporal.client, taskQueue(), local, { log: logLine, workerCommand: commandLine('worker') });
  const { hint, noWorker } = answer;
  const catalog = noWorker ? await withListedMcpTools(values.tools as string[] | undefined, answer.catalog, mcpServers) : answer.catalog;
  try {
    return { ...runFromValues(values, catalog, flags), noWorker };
  } catch (err) {
    throw err instanceof UsageError && hint ? new UsageError(`${err.message}. ${hint}`) : err;
  }
}

export const result = defineCommand({
  usage: 'result <workflowId> [--json]  (or: result --batch NAME)',
  description: `Wait for a run to end and print its result exactly as \`run\` does, with the same exit code. Through a
server outage it keeps waiting and says so on stderr. A closed run needs no worker; a terminated or timed-out run
reads as such (exit 1), with what its history holds and the operator's reason. Ctrl-C or SIGTERM stops waiting, not
the run (exit 130). With --batch NAME, the results of every run of a task batch (start --tasks), one line each
(--json: an array), once all have ended: exit 0 when all completed, else the exit code of the first that did not.`,
  flags: {
    json: { type: 'boolean', help: 'print exactly one JSON document' },
    batch: { type: 'string', value: 'NAME', help: 'the results of every run of this task batch (start --tasks)' },
  },
  examples: ['result agent-search-for-the-population-of-fra-s9aiw3 --json', 'result --batch issues'],
  async run({ flags, positionals }) {
    const json = flags.json ?? false;
    if (flags.batch !== undefined) {
      expectPositionals(positionals, [], 'result --batch NAME [--json]');
      const batch = flags.batch;
      return stopWaitingOnSignal(`of batch ${batch}`, `result --batch ${batch}${json ? ' --json' : ''}`, () => batchResults(batch, json));
    }
    const [workflowId] = expectPositionals(positionals, ['workflowId'], 'result <workflowId> [--json]');
    return stopWaitingOnSignal(workflowId, `result ${workflowId}${json ? ' --json' : ''}`, () => waitForResult(workflowId, json));
  },
});

/** `result`: waits for the run to end (through an outage, saying when no worker polls its queue), prints it. */
function waitForResult(workflowId: string, json: boolean): Promise<number> {
  return withTemporal(async (temporal) => {
    // A run can take hours: say what is being waited for, rather than seem to hang.
    const description = await temporal.client.workflow.getHandle(workflowId).describe(); // not found → exit 2
    const running = description.status.name === 'RUNNING';
    if (running) logLine(`run ${workflowId} is running: waiting for it to end (Ctrl-C stops waiting, not the run)`);
    const stopCheck = running ? sayWhenNoWorker(temporal.client, description.taskQueue, workflowId) : () => undefined;
    const { getAgentResult } = await agentClient();
    const outcome = await throughOutage({ what: `waiting for run ${workflowId}`, address: temporal.target.address }, () =>
      getAgentResult(temporal.client, workflowId),
    ).finally(stopCheck);
    printResult(outcome, json);
    return exitCodeFor(outcome.status);
  });
}
