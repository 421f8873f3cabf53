// The one place that wires things together: a Temporal worker with the agent workflow, the model and tool
// activities, and a tool registry.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { agentDataConverter, FAILURE_CONVERTER_PATH } from './codec/data-converter.js';
import { codecsEncrypt } from './codec/encryption-codec.js';
import { createActivities, TranscriptStore, type ModelConnection } from './activities/index.js';
import { transcriptPage } from './workflows/definitions.js';
import { DEFAULTS, HEARTBEAT_INTERVAL_MS } from './core/policies.js';
import { builtinTools, createToolRegistry, type ToolRegistry } from './tools/registry.js';
import type { AgentTool } from './tools/types.js';
import type { McpServerConfig } from './config/types.js';

export interface AgentWorkerOptions {
  /** The worker's connection to Temporal (a NativeConnection) and a client on the same server, used by the
   * model activity to read transcripts. */
  connection: NativeConnection;
  client: Client;
  namespace?: string;
  taskQueue?: string;
  /** The tools this worker can run. Default: the built-in calculator and web_search. */
  tools?: AgentTool[];
  /** MCP servers by name whose tools this worker offers as `<name>__<tool>`.
   * SEAM: accepted and carried here; connecting to the servers is src/mcp's (not wired in yet). */
  mcpServers?: Record<string, McpServerConfig>;
  /** How to reach the Messages API. Default: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment. */
  model?: ModelConnection;
  /** A workflow bundle built with `bundleWorkflowCode` (see scripts/bundle-workflows.mjs). Default: the one
   * `npm run build` wrote next to this file, else one built once per process. */
  workflowBundlePath?: string;
  /** At most this many model calls at once on this worker; tool calls are not held back by it. */
  maxModelCalls?: number;
  /** Payload codecs and failure converter. Default: `agentDataConverter()` (encryption per AGENT_ENCRYPTION_KEYS).
   * The client must decode what this worker encodes: give it the same converter. */
  dataConverter?: DataConverter;
  /** Anything else for `Worker.create`. */
  workerOptions?: Partial<WorkerOptions>;
}

export interface AgentWorker {
  worker: Worker;
  registry: ToolRegistry;
  /** The model activity's transcript cache: its stats show when the query fallback ran. */
  transcripts: TranscriptStore;
}

export function modelConnectionFromEnv(env: NodeJS.ProcessEnv = process.env): ModelConnection {
  return { apiKey: env.ANTHROPIC_API_KEY || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined };
}

export async function createAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const registry = createToolRegistry(options.tools ?? builtinTools);
  const { client } = options;
  const dataConverter = options.dataConverter ?? agentDataConverter();
  assertClientDecodes(client, dataConverter);
  const transcripts = new TranscriptStore((ref, from, to) =>
    client.workflow.getHandle(ref.workflowId, ref.runId).query(transcriptPage, from, to),
  );
  const activities = createActivities({
    connection: options.model ?? modelConnectionFromEnv(),
    tools: registry,
    transcripts,
    maxModelCalls: options.maxModelCalls,
  });
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? options.client.options.namespace,
    taskQueue: options.taskQueue ?? DEFAULTS.taskQueue,
    workflowBundle: await workflowBundle(options.workflowBundlePath),
    activities,
    dataConverter,
    // Without this the SDK sends heartbeats at most every 0.8 × heartbeatTimeout (24 s), and a cancelled
    // call (deadline, `cancel`) would learn of it that late.
    maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
    ...options.workerOptions,
  });
  return { worker, registry, transcripts };
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

const PREBUILT_BUNDLE = fileURLToPath(new URL('./workflow-bundle.js', import.meta.url));
let bundledOnce: Promise<{ code: string }> | undefined;

async function workflowBundle(path?: string): Promise<{ codePath: string } | { code: string }> {
  if (path) return { codePath: path };
  if (existsSync(PREBUILT_BUNDLE)) return { codePath: PREBUILT_BUNDLE };
  // Running from source (tsx, tests): bundle once per process rather than on every Worker.create.
  bundledOnce ??= bundleWorkflowCode({
    workflowsPath: ['./workflows/index.ts', './workflows/index.js']
      .map((p) => fileURLToPath(new URL(p, import.meta.url)))
      .find((p) => existsSync(p))!,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: quietBundlerLogger,
  }).then(({ code }) => ({ code }));
  return bundledOnce;
}

const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn(message: string) {
    process.stderr.write(`workflow bundler: ${message}\n`);
  },
  error(message: string) {
    process.stderr.write(`workflow bundler: ${message}\n`);
  },
};
