// `start --tasks FILE.jsonl [--concurrency N]`: a run per line, each printed as it starts. Idempotent: a line's run
// id comes from the batch's name and the line itself, so the same file started again (after a Ctrl-C, or to add
// lines) attaches to the runs it already started and starts only the others.
import { withoutToolNames } from '../../config/run-input.js';
import { UsageError, type Parsed } from '../../core/args.js';
import { loadCliConfig } from '../config.js';
import { logLine } from '../log.js';
import { printJson, printText } from '../output.js';
import { runFromValues, START_FLAGS, valuesFromFlags } from '../settings.js';
import { batchNameOf, checkTaskLines, readTaskLines, refuse, TASKS_FLAGS, toolsNamed } from '../task-file.js';
import { taskQueue } from '../task-queue.js';
import { withTemporal } from '../temporal.js';
import { warnWhenNoWorker } from '../worker-presence.js';
import { withListedMcpTools } from '../worker-tools.js';
import { needsWorkerCatalog, toolCatalog, type ToolCatalog } from '../../config/tool-names.js';
import { commandLine } from '../invocation.js';

type Flags = Parsed<typeof START_FLAGS & typeof TASKS_FLAGS>['flags'];

/** Flags that name one run, which a file of many cannot share. */
const ONE_RUN_FLAGS = ['id', 'task-file'] as const;

export async function startTaskFile(flags: Flags, positionals: string[]): Promise<number> {
  const file = flags.tasks!;
  if (positionals.length > 0) throw new UsageError('with --tasks, the tasks are the lines of the file: give no task argument');
  for (const f of ONE_RUN_FLAGS) if (flags[f] !== undefined) throw new UsageError(`--${f} names one run: with --tasks, give each line its own "id"`);
  const batch = batchNameOf(file, flags['tasks-name']);
  const { checkBatchName, startTasks } = await import('../../client/task-file.js');
  try {
    checkBatchName(batch);
  } catch (err) {
    throw new UsageError(`${flags['tasks-name'] ? '--tasks-name' : `--tasks ${file}`}: ${(err as Error).message}${flags['tasks-name'] ? '' : ' (name it with --tasks-name)'}`);
  }
  const { lines, problems } = await readTaskLines(file);
  const { config } = await loadCliConfig(flags.config);
  const local = toolCatalog(config);
  const commandFlags = withoutTaskFlags(flags);
  const commandValues = valuesFromFlags(commandFlags);
  const askWorkers = toolsNamed(lines, commandValues).some((tools) => needsWorkerCatalog(tools, local));
  // The command line's own flags first, in their own words (--max-steps, not a line's field).
  runFromValues(withoutToolNames(commandValues), local, commandFlags);
  // The lines' settings are checked with the parse problems, so one answer names every bad line; when the tools
  // need the workers' catalog, a file that does not even parse is refused before connecting.
  if (askWorkers) refuse(file, problems);
  let checked = askWorkers ? undefined : checkTaskLines(file, lines, commandValues, local, problems);
  return withTemporal(async (temporal) => {
    let noWorker: boolean | undefined;
    if (!checked) {
      const { startCatalog } = await import('../../client/worker-catalog.js');
      const answer = await startCatalog(temporal.client, taskQueue(), local, { log: logLine, workerCommand: commandLine('worker') });
      noWorker = answer.noWorker;
      let catalog: ToolCatalog = answer.catalog;
      if (noWorker) for (const tools of toolsNamed(lines, commandValues)) catalog = await withListedMcpTools(tools, catalog, config.mcpServers ?? {});
      checked = checkTaskLines(file, lines, commandValues, catalog);
    }
    let attached = 0;
    // Looked for as soon as the first run has started: with --concurrency the command then waits for runs to end,
    // which without a worker they never do.
    let noWorkerWarning: Promise<void> | undefined;
    const started = await startTasks(temporal.client, {
      batch,
      concurrency: flags.concurrency,
      taskQueue: taskQueue(),
      tasks: checked.map((l) => ({ task: l.task, settings: l.settings, key: l.key, ...(l.id ? { workflowId: l.id } : {}), ...(l.priority ? { priority: l.priority } : {}) })),
      onStarted: (s) => {
        if (s.attached) attached++;
        if (!flags.json) printText(`${s.workflowId}\n`);
        noWorkerWarning ??= warnWhenNoWorker(temporal.client, taskQueue(), s.workflowId, noWorker);
      },
    });
    logLine(
      `batch ${batch}: ${started.length - attached} runs started, ${attached} already there` +
        ` (list --batch ${batch}, result --batch ${batch})`,
    );
    await noWorkerWarning;
    if (flags.json) {
      printJson({ batch, runs: started.map((s) => ({ line: checked![s.index].line, workflowId: s.workflowId, runId: s.runId, attached: s.attached })) });
    }
    return 0;
  }, { replays: false });
}

/** The command line's run flags, without those of the task file itself. */
function withoutTaskFlags(flags: Flags): Parsed<typeof START_FLAGS>['flags'] {
  const { tasks: _t, concurrency: _c, 'tasks-name': _n, ...rest } = flags;
  return rest;
}
