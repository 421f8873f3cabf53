// `run "<task>"`: start a run (or attach to it with --id) and wait for it, with a worker in this process.
// (`start` and `result`, which host no worker, are in start.ts: they load none of the worker's modules.) The worker
// and Temporal's packages load once the flags, the task and the config are checked (../hosted-worker.ts).
import type { AgentConfig } from '../../config/types.js';
import type { WorkerRunOptions } from '../hosted-worker.js';
import { toolCatalog } from '../../config/tool-names.js';
import { expectPositionals, UsageError, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { loadCliConfig } from '../config.js';
import { agentClient } from '../lazy-client.js';
import { logLine } from '../log.js';
import { readTask } from '../task.js';
import { RUN_FLAGS, runFromFlags } from '../settings.js';
import { taskQueue } from '../task-queue.js';

const RUN_USAGE = 'run "<task>" [options]  (or: run --task-file FILE, run - < task.txt, run --id ID to reattach)';

export const run = defineCommand({
  usage: RUN_USAGE,
  description: `Start a run and wait for it, with a worker in this process, then print its result (exit code: its
status). When TEMPORAL_ADDRESS is unset and nothing answers on localhost:7233, an embedded Temporal server runs
for the duration of the command (data in .durable-agent/temporal.db). Through a server outage it waits and says
so. Ctrl-C detaches: the run goes on durably, and the command that reattaches is printed (exit 130).`,
  flags: RUN_FLAGS,
  examples: [
    'run "Search for the population of France and calculate what 15% of that number is" --scripted',
    'run --task-file task.md --max-steps 40 --budget-usd 2 --deadline 30m --json',
    'run --id nightly-report   (reattach to the run with that id)',
  ],
  async run({ flags, positionals }) {
    // `run --id ID` alone reattaches to an existing run; a new run needs its task.
    const task = await readTask(positionals, flags['task-file'], RUN_USAGE, Boolean(flags.id));
    return runTask(flags, task);
  },
});

async function runTask(flags: Parsed<typeof RUN_FLAGS>['flags'], task: string): Promise<number> {
  const { config } = await loadCliConfig(flags.config);
  const { settings, priority } = runFromFlags(flags, toolCatalog(config));
  return withWorker(flags, config, async (temporal) => {
    const { describeIfExists, startAgent } = await agentClient();
    if (!task && !(await describeIfExists(temporal.client, flags.id!))) {
      throw new UsageError(`no run with id "${flags.id}" exists: give a task to start one`);
    }
    const started = await startAgent(temporal.client, { task, settings, workflowId: flags.id, taskQueue: taskQueue(), priority });
    logLine(
      started.attached
        ? `attached to existing run ${started.workflowId} (--id): not starting a second one`
        : `started run ${started.workflowId}`,
    );
    return started.workflowId;
  });
}

/** `run`, `resume` and `fork`: the run `begin` starts (or finds), with a worker in this process, loaded only now
 * that the flags and the config are checked. `workflowId`: the run's, when known before it begins. */
export async function withWorker(
  flags: { config?: string; scripted?: boolean; json?: boolean },
  config: AgentConfig,
  begin: WorkerRunOptions['begin'],
  workflowId?: string,
): Promise<number> {
  const scripted = useScriptedModel(flags.scripted, config);
  const { runWithWorker } = await import('../hosted-worker.js');
  return runWithWorker({ scripted, config, configFile: flags.config, json: flags.json ?? false, begin, workflowId });
}

/** Whether `run` / `resume` use the scripted model: with --scripted; or, without ANTHROPIC_API_KEY, when the
 * config file ships a script (an example's stand-in for Claude), saying so as `demo` does. Otherwise the key
 * is required. */
export function useScriptedModel(flag: boolean | undefined, config: AgentConfig): boolean {
  if (flag) return true;
  if (!process.env.ANTHROPIC_API_KEY && config.scriptedModel) {
    logLine("ANTHROPIC_API_KEY is not set: running on the offline SCRIPTED model with the config file's scriptedModel, not on Claude.");
    logLine('Set ANTHROPIC_API_KEY to run the same task against Claude.');
    return true;
  }
  requireModelAccess();
  return false;
}

/** `run` and `resume` call the model from this process: without --scripted, they need the API key. */
export function requireModelAccess(): void {
  if (!process.env.ANTHROPIC_API_KEY) {
    throw new UsageError(
      'ANTHROPIC_API_KEY is not set. Either export ANTHROPIC_API_KEY=<your key> to call Claude, ' +
        'or add --scripted to run against the offline scripted model (no key, canned replies).',
    );
  }
}

/** The seed example ("Search for the population of France and calculate what 15% of that number is"), end to
 * end: with ANTHROPIC_API_KEY it calls Claude; without, it says so and uses the scripted model. */
export const DEMO_TASK = 'Search for the population of France and calculate what 15% of that number is';

export const demo = defineCommand({
  usage: 'demo [options of run]',
  description: `The seed example end to end: "${DEMO_TASK}". With ANTHROPIC_API_KEY set it calls
Claude; without, it says so and uses the offline scripted model (as with --scripted).`,
  flags: RUN_FLAGS,
  examples: ['demo', 'demo --json', 'demo --server-tools web_search'],
  async run({ flags, positionals }) {
    expectPositionals(positionals, [], 'demo [--json] [run options]');
    if (flags['task-file'] !== undefined) throw new UsageError('demo runs its own task: use `run --task-file FILE` for yours');
    const scripted = flags.scripted || !process.env.ANTHROPIC_API_KEY;
    if (scripted && !flags.scripted) {
      logLine('ANTHROPIC_API_KEY is not set: running the demo on the offline SCRIPTED model, not on Claude.');
      logLine('Set ANTHROPIC_API_KEY to run the same task against Claude.');
    }
    if (!scripted && !(flags['server-tools'] as string[] | undefined)?.includes('web_search')) {
      logLine("The demo's web_search tool is an offline stub; add --server-tools web_search for Claude's real web search.");
    }
    return runTask({ ...flags, scripted }, DEMO_TASK);
  },
});
