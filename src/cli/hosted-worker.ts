// What `run` and `resume` share: a worker in this process, the run begun while it polls, its result printed. This
// module loads Temporal's worker package, the activities and the model SDK: the commands import it once their
// flags and values are checked.
import { getAgentResult } from '../client/index.js';
import type { AgentConfig } from '../config/types.js';
import { toolsWithConfig } from '../config/check.js';
import { createAgentWorker, modelConnectionFromEnv } from '../worker/worker.js';
import { requireMcpEnvironment } from './config.js';
import { commandLine } from './invocation.js';
import { logLine } from './log.js';
import { EXIT, exitCodeFor, exitWhenFlushed, printResult } from './output.js';
import { throughOutage } from './outage.js';
import { installCliRuntime } from './runtime.js';
import { loadScript, openScriptedModel } from './scripted.js';
import { taskQueue } from './task-queue.js';
import { openTemporal, type TemporalSession } from './temporal.js';

export interface WorkerRunOptions {
  scripted: boolean;
  /** The config file's tools and MCP servers, for the worker this command hosts. */
  config: AgentConfig;
  /** The --config file given, for the command that reattaches after Ctrl-C (`run --id`). */
  configFile?: string;
  json: boolean;
  /** Starts (or finds) the run while the in-process worker runs; returns its workflow id. */
  begin(temporal: TemporalSession): Promise<string>;
  /** The run's id for the reattach command when Ctrl-C comes before `begin` returns one. */
  workflowId?: string;
}

/** What `run` and `resume` share: a Temporal server (the embedded one when none answers), a worker in this
 * process, the run begun while it polls, then its result printed with the exit code of its status.
 * Ctrl-C detaches (exit 130): the run goes on durably. */
export async function runWithWorker(options: WorkerRunOptions): Promise<number> {
  // The in-process worker's INFO lines would drown the run's own messages on stderr.
  installCliRuntime('WARN');
  requireMcpEnvironment(options.config);
  const script = options.scripted ? await loadScript(options.config) : undefined;
  const temporal = await openTemporal({ allowEmbedded: true });
  // Which server the run is on (the embedded one says so as it starts): `result`, `watch` and a worker need the same.
  if (!temporal.embedded) {
    const where = temporal.target.explicit ? 'TEMPORAL_ADDRESS or the config profile' : 'the default address; TEMPORAL_ADDRESS was not set';
    logLine(`using the Temporal server at ${temporal.target.address} (${where})`);
  }
  const scripted = script
    ? await openScriptedModel(script).catch(async (err) => {
        await temporal.close();
        throw err;
      })
    : undefined;
  let workflowId: string | undefined;
  // Set on Ctrl-C. The SDK's runtime also reacts to SIGINT (it shuts the worker down, which ends runUntil), so
  // the normal path below waits for the detach to finish instead of printing or exiting on its own.
  let detaching: Promise<never> | undefined;
  const detach = () => {
    logLine(`\ndetached: the run goes on durably${temporal.embedded ? ' (its state is in the embedded server\'s database)' : ''}.`);
    // `run --id` and not `result`: the run needs a worker, and the one that ran it was inside this process.
    const flags = `${options.configFile ? ` --config ${options.configFile}` : ''}${options.scripted ? ' --scripted' : ''}`;
    logLine(`reattach with: ${commandLine(`run --id ${workflowId ?? options.workflowId ?? '<id>'}${flags}`)}`);
    // The embedded server is stopped gracefully, so its database is left clean for the next `run`.
    detaching = (async () => {
      await temporal.embedded?.stop().catch(() => undefined);
      return exitWhenFlushed(EXIT.detached);
    })();
  };
  process.once('SIGINT', detach);
  try {
    const { worker } = await createAgentWorker({
      connection: await temporal.workerConnection(),
      client: temporal.client,
      taskQueue: taskQueue(),
      model: scripted?.connection ?? modelConnectionFromEnv(),
      tools: toolsWithConfig(options.config),
      mcpServers: options.config.mcpServers,
      agents: options.config.agents,
      maxAgentDepth: options.config.maxAgentDepth,
      // The scripted model ends a batch at once: a `--batch` demo polls every half second, not every 10 s.
      ...(scripted ? { modelBatches: { pollMs: 500, maxPollMs: 1_000 } } : {}),
    });
    const result = await worker.runUntil(async () => {
      const id = (workflowId = await options.begin(temporal));
      return throughOutage({ what: `waiting for run ${id}`, address: temporal.target.address }, () =>
        getAgentResult(temporal.client, id),
      );
    });
    if (detaching) await detaching;
    printResult(result, options.json);
    return exitCodeFor(result.status);
  } finally {
    // A failure while detaching is not reported either: the detach's exit ends the process first.
    if (detaching) await detaching;
    process.removeListener('SIGINT', detach);
    await temporal.close();
    await scripted?.close();
  }
}
