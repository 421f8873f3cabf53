// `run "<task>"`: start a run (or attach to it with --id) and wait for it, with a worker in this process.
// `start "<task>"`: start a run and print its id; a worker elsewhere runs it.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { getAgentResult, startAgent } from '../../client/index.js';
import { DEFAULTS } from '../../core/policies.js';
import { createAgentWorker, modelConnectionFromEnv } from '../../worker.js';
import { expectPositionals, parseArgs, UsageError } from '../args.js';
import { logLine } from '../log.js';
import { EXIT, exitCodeFor, formatResult } from '../output.js';
import { openScriptedModel } from '../scripted.js';
import { RUN_FLAGS, settingsFromFlags, START_FLAGS } from '../settings.js';
import { openTemporal } from '../temporal.js';

function taskQueue(): string {
  return process.env.AGENT_TASK_QUEUE || DEFAULTS.taskQueue;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, RUN_FLAGS);
  const [task] = expectPositionals(positionals, ['task'], 'run "<task>" [--json] [--scripted] [--id ID] [--model ID] ...');
  if (!task.trim()) throw new UsageError('the task is empty');
  const settings = settingsFromFlags(flags);
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!flags.scripted && !apiKey) {
    throw new UsageError(
      'ANTHROPIC_API_KEY is not set. Either export ANTHROPIC_API_KEY=<your key> to call Claude, ' +
        'or add --scripted to run against the offline scripted model (no key, canned replies).',
    );
  }

  // The in-process worker's INFO lines would drown the run's own messages on stderr.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const scripted = flags.scripted ? await openScriptedModel() : undefined;
  const temporal = await openTemporal({ allowEmbedded: true });
  let workflowId: string | undefined;
  const detach = () => {
    const again = temporal.embedded
      ? `npm run agent -- run --id ${workflowId ?? '<id>'}${flags.scripted ? ' --scripted' : ''} ${JSON.stringify(task)}`
      : `npm run agent -- result ${workflowId ?? '<id>'}`;
    logLine(`\ndetached: the run goes on durably${temporal.embedded ? ' (its state is in the embedded server\'s database)' : ''}.`);
    logLine(`reattach with: ${again}`);
    process.exit(EXIT.detached);
  };
  process.once('SIGINT', detach);
  try {
    const { worker } = await createAgentWorker({
      connection: await temporal.workerConnection(),
      client: temporal.client,
      taskQueue: taskQueue(),
      model: scripted?.connection ?? modelConnectionFromEnv(),
    });
    const result = await worker.runUntil(async () => {
      const started = await startAgent(temporal.client, { task, settings, workflowId: flags.id, taskQueue: taskQueue() });
      workflowId = started.workflowId;
      logLine(
        started.attached
          ? `attached to existing run ${started.workflowId} (--id): not starting a second one`
          : `started run ${started.workflowId}`,
      );
      return getAgentResult(temporal.client, started.workflowId);
    });
    process.stdout.write(formatResult(result, flags.json ?? false));
    return exitCodeFor(result.status);
  } finally {
    process.removeListener('SIGINT', detach);
    await temporal.close();
    await scripted?.close();
  }
}

export async function startCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, START_FLAGS);
  const [task] = expectPositionals(positionals, ['task'], 'start "<task>" [--json] [--id ID] [--model ID] ...');
  if (!task.trim()) throw new UsageError('the task is empty');
  const settings = settingsFromFlags(flags);
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const started = await startAgent(temporal.client, { task, settings, workflowId: flags.id, taskQueue: taskQueue() });
    if (started.attached) logLine(`a run with id ${started.workflowId} already exists: not starting a second one`);
    process.stdout.write(
      flags.json ? `${JSON.stringify({ workflowId: started.workflowId, runId: started.runId })}\n` : `${started.workflowId}\n`,
    );
    return 0;
  } finally {
    await temporal.close();
  }
}

export async function resultCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' } });
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'result <workflowId> [--json]');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const result = await getAgentResult(temporal.client, workflowId);
    process.stdout.write(formatResult(result, flags.json ?? false));
    return exitCodeFor(result.status);
  } finally {
    await temporal.close();
  }
}

/** The seed example ("Search for the population of France and calculate what 15% of that number is"), end to
 * end: with ANTHROPIC_API_KEY it calls Claude; without, it says so and uses the scripted model. */
export const DEMO_TASK = 'Search for the population of France and calculate what 15% of that number is';

export async function demoCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, RUN_FLAGS);
  expectPositionals(positionals, [], 'demo [--json] [run options]');
  const scripted = flags.scripted || !process.env.ANTHROPIC_API_KEY;
  if (scripted && !flags.scripted) {
    logLine('ANTHROPIC_API_KEY is not set: running the demo on the offline SCRIPTED model, not on Claude.');
    logLine('Set ANTHROPIC_API_KEY to run the same task against Claude.');
  }
  return runCommand([...argv, ...(scripted && !flags.scripted ? ['--scripted'] : []), '--', DEMO_TASK]);
}
