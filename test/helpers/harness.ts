// Shared by the integration tests: a client and worker on the one dev server that global-setup started, and
// the scripted model reached through the real Anthropic SDK. Each `withAgent` gets its own task queue, so tests in
// a file never pick up each other's runs; `useSharedAgent` keeps one queue and worker for a file, and ends the runs
// each test left open before the next.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import type { McpServerConfig, SubAgentConfig } from '../../src/config/types.js';
import type { AgentResult, AgentSettings } from '../../src/core/types.js';
import { startScriptedModel, type MessagesRequestBody, type ScriptedModel, type ScriptedModelOptions, type Script } from '../../src/scripted/index.js';
import { builtinTools } from '../../src/tools/registry.js';
import type { AgentTool, AnyAgentTool } from '../../src/tools/types.js';
import type { ModelConnection } from '../../src/activities/index.js';
import { createAgentWorker, type AgentWorker, type AgentWorkerOptions } from '../../src/worker/worker.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { defaultPayloadConverter, type DataConverter } from '@temporalio/common';
// The root's msToTs (deprecated there, public): a start interceptor's options hold the compiled protobuf duration.
import { msToTs } from '@temporalio/common';
import { testServerAddress } from './test-server.js';

export interface TestEnv {
  client: Client;
  connection: NativeConnection;
  /** The converter of `client`, which `withAgent` gives its worker too (default: the project's, from the
   * environment, as the CLI's). */
  dataConverter?: DataConverter;
  close(): Promise<void>;
}

/** A client with the project's data converter: by default from the environment, like the CLI's. */
export async function openTestEnv(dataConverter: DataConverter = agentDataConverter()): Promise<TestEnv> {
  const address = testServerAddress();
  const connection = await NativeConnection.connect({ address });
  const client = new Client({ connection: await Connection.connect({ address }), dataConverter });
  return {
    client,
    connection,
    dataConverter,
    async close() {
      await client.connection.close();
      await connection.close();
    },
  };
}

/** Call once at the top of a test file: opens a TestEnv before the file's tests and closes it after them. The
 * object returned stands for that env (usable inside tests and hooks, once it is open). */
export function useTestEnv(dataConverter?: DataConverter): TestEnv {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    env = await openTestEnv(dataConverter);
  });
  afterAll(async () => {
    await env?.close();
  });
  const current = () => {
    if (!env) throw new Error('useTestEnv(): the env is open only inside tests');
    return env;
  };
  return {
    get client() {
      return current().client;
    },
    get connection() {
      return current().connection;
    },
    get dataConverter() {
      return current().dataConverter;
    },
    close: () => current().close(),
  };
}

export interface AgentHarness {
  env: TestEnv;
  model: ScriptedModel;
  agent: AgentWorker;
  taskQueue: string;
  /** Starts a run and waits for its result while the worker runs. */
  run(task: string, settings?: Partial<AgentSettings>, workflowId?: string): Promise<AgentResult>;
  /** Starts a run and returns its workflow id. */
  start(task: string, settings?: Partial<AgentSettings>, workflowId?: string): Promise<string>;
}

/** Runs `fn` with a scripted model and a worker that lives for the duration of `fn`. */
export async function withAgent<T>(
  env: TestEnv,
  options: {
    /** The scripted model's replies; or `model`, a scripted model of the caller's (left running: two workers can
     * serve one run in turn). */
    script?: Script;
    model?: ScriptedModel;
    tools?: AgentTool[];
    apiKey?: string | null;
    /** The worker's activity slots (model and tool calls at once). */
    maxActivities?: number;
    /** Timeouts of the model connection (response start, stream idle). */
    modelConnection?: Pick<ModelConnection, 'timeoutMs' | 'streamIdleTimeoutMs'>;
    mcpServers?: Record<string, McpServerConfig>;
    /** Where `oauth` MCP servers' tokens are (default: the file store). */
    mcpTokenStore?: AgentWorkerOptions['mcpTokenStore'];
    /** Sub-agents of the worker (`agent__<name>` tools). */
    agents?: Record<string, SubAgentConfig>;
    taskQueue?: string;
    /** More options for the agent's Worker.create (a small workflow cache, ...). */
    workerOptions?: AgentWorkerOptions['workerOptions'];
    /** How the worker gathers and polls batch-mode calls (short windows and polls in tests). */
    modelBatches?: AgentWorkerOptions['modelBatches'];
    /** The scripted model's context window and compaction (src/scripted/compaction.ts). */
    modelOptions?: Pick<ScriptedModelOptions, 'contextWindow' | 'compaction' | 'taskBudget'>;
  },
  fn: (h: AgentHarness) => Promise<T>,
): Promise<T> {
  const model = options.model ?? (await startScriptedModel({ script: options.script ?? [], ...options.modelOptions }));
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const agent = await createAgentWorker({
    connection: env.connection,
    client: env.client,
    taskQueue,
    // The built-ins, stub included: tests run the France demo (the plugin's own default is the calculator alone).
    tools: options.tools ?? builtinTools,
    model: {
      apiKey: options.apiKey === null ? undefined : (options.apiKey ?? 'test-key'),
      baseURL: model.url,
      ...options.modelConnection,
    },
    maxActivities: options.maxActivities,
    dataConverter: env.dataConverter,
    mcpServers: options.mcpServers,
    ...(options.mcpTokenStore ? { mcpTokenStore: options.mcpTokenStore } : {}),
    agents: options.agents,
    workerOptions: options.workerOptions,
    modelBatches: options.modelBatches,
  });
  const harness = agentHarness({ env, model, agent, taskQueue }, options.tools);
  try {
    return await agent.worker.runUntil(fn(harness));
  } finally {
    if (!options.model) await model.close();
  }
}

/** The harness of a worker on `taskQueue`: runs see `tools` by name (default: the calculator and web search), and
 * `onStart` hears of each run started. */
function agentHarness(
  parts: Pick<AgentHarness, 'env' | 'model' | 'agent' | 'taskQueue'>,
  tools: readonly { name: string }[] = [],
  onStart: (workflowId: string) => void = () => {},
): AgentHarness {
  const { env, taskQueue } = parts;
  const harness: AgentHarness = {
    ...parts,
    async start(task, settings = {}, workflowId) {
      const toolNames = tools.map((t) => t.name);
      const full = defaultSettings({ tools: toolNames.length ? toolNames : ['calculator', 'web_search'], ...settings });
      const started = await startAgent(env.client, { task, settings: full, taskQueue, workflowId });
      onStart(started.workflowId);
      return started.workflowId;
    },
    async run(task, settings = {}, workflowId) {
      return getAgentResult(env.client, await harness.start(task, settings, workflowId));
    },
  };
  return harness;
}

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The tool_result blocks of the last request the model received. */
export function lastToolResults(requests: Array<{ body: unknown }>) {
  const messages = (requests[requests.length - 1].body as MessagesRequestBody).messages;
  const last = messages[messages.length - 1];
  return (last.content as Array<{ type: string }>).filter((b) => b.type === 'tool_result') as unknown as Array<{
    tool_use_id: string;
    content?: unknown;
    is_error?: boolean;
  }>;
}

/** The activity tasks a run scheduled, by activity type name, in order. */
export async function scheduledActivities(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e: HistoryEvent) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((n): n is string => Boolean(n));
}

/** The activity types of a history's local activities (read from their markers, which Temporal's core writes), in
 * order. */
export function localActivityTypes(events: HistoryEvent[]): string[] {
  return events.flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0] : undefined;
    return data ? [defaultPayloadConverter.fromPayload<{ activity_type: string }>(data).activity_type] : [];
  });
}

/** Starts a run on the harness's task queue without waiting for it (calculator and web_search unless the
 * settings say otherwise). */
export async function startRun(
  h: Pick<AgentHarness, 'env' | 'taskQueue'>,
  task: string,
  settings: Partial<AgentSettings> = {},
): Promise<string> {
  const full = defaultSettings({ tools: ['calculator', 'web_search'], ...settings });
  const started = await startAgent(h.env.client, { task, settings: full, taskQueue: h.taskQueue });
  return started.workflowId;
}

/** Polls `fn` until `ok` holds (visibility and queries lag behind the run a little). */
export function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await fn();
      if (!ok(value)) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/** A history event's time (its `eventTime`, or any proto timestamp) in epoch milliseconds: for assertions on when the
 * server recorded things, which load cannot skew the way a wall clock read by the test can. */
export function eventMs(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
}

export { eventKinds } from './history.js';

/** A client on `client`'s connection and converter whose workflow starts (startAgent's too) ask for a workflow task
 * timeout of `seconds` instead of the server's 10 s: for a test that waits one out (a worker killed inside a task) or
 * for the task's heartbeat (80 % of it: a local model call answering a query). */
export function withWorkflowTaskTimeout(client: Client, seconds: number): Client {
  return new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    dataConverter: client.options.dataConverter,
    interceptors: {
      workflow: [{ start: (input, next) => next({ ...input, options: { ...input.options, workflowTaskTimeout: msToTs(seconds * 1000) } }) }],
    },
  });
}

/** The worker-level options of `useSharedAgent`: those of `withAgent` that shape the worker, the same for every test
 * of the file. */
export interface SharedAgentOptions {
  /** Every tool the file's tests use (default: the built-ins), or its definition alone (no `execute`) for a tool
   * that only tests bring. A test names its own in `with({ tools })`, each defined as the file's tool of that name is;
   * the test's own `execute` then runs its calls. */
  tools?: Array<AnyAgentTool | Omit<AnyAgentTool, 'execute'>>;
  apiKey?: string;
  maxActivities?: number;
  modelConnection?: Pick<ModelConnection, 'timeoutMs' | 'streamIdleTimeoutMs'>;
  /** Sub-agents of the worker (`agent__<name>` tools). */
  agents?: Record<string, SubAgentConfig>;
  /** MCP servers of the worker, one session each for the file: for tests that leave the servers as they found them
   * (or come after the others that use them). */
  mcpServers?: Record<string, McpServerConfig>;
  workerOptions?: AgentWorkerOptions['workerOptions'];
  modelBatches?: AgentWorkerOptions['modelBatches'];
}

/** What a test of a file with a shared agent worker gives `with`: its script and tools, as to `withAgent`. */
export interface SharedAgentRun {
  script?: Script;
  /** The tools the test's runs see by default (their names are the runs' settings unless the test says otherwise). */
  tools?: AnyAgentTool[];
  modelOptions?: Pick<ScriptedModelOptions, 'contextWindow' | 'compaction' | 'taskBudget'>;
}

export interface SharedAgent {
  /** `withAgent(env, options, fn)` on the file's model and worker: the model is scripted anew for `fn` (its
   * `requests` are this test's alone), and every run still open on the task queue when `fn` ends is terminated, and
   * the worker's calls in flight are waited out, before the next test. */
  with<T>(options: SharedAgentRun, fn: (h: AgentHarness) => Promise<T>): Promise<T>;
}

/** What of a tool the worker and the model see (all but the code that runs its calls). */
const toolDefinition = ({ name, description, inputSchema, needsApproval, readOnly, timeout, heartbeatTimeout, retry, completesLater, fast }: Omit<AnyAgentTool, 'execute'>) => ({
  name, description, inputSchema, needsApproval, readOnly, timeout, heartbeatTimeout, retry, completesLater, fast,
});

/** A tool's definition without its code: for `useSharedAgent`'s tools, when the file's tests bring the code. */
export function definitionOf(tool: AnyAgentTool): Omit<AnyAgentTool, 'execute'> {
  return Object.fromEntries(Object.entries(toolDefinition(tool)).filter(([, v]) => v !== undefined)) as Omit<AnyAgentTool, 'execute'>;
}

/** Call once at the top of a test file, after `useTestEnv`: one scripted model and one agent worker on a task queue
 * of their own serve every `with(...)` of the file's tests (a worker's creation costs about a second of CPU). For the
 * tests that need no worker configuration of their own; the rest keep `withAgent`. Tests of a file run one at a time,
 * as vitest runs them by default. */
export function useSharedAgent(env: TestEnv, options: SharedAgentOptions = {}): SharedAgent {
  const fileTools = options.tools ?? builtinTools;
  const withCode = (tools: typeof fileTools) => tools.filter((t): t is AnyAgentTool => 'execute' in t).map((t) => [t.name, t] as const);
  let current = new Map(withCode(fileTools));
  // The worker's tools: the file's definitions, whose calls run the current test's tool of that name.
  const routed = fileTools.map((tool): AnyAgentTool => ({
    ...tool,
    execute: (input, context) => {
      const code = current.get(tool.name);
      if (!code) throw new Error(`useSharedAgent(): this test gave no tool "${tool.name}" (the file has its definition only)`);
      return code.execute(input, context);
    },
  }));
  let shared: { model: ScriptedModel; agent: AgentWorker; taskQueue: string; running: Promise<void>; stopped: Promise<never> } | undefined;

  beforeAll(async () => {
    const model = await startScriptedModel({ script: [] });
    const taskQueue = `test-${randomUUID()}`;
    const agent = await createAgentWorker({
      connection: env.connection,
      client: env.client,
      taskQueue,
      tools: routed,
      model: { apiKey: options.apiKey ?? 'test-key', baseURL: model.url, ...options.modelConnection },
      maxActivities: options.maxActivities,
      dataConverter: env.dataConverter,
      agents: options.agents,
      mcpServers: options.mcpServers,
      workerOptions: options.workerOptions,
      modelBatches: options.modelBatches,
    }).catch(async (err) => {
      await model.close();
      throw err;
    });
    const running = agent.worker.run();
    // A worker that stops (fails) while a test runs fails that test at once, as `runUntil` would.
    const stopped = running.then(
      () => Promise.reject(new Error('the shared agent worker stopped')),
      (err: unknown) => Promise.reject(err instanceof Error ? err : new Error(String(err))),
    );
    stopped.catch(() => undefined);
    shared = { model, agent, taskQueue, running, stopped };
  });
  afterAll(async () => {
    if (!shared) return;
    const { agent, running, model } = shared;
    shared = undefined;
    if (agent.worker.getState() === 'RUNNING') agent.worker.shutdown();
    try {
      await running;
    } finally {
      await model.close();
    }
  });

  return {
    async with(run, fn) {
      if (!shared) throw new Error('useSharedAgent(): the worker runs only inside tests');
      const { model, agent, taskQueue, stopped } = shared;
      const testTools = run.tools ?? builtinTools;
      for (const tool of testTools) {
        const fileTool = fileTools.find((t) => t.name === tool.name);
        if (!fileTool || !isDeepStrictEqual(toolDefinition(fileTool), toolDefinition(tool))) {
          throw new Error(`useSharedAgent(): the tool "${tool.name}" is not among the file's tools as defined there; give it to useSharedAgent, or use withAgent`);
        }
      }
      current = new Map([...withCode(fileTools), ...withCode(testTools)]);
      model.reset({ script: run.script ?? [], ...run.modelOptions });
      const started = new Set<string>();
      const harness = agentHarness({ env, model, agent, taskQueue }, run.tools, (id) => started.add(id));
      try {
        return await Promise.race([fn(harness), stopped]);
      } finally {
        await endTestRuns(env.client, taskQueue, started);
        model.reset({ script: [] });
        await vi.waitFor(
          () => {
            const { numInFlightActivities, numInFlightWorkflowActivations } = agent.worker.getStatus();
            if (numInFlightActivities + numInFlightWorkflowActivations > 0) {
              throw new Error(`the shared worker still has ${numInFlightActivities} activities and ${numInFlightWorkflowActivations} workflow activations in flight`);
            }
          },
          { timeout: 30_000, interval: 50 },
        );
      }
    },
  };
}

/** Terminates the runs a test left open on `taskQueue`: those it started through the harness, and any other the
 * server lists there as running (children, runs started by other means). */
async function endTestRuns(client: Client, taskQueue: string, started: Set<string>): Promise<void> {
  const open = new Set(started);
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
    open.add(execution.workflowId);
  }
  await Promise.all(
    [...open].map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('the test ended')
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }),
    ),
  );
}
