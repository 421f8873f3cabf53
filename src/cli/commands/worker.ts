// `worker`: runs the agent workflow and its activities until SIGINT/SIGTERM, then shuts down cleanly
// (in-flight activities are finished or, after the grace time, left to be retried by another worker).
import { keyRingFromEnv } from '../../codec/keys.js';
import { encryptedTaskQueue } from '../../core/policies.js';
import { batchOptions, BATCH_DEFAULTS, type ModelBatchOptions } from '../../core/batch.js';
import { durationFlag } from '../settings.js';
import { toolsWithConfig } from '../../config/check.js';
import { modelConnectionFromEnv } from '../../worker/model-connection.js';
import { taskQueue as taskQueueFromEnv } from '../task-queue.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { deploymentProblem, VERSIONING_BEHAVIORS, type WorkerDeployment } from '../../core/versioning.js';
import { defineCommand } from '../command.js';
import { CONFIG_FLAG, loadCliConfig, requireMcpEnvironment } from '../config.js';
import { logLine } from '../log.js';
import { loadScript, openScriptedModel } from '../scripted.js';
import { openTemporal } from '../temporal.js';
import { describeSizing, sizingFromFlags, warnWhenCacheFull, WORKER_SIZING_FLAGS } from '../worker-sizing-flags.js';
import { findFreePort } from '../../devserver/ports.js';
import { tracingFromEnvOnDemand } from '../../observability/tracing-on-demand.js';

const WORKER_FLAGS = {
  scripted: { type: 'boolean', help: 'answer model calls from the offline scripted model (AGENT_SCRIPT, else the France demo)' },
  deployment: { type: 'string', value: 'NAME', help: 'run as a version of this Worker Deployment (with --build-id): docs/operations.md, "Upgrading workers"' },
  'build-id': { type: 'string', value: 'ID', help: "this worker's version of the deployment (a release id, a git sha)" },
  versioning: {
    type: 'string',
    choices: VERSIONING_BEHAVIORS,
    value: 'B',
    help: 'pinned (default: a run finishes on its version, moves at its next continue-as-new) or auto-upgrade',
  },
  'metrics-port': {
    type: 'int',
    min: 1,
    max: 65_535,
    help: "serve Prometheus metrics at http://0.0.0.0:N/metrics: the agent's (runs, model calls, tokens, cost, tool calls, approvals) and Temporal's worker metrics",
  },
  'batch-window': { type: 'string', value: 'D', help: 'batch mode (--batch runs): gather the runs\' model calls for D into one Message Batch (default 2s, at most 60s)' },
  'batch-poll': { type: 'string', value: 'D', help: 'batch mode: the first wait before a run polls its batch (default 10s; the wait then grows, to 5m at most)' },
  ...WORKER_SIZING_FLAGS,
  ...CONFIG_FLAG,
} satisfies Record<string, FlagSpec>;

const USAGE =
  'worker [--scripted] [--deployment NAME --build-id ID [--versioning B]] [--metrics-port N] [--batch-window D] [sizing options] [--config FILE]';

export const worker = defineCommand({
  usage: USAGE,
  description: `Run a worker on the task queue (AGENT_TASK_QUEUE, default durable-agent) until SIGINT or SIGTERM, then
shut down cleanly. It calls Claude with ANTHROPIC_API_KEY from its environment (never from the run).
Sizing: a run waits on its model most of the time, so one worker holds many. Every live run should fit in the
workflow cache (a run not cached replays its whole history at each turn); its default grows with the heap
(node --max-old-space-size). --max-workflow-tasks cannot exceed --max-cached-workflows. docs/operations.md: "Sizing a worker".
Traces: set OTEL_EXPORTER_OTLP_ENDPOINT (OTLP/HTTP); metrics: --metrics-port. docs/observability.md.`,
  flags: WORKER_FLAGS,
  examples: [
    'worker',
    'worker --max-activities 50 --config durable-agent.config.js',
    'worker --max-cached-workflows 5000 --workflow-pollers 20 --activity-pollers 20',
    'worker --scripted',
    'worker --deployment agents --build-id 2026-12-01.1',
    'worker --metrics-port 9464',
    'worker --batch-window 5s',
  ],
  run: workerCommand,
});

async function workerCommand({ flags, positionals }: Parsed<typeof WORKER_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], USAGE);
  const sizing = sizingFromFlags(flags);
  const modelBatches = batchOptionsFromFlags(flags);
  const deployment = deploymentFromFlags(flags);
  const { config } = await loadCliConfig(flags.config);
  requireMcpEnvironment(config);
  const model = modelConnectionFromEnv();
  if (!flags.scripted && !model.apiKey) {
    logLine('warning: ANTHROPIC_API_KEY is not set: model calls on this worker will fail until it is (or use --scripted).');
  }
  const tracing = await tracingFromEnvOnDemand(); // bad OTEL_* values fail here, before anything starts (exit 2)
  const metricsPort = flags['metrics-port'];
  // Temporal's runtime serves its own metrics on a loopback port; --metrics-port serves them after ours.
  const temporalMetrics = metricsPort ? `127.0.0.1:${await findFreePort()}` : undefined;
  // Temporal's worker package loads here, once the flags, the config and the environment are checked.
  const [{ installCliRuntime }, { createAgentWorker }] = await Promise.all([import('../runtime.js'), import('../../worker/worker.js')]);
  installCliRuntime('INFO', { prometheusBindAddress: temporalMetrics });
  // Until the worker runs, the SDK's own SIGINT/SIGTERM handlers are not in place: a stop asked for while
  // starting is remembered here and honoured as soon as the worker exists (exit 0, not death by signal).
  let stopRequested = false;
  const requestStop = () => void (stopRequested = true);
  process.on('SIGINT', requestStop);
  process.on('SIGTERM', requestStop);
  const script = flags.scripted ? await loadScript(config) : undefined;
  const temporal = await openTemporal({ allowEmbedded: false });
  const scripted = script ? await openScriptedModel(script).catch(async (err) => {
    await temporal.close();
    throw err;
  }) : undefined;
  const taskQueue = taskQueueFromEnv();
  try {
    const { worker, metrics } = await createAgentWorker({
      connection: await temporal.workerConnection(),
      client: temporal.client,
      taskQueue,
      model: scripted?.connection ?? model,
      ...sizing,
      tools: toolsWithConfig(config),
      mcpServers: config.mcpServers,
      agents: config.agents,
      maxAgentDepth: config.maxAgentDepth,
      deployment,
      modelBatches,
      tracing,
      ...(metricsPort ? { metrics: { port: metricsPort, temporalMetricsUrl: `http://${temporalMetrics}/metrics` } } : {}),
      // The SDK's runtime shuts the worker down on SIGINT/SIGTERM; worker.run() then resolves.
      workerOptions: { shutdownGraceTime: '10s' },
    });
    logLine(`worker polling task queue "${taskQueue}" on ${temporal.target.address} (namespace ${temporal.target.namespace}); Ctrl-C stops it`);
    // Runs encrypted with a key start on that key's queue: this worker polls the queue of each key it holds.
    for (const id of keyRingFromEnv()?.byId.keys() ?? []) {
      const queue = encryptedTaskQueue(taskQueue, id);
      logLine(`runs encrypted with key id "${id}": task queue "${queue}"`);
    }
    if (deployment) {
      logLine(`worker deployment "${deployment.name}", build id "${deployment.buildId}" (${deployment.versioning ?? 'pinned'} runs); make it current: temporal worker deployment set-current-version --deployment-name ${deployment.name} --build-id ${deployment.buildId}`);
    }
    if (metrics) logLine(`metrics: http://0.0.0.0:${metrics.port}/metrics (Prometheus)`);
    if (tracing) logLine(`traces: OTLP ${tracing.config.protocol} to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}, service ${tracing.config.serviceName}`);
    logLine(`worker sizing: ${describeSizing(worker.options)}`);
    const running = worker.run();
    const stopWatchingCache = warnWhenCacheFull(worker, logLine);
    if (stopRequested) worker.shutdown();
    await running.finally(stopWatchingCache);
    await tracing?.flush().catch(() => undefined); // the spans of the last calls, before the process exits
    logLine('worker stopped');
    return 0;
  } finally {
    process.removeListener('SIGINT', requestStop);
    process.removeListener('SIGTERM', requestStop);
    await temporal.close();
    await scripted?.close();
  }
}

/** --batch-window and --batch-poll as the worker's modelBatches, checked (a bad value: exit 2 naming the flag). */
function batchOptionsFromFlags(flags: Parsed<typeof WORKER_FLAGS>['flags']): ModelBatchOptions {
  const windowMs = flags['batch-window'] !== undefined ? durationFlag('batch-window', flags['batch-window']) : undefined;
  const pollMs = flags['batch-poll'] !== undefined ? durationFlag('batch-poll', flags['batch-poll']) : undefined;
  const options = { windowMs, pollMs, ...(pollMs !== undefined ? { maxPollMs: Math.max(pollMs, BATCH_DEFAULTS.maxPollMs) } : {}) };
  try {
    batchOptions(options);
  } catch (err) {
    throw new UsageError((err as Error).message.replace('modelBatches.windowMs', '--batch-window').replace('modelBatches.pollMs', '--batch-poll'));
  }
  return options;
}

/** `--deployment NAME --build-id ID [--versioning B]`: both or neither. */
function deploymentFromFlags(flags: Parsed<typeof WORKER_FLAGS>['flags']): WorkerDeployment | undefined {
  const { deployment: name, 'build-id': buildId, versioning } = flags;
  if (name === undefined && buildId === undefined) {
    if (versioning !== undefined) throw new UsageError('--versioning needs --deployment NAME and --build-id ID');
    return undefined;
  }
  if (name === undefined) throw new UsageError('--build-id needs --deployment NAME (the Worker Deployment it is a version of)');
  if (buildId === undefined) throw new UsageError("--deployment needs --build-id ID (this worker's version of it)");
  const d: WorkerDeployment = { name, buildId, ...(versioning ? { versioning: versioning as WorkerDeployment['versioning'] } : {}) };
  const problem = deploymentProblem(d);
  if (problem) throw new UsageError(`--deployment/--build-id: ${problem}`);
  return d;
}
