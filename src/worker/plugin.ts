// AgentPlugin: the agent workflow, its activities and its tools added to any Temporal worker (the team's own,
// on its own task queue), the way Temporal's integrations plug in: `Worker.create({ ..., plugins: [plugin] })`.
// createAgentWorker (src/worker/worker.ts) is this plugin on a worker of its own.
import { Client } from '@temporalio/client';
import { SimplePlugin } from '@temporalio/plugin';
import { type Worker, type BundleOptions, type BundlerPlugin, type ReplayWorkerOptions, type WorkerOptions, type WorkerPlugin, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, ModelSettingsStore, RecordedToolsStore, TranscriptStore, type ModelConnection } from '../activities/index.js';
import { attemptLogInterceptor, type AttemptLimitOf } from '../activities/attempt-log.js';
import { warnOfRunsWaitingForKeys, workerDataConverter } from './key-queues.js';
import { codecKeyIds, codecsEncrypt } from '../codec/encryption-codec.js';
import { checkAgents, subAgentDefinitions } from '../config/agents.js';
import type { McpServerConfig, SubAgentConfig } from '../config/types.js';
import type { SubAgentDefinition, ToolCallInput } from '../core/types.js';
import { ignoredTranscriptSinks } from '../core/transcript-sink.js';
import { LocalModelCalls } from '../activities/local-model-calls.js';
import { batcherFor, type ModelBatcher } from '../activities/batcher.js';
import type { ModelBatchOptions } from '../core/batch.js';
import { AGENT_ACTIVITY_TYPES, HEARTBEAT_INTERVAL_MS, STICKY_QUEUE_TIMEOUT } from '../core/policies.js';
import { serverNameProblem } from '../mcp/config.js';
import type { McpTools } from '../mcp/tools.js';
import type { McpTokenStore } from '../mcp/token-store.js';
import { calculator } from '../tools/calculator.js';
import { createToolRegistry, type ToolRegistry } from '../tools/registry.js';
import type { AnyAgentTool } from '../tools/types.js';
import { modelSettings, toolDefinitions } from '../workflows/definitions.js';
import { AGENT_WORKFLOWS_PATH, prebuiltBundle } from './workflow-code.js';
import { withAgentWorkflows } from './merged-workflows.js';
import { transcriptSinks, transcriptStore } from './worker-stores.js';
import { modelConnectionFromEnv } from './model-connection.js';
import { ignoredTelemetrySinks } from '../core/telemetry-sink.js';
import type { AgentMetrics } from '../observability/metrics.js';
import type { AgentTracing } from '../observability/tracing.js';
import { tracingFromEnvOnDemand } from '../observability/tracing-on-demand.js';
import { OTEL_WORKFLOW_INTERCEPTORS } from '../observability/workflow-interceptors.js';
import { workerTelemetry, type WorkerTelemetry } from '../observability/worker-telemetry.js';

export interface AgentPluginOptions {
  /** The tools the agent can run on this worker. Default: the built-in calculator only (the `webSearch` stub
   * answers with fake results: for demos and tests, add it yourself). */
  tools?: AnyAgentTool[];
  /** MCP servers by name whose tools this worker offers as `<name>__<tool>`: stdio servers are spawned and
   * HTTP servers connected to when the worker is created (a server that does not start, or a tool name the
   * Messages API would refuse, fails Worker.create), and closed when the worker stops. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Where the OAuth tokens of `oauth` MCP servers are read (and refreshed ones written). Default: the file that
   * `durable-agent mcp login` writes (AGENT_MCP_TOKENS, else .durable-agent/mcp-tokens.json). */
  mcpTokenStore?: McpTokenStore;
  /** Named sub-agents (`agent__<name>` tools whose calls are child runs), checked here against `tools`, `mcpServers`
   * and the depth limit (`maxAgentDepth`, default 2). A run delegates only to those its `tools` name. A run the CLI's
   * `start` checks against this worker nests as deep; one started with `startAgent` sets its own `settings.maxAgentDepth`. */
  agents?: Record<string, SubAgentConfig>;
  maxAgentDepth?: number;
  /** How to reach the Messages API. Default: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment. */
  model?: ModelConnection;
  /** A client the model activity reads transcripts with (a query), of the worker's namespace (another is refused
   * when the worker is created). Default: one on the worker's own connection and namespace. */
  client?: Client;
  /** The agent workflow code to use when the worker has no workflows of its own. Default: the bundle
   * `npm run build` wrote (dist/workflow-bundle.js), else the workflow source, bundled by Worker.create. */
  workflowBundle?: WorkflowBundleOption;
  /** OpenTelemetry tracing of runs, model calls and tool calls (docs/observability.md). Default: as the OTEL_*
   * variables configure it (off when none is set); null: off. */
  tracing?: AgentTracing | null;
  /** Where the worker counts runs, model calls, tokens, cost and tool calls (serve it with serveMetrics).
   * Default: none. */
  metrics?: AgentMetrics;
  /** How this worker gathers the batch-mode model calls of its runs into Message Batches and polls them (window
   * default 2 s, first poll after 10 s, at most every 5 minutes): docs/background-agents.md. */
  modelBatches?: ModelBatchOptions;
}

/** Bundled with the agent's workflow code (src/worker/workflow-code.ts does the same): OpenTelemetry's workflow
 * interceptors, which trace a run's workflow side and carry its trace to its activities and children. */
const WORKFLOW_MODULES = [OTEL_WORKFLOW_INTERCEPTORS];

export class AgentPlugin implements WorkerPlugin, BundlerPlugin {
  readonly name = 'durable-agent';
  readonly mcpServers: Record<string, McpServerConfig> | undefined;
  #transcripts: TranscriptStore | undefined;
  #recordedTools: RecordedToolsStore | undefined;
  #modelSettings: ModelSettingsStore | undefined;
  readonly #localTools: ToolRegistry;
  #mcp: Promise<{ mcp: McpTools; registry: ToolRegistry }> | undefined;
  #withMcp: ToolRegistry | undefined;
  /** The MCP sessions, once a worker has been created with the plugin (and `mcpServers` were given). */
  mcp: McpTools | undefined;
  #activities: ReturnType<typeof createActivities> | undefined;
  readonly #agents: Record<string, SubAgentDefinition> | undefined;
  /** The encryption keys each worker configured with this plugin holds, by namespace and queue (for the warning of
   * runs that wait for a key it lacks). */
  readonly #keyIds = new Map<string, readonly string[]>();
  /** How many workers configured with this plugin are running: the last to stop closes the MCP sessions. */
  #running = 0;
  #client: Client | undefined;
  /** Whether a worker configured with this plugin uses Worker Versioning (see the workerUsesVersioning activity). */
  #usesVersioning = false;
  /** Whether the first worker configured with this plugin encrypts (as its telemetry is decided). */
  #encrypts: boolean | undefined;
  #telemetry: WorkerTelemetry | undefined;
  /** By queue: the local model calls of the worker polling it, ended when it stops (local-model-calls.ts). */
  readonly #localModelCalls = new Map<string, LocalModelCalls>();

  constructor(private readonly options: AgentPluginOptions = {}) {
    // Checked here, so a bad tool fails where the plugin is made rather than inside Worker.create.
    this.#localTools = createToolRegistry(options.tools ?? [calculator]);
    this.mcpServers = options.mcpServers;
    for (const name of Object.keys(options.mcpServers ?? {})) {
      const problem = serverNameProblem(name);
      if (problem) throw new Error(problem);
    }
    if (options.agents) {
      const servers = Object.keys(options.mcpServers ?? {});
      const known = (name: string) => !!this.#localTools.get(name) || servers.some((server) => name.startsWith(`${server}__`));
      this.#agents = subAgentDefinitions(checkAgents(options.agents, known, options.maxAgentDepth));
    }
    if (options.client) this.#transcripts = transcriptStore(options.client);
  }

  /** The tools this plugin registers, by name (the MCP servers' too, once they are connected). */
  get registry(): ToolRegistry {
    return this.#withMcp ?? this.#localTools;
  }

  /** A tool call's attempt limit from the tool's own retry policy, for the attempt log when the server dispatched the
   * call eagerly and sent no retry policy with it (attempt-log.ts). */
  readonly #toolAttemptLimit: AttemptLimitOf = (type, args) => {
    const name = type === 'runTool' ? (args[0] as Partial<ToolCallInput> | undefined)?.name : undefined;
    return name === undefined ? undefined : this.registry.get(name)?.retry?.maximumAttempts;
  };

  /** The model activity's cache of the MCP tool definitions runs recorded (its stats show the query fallback). */
  get recordedTools(): RecordedToolsStore {
    if (!this.#recordedTools) throw new Error('AgentPlugin.recordedTools exists once a worker has been created with the plugin');
    return this.#recordedTools;
  }

  /** The model activity's cache of the model-call settings runs name by digest (its stats show the query
   * fallback). */
  get modelSettings(): ModelSettingsStore {
    if (!this.#modelSettings) throw new Error('AgentPlugin.modelSettings exists once a worker has been created with the plugin');
    return this.#modelSettings;
  }

  /** Connects to the MCP servers (once; Worker.create does it through configureWorker). */
  async startMcp(): Promise<void> {
    if (!this.mcpServers || Object.keys(this.mcpServers).length === 0) return;
    // Loaded here: a worker without MCP servers does not load the MCP SDK.
    const { connectMcpServers, withMcpTools } = await import('../mcp/tools.js');
    this.#mcp ??= connectMcpServers(this.mcpServers, this.options.mcpTokenStore ? { tokenStore: this.options.mcpTokenStore } : {}).then(async (mcp) => {
      try {
        return { mcp, registry: withMcpTools(this.#localTools, mcp) };
      } catch (err) {
        await mcp.close();
        throw err;
      }
    });
    const started = await this.#mcp.catch((err) => {
      this.#mcp = undefined; // a later attempt may succeed (a server started meanwhile)
      throw err;
    });
    this.mcp = started.mcp;
    this.#withMcp = started.registry;
  }

  /** Stops the MCP sessions (stdio servers exit). The worker's run does it when it ends; call it yourself when
   * Worker.create failed after the plugin configured it, or the worker is never run. */
  async close(): Promise<void> {
    await this.mcp?.close();
  }

  /** Runs the worker. The last of this plugin's workers to stop closes the MCP sessions, however it stops: no stdio
   * server outlives them. (Runs encrypted with a key start on that key's queue, `<taskQueue>@<keyId>`: a worker on
   * it is one you create, with this plugin, see encryptionKeyQueues; createAgentWorker does it for you.) */
  async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const key = queueKey(worker.options.namespace, worker.options.taskQueue);
    // Its local model calls end once it has been stopping for its grace time (local-model-calls.ts).
    const unwatch = this.#localModelCalls.get(key)?.watch(worker, worker.options.shutdownGraceTimeMs);
    const keyIds = this.#keyIds.get(key);
    if (this.#client && keyIds) void warnOfRunsWaitingForKeys(this.#client, worker.options.taskQueue, keyIds);
    this.#running++;
    try {
      await next(worker);
    } finally {
      unwatch?.();
      if (--this.#running === 0) await this.close();
    }
  }

  /** The stores the model activity reads through `client`, and the MCP sessions: once per plugin. */
  async #prepare(client: Client): Promise<void> {
    this.#client ??= client;
    this.#transcripts ??= transcriptStore(client);
    this.#recordedTools ??= new RecordedToolsStore((run) => client.workflow.getHandle(run.workflowId, run.runId).query(toolDefinitions));
    this.#modelSettings ??= new ModelSettingsStore((run, digest) => client.workflow.getHandle(run.workflowId, run.runId).query(modelSettings, digest));
    await this.startMcp();
  }

  /** One set of activities per plugin, shared by its workers (the agent's and its key queues'): one Messages API
   * client, one transcript cache. */
  #activitiesOnce(): ReturnType<typeof createActivities> {
    const connection = this.options.model ?? modelConnectionFromEnv();
    return (this.#activities ??= createActivities({
      connection,
      batcher: this.#batcher(connection),
      tools: this.registry,
      transcripts: this.transcripts,
      mcp: this.mcp,
      recordedTools: this.recordedTools,
      modelSettings: this.modelSettings,
      agents: this.#agents,
      maxAgentDepth: this.options.maxAgentDepth,
      usesVersioning: () => this.#usesVersioning,
      encrypts: this.#encrypts,
      telemetry: this.#telemetry?.activity,
      localModelCalls: (namespace, taskQueue) => this.#localModelCalls.get(queueKey(namespace, taskQueue)),
    }));
  }

  #batches: ModelBatcher | undefined;
  #batcher(connection: ModelConnection): ModelBatcher {
    return (this.#batches ??= batcherFor(connection, this.options.modelBatches));
  }

  /** The batcher of batch-mode runs' model calls (its stats: batches created, status reads, result downloads). */
  get batches(): ModelBatcher {
    return this.#batcher(this.options.model ?? modelConnectionFromEnv());
  }

  /** Traces and metrics, once per plugin (the first worker's data converter decides whether content may be captured). */
  async #telemetryOnce(dataConverter: WorkerOptions['dataConverter']): Promise<WorkerTelemetry> {
    if (this.#telemetry) return this.#telemetry;
    const tracing = this.options.tracing === undefined ? await tracingFromEnvOnDemand() : this.options.tracing;
    const telemetry = await workerTelemetry({ tracing, metrics: this.options.metrics, encrypts: codecsEncrypt(dataConverter?.payloadCodecs ?? []) });
    return (this.#telemetry ??= telemetry);
  }

  /** The model activity's transcript cache (its stats show when the query fallback ran); exists once the
   * plugin has configured a worker, or from the start when a client was given. */
  get transcripts(): TranscriptStore {
    if (!this.#transcripts) throw new Error('AgentPlugin.transcripts exists once a worker has been created with the plugin');
    return this.#transcripts;
  }

  async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    const taken = AGENT_ACTIVITY_TYPES.filter((name) => name in ((options.activities ?? {}) as object));
    if (taken.length > 0) {
      throw new Error(
        `AgentPlugin: this worker already registers an activity named ${taken.map((n) => `"${n}"`).join(' and ')}, ` +
          'which the agent workflow calls: rename yours, or run the agent on a worker of its own (createAgentWorker)',
      );
    }
    // Transcripts, settings and tool definitions are read through the client when the worker's cache lacks them (after
    // a restart): a client of another namespace would find no run there, and every such model call would fail.
    const namespace = options.namespace ?? 'default';
    const clientNamespace = this.options.client?.options.namespace;
    if (clientNamespace !== undefined && clientNamespace !== namespace) {
      throw new Error(
        `the client given to the agent's worker is of namespace "${clientNamespace}", but the worker polls namespace "${namespace}": ` +
          `the model calls read runs through it, and would find none; give it a client of namespace "${namespace}" (new Client({ connection, namespace: '${namespace}' }))`,
      );
    }
    // The project's data converter (encryption per AGENT_ENCRYPTION_KEYS), unless the worker has its own: then the
    // team's converter is theirs to keep, and clients of agent runs must use it too.
    const dataConverter = options.dataConverter ?? workerDataConverter();
    if (options.workerDeploymentOptions?.useWorkerVersioning) this.#usesVersioning = true;
    await this.#prepare(this.options.client ?? new Client({ connection: options.connection, namespace: options.namespace, dataConverter }));
    this.#encrypts ??= codecsEncrypt(dataConverter.payloadCodecs ?? []);
    const telemetry = await this.#telemetryOnce(dataConverter);
    const activities = this.#activitiesOnce();
    this.#localModelCalls.set(queueKey(options.namespace, options.taskQueue), new LocalModelCalls());
    this.#keyIds.set(queueKey(options.namespace, options.taskQueue), codecKeyIds(dataConverter.payloadCodecs ?? []));
    return new SimplePlugin({
      name: this.name,
      activities,
      workerInterceptors: { activity: [attemptLogInterceptor(this.#toolAttemptLimit), ...telemetry.activityInterceptors], workflowModules: WORKFLOW_MODULES },
      ...this.workflowSource({ ...options, dataConverter }),
    }).configureWorker({
      // Without this the SDK sends heartbeats at most every 0.8 × heartbeatTimeout (24 s), and a cancelled call
      // (deadline, `cancel`) would learn of it that late.
      maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
      // A dead worker's runs move to another worker after this instead of the SDK's 10 s ("Recovery time").
      stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
      ...options,
      dataConverter,
      // The telemetry sinks first: a worker that also has Temporal's OpenTelemetryPlugin keeps its own `exporter`.
      sinks: { ...telemetry.sinks, ...options.sinks, ...transcriptSinks(this.transcripts, this.modelSettings) },
    });
  }

  /** Replaying histories of the team's worker: the agent workflow is there too. */
  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return new SimplePlugin({ name: this.name, workerInterceptors: { workflowModules: WORKFLOW_MODULES }, ...this.workflowSource(options) }).configureReplayWorker({
      ...options,
      sinks: { ...ignoredTranscriptSinks, ...ignoredTelemetrySinks, ...options.sinks },
    });
  }

  /** `bundleWorkflowCode({ workflowsPath, plugins: [agentPlugin] })`: a prebuilt bundle with the team's workflows
   * and the agent workflow, for a worker given `workflowBundle`. */
  configureBundler(options: BundleOptions): BundleOptions {
    return new SimplePlugin({ name: this.name, workflowsPath: withAgentWorkflows, workerInterceptors: { workflowModules: WORKFLOW_MODULES } }).configureBundler(options);
  }

  /** Where the worker's workflow code comes from, with the agent workflow added. A worker has one workflow
   * source: the team's `workflowsPath` becomes a generated module exporting both; a prebuilt `workflowBundle` is
   * left as is (build it with this plugin, see configureBundler); a worker without workflows gets ours. */
  private workflowSource(options: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle' | 'dataConverter'>) {
    if (options.workflowBundle) return {};
    if (options.workflowsPath) return { workflowsPath: withAgentWorkflows };
    if (this.options.workflowBundle) return { workflowBundle: this.options.workflowBundle };
    // The prebuilt bundle whose failure converter matches the worker's data converter (workflow-code.ts); from source,
    // Worker.create bundles with the data converter's own.
    const prebuilt = prebuiltBundle(options.dataConverter);
    return prebuilt ? { workflowBundle: { codePath: prebuilt } } : { workflowsPath: AGENT_WORKFLOWS_PATH };
  }
}

function queueKey(namespace: string | undefined, taskQueue: string): string {
  return `${namespace ?? 'default'}\u0000${taskQueue}`;
}
