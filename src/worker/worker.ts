// A worker of its own for the agent: AgentPlugin (src/worker/plugin.ts) on a Worker with the agent's task queue. Teams
// with their own worker add the plugin to it instead.
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { codecsEncrypt } from '../codec/encryption-codec.js';
import { DEFAULTS } from '../core/policies.js';
import { encryptionKeyQueues, workerDataConverter } from './key-queues.js';
import { runBeside } from './run-beside.js';
import { AgentPlugin, type AgentPluginOptions } from './plugin.js';
import { workflowBundle } from './workflow-code.js';
import { agentWorkerSizing, checkWorkerSizing, type WorkerSizing } from './worker-sizing.js';
import { workerDeploymentOptions, type WorkerDeployment } from '../core/versioning.js';
import { SimplePlugin } from '@temporalio/plugin';
import type { AgentMetrics } from '../observability/metrics.js';
import { serveMetrics, type MetricsServer } from '../observability/metrics-server.js';

export { modelConnectionFromEnv } from './model-connection.js';

/** The sizing options (cache, slots, pollers: see WorkerSizing) default to AGENT_WORKER_SIZING, chosen for runs
 * that mostly wait on model calls (docs/operations.md, "Sizing a worker"). */
export interface AgentWorkerOptions
  extends WorkerSizing,
    Pick<AgentPluginOptions, 'tools' | 'mcpServers' | 'mcpTokenStore' | 'agents' | 'maxAgentDepth' | 'model' | 'modelBatches' | 'tracing'> {
  /** The worker's connection to Temporal (a NativeConnection) and a client on the same server and namespace, used
   * by the model activity to read transcripts. */
  connection: NativeConnection;
  client: Client;
  /** Default: the client's namespace; another is refused (the client could not read the worker's runs). */
  namespace?: string;
  taskQueue?: string;
  /** A workflow bundle built with `bundleWorkflowCode` (see scripts/bundle-workflows.mjs). Default: the one
   * `npm run build` wrote for this worker's data converter (workflow-code.ts), else one built once per process. */
  workflowBundlePath?: string;
  /** Payload codecs and failure converter. Default: `workerDataConverter()` (encryption per AGENT_ENCRYPTION_KEYS).
   * The client must decode what this worker encodes: give it the same converter. */
  dataConverter?: DataConverter;
  /** Run the worker as this version of a Worker Deployment (Worker Versioning: docs/operations.md, "Upgrading
   * workers"). Its runs are pinned to it by default and move to the deployment's current version at their next
   * continue-as-new; its key-queue workers are the same version. Default: unversioned. */
  deployment?: WorkerDeployment;
  /** Serves Prometheus metrics at `GET http://<host>:<port>/metrics` while the worker runs: the agent's, followed by
   * Temporal's worker metrics when `temporalMetricsUrl` names where the process's Runtime serves them (install it
   * with `telemetryOptions.metrics.prometheus.bindAddress`). docs/observability.md. */
  metrics?: { port: number; host?: string; temporalMetricsUrl?: string };
  /** Anything else for `Worker.create` (plugins given here run after the agent's). A sizing option given here
   * (`maxCachedWorkflows`, `tuner`, ...) wins over the sizing options above. */
  workerOptions?: Partial<WorkerOptions>;
}

/** The worker, its key queues' workers, its metrics server, and what its AgentPlugin holds. */
export interface AgentWorker extends Pick<AgentPlugin, 'registry' | 'transcripts' | 'mcp' | 'recordedTools' | 'modelSettings' | 'batches'> {
  /** The agent's worker. With encryption keys, running it also runs `keyQueueWorkers` beside it (`shutdown()` and
   * the end of `runUntil()` stop them all; one that stops stops the others). */
  worker: Worker;
  /** One worker per encryption key the data converter holds, on that key's task queue (`<taskQueue>@<keyId>`), where
   * runs encrypted with it start (encryptionKeyQueues): the same plugin, tools and sizing. Empty without encryption. */
  keyQueueWorkers: Worker[];
  /** The metrics server (with `metrics`), closed when the worker stops, and what it counts. */
  metrics?: MetricsServer & { agent: AgentMetrics };
}

export async function createAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const dataConverter = options.dataConverter ?? workerDataConverter();
  assertClientDecodes(options.client, dataConverter);
  // prom-client is loaded only for a worker that serves metrics.
  const metrics = options.metrics ? new (await import('../observability/metrics.js')).AgentMetrics() : undefined;
  const plugin = new AgentPlugin({
    metrics,
    tracing: options.tracing,
    tools: options.tools,
    mcpServers: options.mcpServers,
    ...(options.mcpTokenStore ? { mcpTokenStore: options.mcpTokenStore } : {}),
    agents: options.agents,
    maxAgentDepth: options.maxAgentDepth,
    model: options.model,
    modelBatches: options.modelBatches,
    client: options.client,
    workflowBundle: await workflowBundle(options.workflowBundlePath, dataConverter),
  });
  const server = metrics && options.metrics ? await serveMetrics({ ...options.metrics, metrics }) : undefined;
  const closeServer = server ? [new SimplePlugin({ name: 'durable-agent-metrics', runContext: (next) => next().finally(() => server.close()) })] : [];
  const taskQueue = options.taskQueue ?? DEFAULTS.taskQueue;
  const create = (queue: string, plugins: WorkerPlugin[]) =>
    Worker.create({
      connection: options.connection,
      namespace: options.namespace ?? options.client.options.namespace,
      taskQueue: queue,
      dataConverter,
      ...sizingOf(options),
      ...(options.deployment ? { workerDeploymentOptions: workerDeploymentOptions(options.deployment) } : {}),
      ...options.workerOptions,
      ...(options.workerOptions?.identity && queue !== taskQueue ? { identity: `${options.workerOptions.identity} (${queue})` } : {}),
      plugins: [plugin, ...plugins, ...(options.workerOptions?.plugins ?? [])],
    });
  let keyQueueWorkers: Worker[] = [];
  const worker = await (async () => {
    keyQueueWorkers = await Promise.all(encryptionKeyQueues(taskQueue, dataConverter).map((queue) => create(queue, [])));
    const runKeyQueues: WorkerPlugin = { name: 'durable-agent-key-queues', runWorker: (w, next) => runBeside(w, next, keyQueueWorkers) };
    return create(taskQueue, [...(keyQueueWorkers.length > 0 ? [runKeyQueues] : []), ...closeServer]);
  })().catch(async (err) => {
    await plugin.close(); // no MCP server is left running by a worker that was never made
    await server?.close();
    throw err;
  });
  return {
    worker,
    keyQueueWorkers,
    registry: plugin.registry,
    transcripts: plugin.transcripts,
    mcp: plugin.mcp,
    recordedTools: plugin.recordedTools,
    modelSettings: plugin.modelSettings,
    batches: plugin.batches,
    ...(server && metrics ? { metrics: { ...server, agent: metrics } } : {}),
  };
}

/** The Worker.create options of the sizing options, checked together with any sizing given in `workerOptions`
 * (which wins). A `tuner` there sizes the slots itself: the slot options are then left out (the SDK refuses both). */
function sizingOf(options: AgentWorkerOptions): Partial<WorkerOptions> {
  const own = options.workerOptions ?? {};
  if (own.tuner && (options.maxWorkflowTasks !== undefined || options.maxActivities !== undefined)) {
    throw new Error('createAgentWorker: maxWorkflowTasks and maxActivities size the slots that workerOptions.tuner sizes: give one or the other');
  }
  const sizing: Partial<WorkerOptions> = agentWorkerSizing({ ...options, maxCachedWorkflows: own.maxCachedWorkflows ?? options.maxCachedWorkflows });
  if (own.tuner) {
    delete sizing.maxConcurrentWorkflowTaskExecutions;
    delete sizing.maxConcurrentActivityTaskExecutions;
  }
  checkWorkerSizing({ ...sizing, ...own });
  return sizing;
}

/** The model activity reads transcripts through `client`: when this worker encrypts, a client that does not
 * would fail every model call. Said once, at start, instead. */
function assertClientDecodes(client: Client, dataConverter: DataConverter): void {
  const workerEncrypts = codecsEncrypt(dataConverter.payloadCodecs ?? []);
  if (workerEncrypts && !codecsEncrypt(client.options.loadedDataConverter.payloadCodecs)) {
    throw new Error(
      'the worker encrypts payloads (AGENT_ENCRYPTION_KEYS) but the client given to createAgentWorker does not: ' +
        'create it with `new Client({ connection, dataConverter: agentDataConverter() })`',
    );
  }
}
