// `run "<task>"`: start a run (or attach to it with --id) and wait for it, with a worker in this process.
// `start "<task>"`: start a run and print its id; a worker elsewhere runs it.
import { defaultSettings, getAgentResult, startAgent } from '../../client/index.js';
import { DEFAULTS } from '../../core/policies.js';
import type { AgentSettings } from '../../core/types.js';
import { builtinTools } from '../../tools/registry.js';
import { createAgentWorker, modelConnectionFromEnv } from '../../worker.js';
import { expectPositionals, parseArgs, UsageError, type FlagSpec } from '../args.js';
import { logLine } from '../log.js';
import { EXIT, exitCodeFor, formatResult } from '../output.js';
import { openScriptedModel } from '../scripted.js';
import { openTemporal } from '../temporal.js';

const START_FLAGS = {
  json: { type: 'boolean' },
  model: { type: 'string' },
  'max-steps': { type: 'int', min: 1, max: 10_000 },
  'max-output-tokens': { type: 'int', min: 1, max: 128_000 },
  system: { type: 'string' },
  tools: { type: 'list' },
  id: { type: 'string' },
} satisfies Record<string, FlagSpec>;

const RUN_FLAGS = { ...START_FLAGS, scripted: { type: 'boolean' } } satisfies Record<string, FlagSpec>;

type StartFlags = ReturnType<typeof parseArgs<typeof START_FLAGS>>['flags'];

function settingsFrom(flags: StartFlags): AgentSettings {
  const known = builtinTools.map((t) => t.name);
  const tools = flags.tools ?? known;
  const unknown = tools.filter((t) => !known.includes(t));
  if (unknown.length > 0) {
    throw new UsageError(`unknown tool ${unknown.map((t) => `"${t}"`).join(', ')} in --tools (available: ${known.join(', ')})`);
  }
  return defaultSettings({
    model: flags.model ?? (process.env.AGENT_MODEL || DEFAULTS.model),
    maxSteps: flags['max-steps'] ?? DEFAULTS.maxSteps,
    maxOutputTokens: flags['max-output-tokens'] ?? DEFAULTS.maxOutputTokens,
    system: flags.system,
    tools,
  });
}

function taskQueue(): string {
  return process.env.AGENT_TASK_QUEUE || DEFAULTS.taskQueue;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, RUN_FLAGS);
  const [task] = expectPositionals(positionals, ['task'], 'run "<task>" [--json] [--scripted] [--id ID] [--model ID] ...');
  if (!task.trim()) throw new UsageError('the task is empty');
  const settings = settingsFrom(flags);
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!flags.scripted && !apiKey) {
    throw new UsageError(
      'ANTHROPIC_API_KEY is not set. Either export ANTHROPIC_API_KEY=<your key> to call Claude, ' +
        'or add --scripted to run against the offline scripted model (no key, canned replies).',
    );
  }

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
  const settings = settingsFrom(flags);
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
