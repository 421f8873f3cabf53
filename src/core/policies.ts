// Every timeout and retry value of the activities, named in one place (and documented in docs/inspecting.md).
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/common';
import type { GuardName } from './types.js';

/** Frozen all the way down: these objects are shared by the client and the bundled workflow (each has its own
 * copy), so a caller that changed one would change one side only. A change of policy is an option, not a
 * mutation. */
function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object') deepFreeze(inner as object);
  return Object.freeze(value);
}

/** One Messages API request. The SDK's own retries are off, so this policy is the one in force and each
 * attempt is visible in the Temporal UI. Non-retryable provider errors (400, 401, ...) are marked as such by
 * the activity itself. */
export const MODEL_CALL_OPTIONS = deepFreeze({
  // A backstop only: every call streams, so a call that is still producing tokens is never cut by a request
  // timeout, and a dead connection is noticed by STREAM_IDLE_TIMEOUT_MS, a dead worker by the heartbeat timeout.
  // An hour leaves room for the longest replies (128k output tokens at ~50 tokens/s is ~45 minutes).
  startToCloseTimeout: '60 minutes',
  // Model calls heartbeat while they wait, so a worker that dies mid-call is noticed in 10 s, not 60 min
  // ("Recovery time" in docs/durability.md; measured in BENCHMARKS.md, "(d) Recovery").
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 8,
  },
} satisfies ActivityOptions);

/** The task queue of the runs on `taskQueue` whose payloads are encrypted with key `keyId`: only workers holding
 * that key poll it (beside `taskQueue` itself), so a worker without it never takes, and never fails, a task it
 * cannot decode. Their activities follow (they are scheduled on the workflow's own queue). */
export function encryptedTaskQueue(taskQueue: string, keyId: string): string {
  return `${taskQueue}@${keyId}`;
}

/** The key id of an encrypted run's task queue (see encryptedTaskQueue) on `taskQueue`, or undefined. */
export function keyIdOfTaskQueue(taskQueue: string, queue: string): string | undefined {
  if (!queue.startsWith(`${taskQueue}@`)) return undefined;
  const id = queue.slice(taskQueue.length + 1);
  return /^[A-Za-z0-9._-]{1,64}$/.test(id) ? id : undefined;
}

/** The agent's worker, sized for runs that mostly wait on their model (createAgentWorker and `worker`; the flags
 * and the measurements in BENCHMARKS.md, "Worker sizing"):
 * - the workflow cache: every live run should fit, since a run that is not cached is replayed from its whole
 *   history at each turn. Its default grows with the heap, as Temporal's does: CACHED_RUNS_PER_HEAP_GB;
 * - workflow-task slots: Temporal's 40. The agent's workflow tasks are short CPU work; more slots only queue
 *   more of them inside a busy worker;
 * - pollers: Temporal's 10 per worker (workflow tasks: 8 on the sticky queue, 2 on the normal one). Near the server
 *   a poll returns in milliseconds, so 10 keep 40 slots fed; autoscaling ('auto') was no faster: opt-in, not the
 *   default. Raise them for a distant server;
 * - activity slots (model and tool calls at once, Temporal's `maxConcurrentActivityTaskExecutions`): 1,000. A model
 *   call is an I/O wait (seconds of streaming, little CPU or memory), so a process holds many; a call beyond the
 *   slots waits in the server's queue, holding no slot and no timeout. Tools are the team's code, of unknown cost:
 *   a team whose tools are heavy lowers it (`--max-activities`), or bounds them in the tool. */
export const AGENT_WORKER_SIZING = deepFreeze({
  maxWorkflowTasks: 40,
  workflowPollers: 10,
  activityPollers: 10,
  maxActivities: 1_000,
} satisfies { maxWorkflowTasks: number; workflowPollers: number | 'auto'; activityPollers: number | 'auto'; maxActivities: number });

/** The failure type of a local model call that its worker ended because it was shutting down
 * (activities/local-model-calls.ts): the run makes the call again as an activity. */
export const WORKER_STOPPING_FAILURE_TYPE = 'WorkerStopping';

/** Runs cached per GB of heap above HEAP_KEPT_FROM_CACHE_MB, when `maxCachedWorkflows` is not given: Temporal's own
 * default (600 per GB, with reused V8 contexts), kept because it scales with the memory the worker has. Measured
 * here: a live 10-turn agent run costs about 0.6 MB of the worker's RSS, so this leaves room for runs with
 * transcripts several times that size; Node's default 4 GB heap gives 2,310 runs. */
export const CACHED_RUNS_PER_HEAP_GB = 600;
export const HEAP_KEPT_FROM_CACHE_MB = 200;

/** The agent's activity types. */
export const AGENT_ACTIVITY_TYPES = [
  'callModel',
  'runTool',
  'describeTools',
  'deliverWebhook',
  'submitModelBatchRequest',
  'pollModelBatchRequest',
  'releaseModelBatchRequest',
] as const;

/** One tool call. A tool that fails on its input answers with an error result instead of throwing, so what
 * is retried here is infrastructure: a crash, a timeout, a network error inside the tool. */
export const TOOL_CALL_OPTIONS = deepFreeze({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
  },
} satisfies ActivityOptions);

/** describeTools as a local activity (a run naming no MCP tool): it reads the worker's own configuration (tool
 * policies, sub-agent definitions), so it takes milliseconds and never waits or heartbeats. */
export const LOCAL_DESCRIBE_TOOLS_OPTIONS = deepFreeze({
  startToCloseTimeout: '1 minute',
  retry: TOOL_CALL_OPTIONS.retry,
} satisfies LocalActivityOptions);

/** A webhook delivery (src/workflows/webhooks.ts): an attempt has 30 s (the receiver must answer within 20 s), and
 * failed attempts are retried with backoff (1 s, 2 s, 4 s, ... at most 10 minutes apart) for up to a day. The run
 * closes once its deliveries have settled. */
export const WEBHOOK_DELIVERY_OPTIONS = deepFreeze({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '24 hours',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
  },
} satisfies ActivityOptions);

/** A model call's stream that delivers no event (not even a `ping`) for this long is abandoned and the call is
 * retried as a whole. The real API sends pings while the model works, so minutes of silence mean a dead
 * connection; it is below Node's own 300 s body timeout, so the failure names the cause. */
export const STREAM_IDLE_TIMEOUT_MS = 180_000;

/** How long a model call waits for the response to start (status and headers). With streaming, this is the
 * SDK's `timeout`: it no longer bounds the whole call, only the time to the first byte (Node gives up at 300 s
 * anyway). */
export const MODEL_RESPONSE_START_TIMEOUT_MS = 300_000;

/** The last words of a streaming reply carried in the model call's heartbeat details (characters). */
export const MODEL_PROGRESS_WORDS = 160;

/** How often a running activity heartbeats: about three beats per 10 s heartbeat timeout, so two can be lost in a
 * row before the server gives up on the worker. Also how soon a cancellation reaches a running call. */
export const HEARTBEAT_INTERVAL_MS = 3_000;

/** A workflow task meant for the worker that has the run cached (its sticky queue) goes to any worker after
 * this long. The SDK's default is 10 s; when that worker has died, this is what the next step waits. The cost
 * of a shorter one: a worker too busy to take the task within 5 s makes another worker replay the run. */
export const STICKY_QUEUE_TIMEOUT = '5 seconds';

/** Tool output beyond this many characters is truncated with a note to the model: far under Temporal's 2 MB
 * payload limit, and about 25k tokens, so one tool result cannot crowd the context window. */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 100_000;

/** The tool results of this many most recent messages are never cleared from requests (context management)
 * nor trimmed to fit continue-as-new: the model is still working with them. */
export const RECENT_MESSAGES_KEPT_WHOLE = 6;

/** A running run's progress search attributes (AgentSteps, AgentTokens, AgentCostUsd, AgentStopReason) are
 * upserted at most this often (workflow time); a change of status, guard or model, and so the run's end, at once.
 * Each upsert is a history event and a visibility write, among the costliest writes the server makes for a run: at
 * 1,000 agents, every 10 s instead of this cost the server about 7 % more CPU a turn (BENCHMARKS.md). A list of runs
 * can lag a minute behind; `status` and `watch` always show the live figures. */
export const SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS = 60_000;

/** The largest transcript page a query returns: far below gRPC's 4 MB message limit. */
export const TRANSCRIPT_PAGE_BYTES = 1_000_000;

/** The smallest compaction trigger the API takes (`--compact-at`). */
export const MIN_COMPACT_AT_TOKENS = 5_000;

/** The context window of a model, in tokens: 200,000 for the Claude models (larger windows need a beta this
 * package does not send). The largest `--compact-at`. */
export function contextWindowTokens(_model: string): number {
  return 200_000;
}

/** The guards after which a summary call can be made: budget and deadline stop because the money or the time ran
 * out, so there is nothing left to spend on one. */
export const SUMMARY_GUARDS: readonly GuardName[] = Object.freeze(['max_steps', 'repetition', 'error_streak']);

export const DEFAULTS = deepFreeze({
  model: 'claude-sonnet-5-5',
  maxSteps: 20,
  maxOutputTokens: 4096,
  taskQueue: 'durable-agent',
  summaryOn: SUMMARY_GUARDS,
  promptCaching: true,
  /** Older tool results are cleared from requests once a prompt reaches this many tokens (most Claude
   * context windows hold 200k). */
  contextClearAtTokens: 150_000,
  /** Server-side compaction (on by default): a prompt that reaches this many input tokens is summarized by the
   * API into a compaction block (the API's own default trigger). */
  compactAtTokens: 150_000,
  /** An open chat run waits this long for the next message before it ends. */
  idleTimeoutMs: 60 * 60 * 1000,
});
