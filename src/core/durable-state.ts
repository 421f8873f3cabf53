// The durable schema: every shape Temporal writes into a run's history, which code of a later version must
// read back (on replay, on continue-as-new, on `resume`, and when a new worker picks up an activity an old
// workflow scheduled).
//
// COMPATIBILITY CONTRACT: change these shapes only additively: a new optional field whose absence means the
// old behaviour. Never rename, remove or retype a field, or make one required; a change that breaks this
// breaks the runs in flight (see docs/contributing.md, "Replay fixtures and `patched()`").
//
// In history: the workflow input (`AgentInput`: the task, `AgentSettings`, the carried `RunState` with its
// `LoopState`), the workflow result (`AgentResult`), and each activity's input and result (`ModelCallInput` /
// `ModelReply`, `ToolCallInput` / `ToolOutcome`, `DescribeToolsInput` / `RecordedTools`), and the signals a run
// receives (`SubAgentReport`; a child run's input is an `AgentInput`, its result an `AgentResult`). Messages are the Messages API's own `MessageParam` and
// `ContentBlock` from the pinned `@anthropic-ai/sdk`.
// Types only (and one list of values): the workflow bundle imports this module.
import type { ContentBlock, MessageParam, StopReason, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';

/** The workflow's input. */
export interface AgentInput {
  task: string;
  settings: AgentSettings;
  /** The state a previous run of this job carried over (continue-as-new, or `resume` of a stopped run). */
  carried?: RunState;
  /** Set by `resume`: the run this one continues from. */
  resumedFrom?: { workflowId: string; runId: string };
  /** Set by `fork`: the run whose recorded steps this one reuses (its `carried` transcript), and what they cost. */
  forkedFrom?: ForkOrigin;
  /** Set when a parent agent run started this one as a sub-agent (a child workflow): which of its agents it is and
   * how deep in the tree (1 for a child of a top-level run). It reports its usage to its parent as it goes. */
  subAgent?: { name: string; depth: number };
}

/** Where a fork came from: steps 1 … step−1 are the source's, as recorded (in the carried transcript); its step
 * `step` is its first live model call. The reused steps' usage and cost are kept here, apart from the fork's own
 * (its budget counts only its live steps). */
export interface ForkOrigin {
  workflowId: string;
  /** The run of the source that was read (the latest of its chain at the time of the fork). */
  runId: string;
  /** The fork's first live step. */
  step: number;
  /** The tool calls of the reused steps (not made again). */
  reusedToolCalls: number;
  reusedUsage: Usage;
  /** null when the source's model has no known price. */
  reusedCostUsd: number | null;
}

/** What a run is configured with. Carried in the workflow input, so a run keeps it on any worker. Each field's doc
 * line, bounds and default are its entry of RUN_SETTINGS (src/core/run-settings.ts); the comments here add only what
 * the table does not say. */
export interface AgentSettings {
  model: string;
  maxSteps: number;
  maxOutputTokens: number;
  system?: string;
  /** Names of the tools the model may call (resolved against the worker's registry). */
  tools: string[];
  budgetTokens?: number;
  budgetUsd?: number;
  /** Wall-clock limit of the whole job, in ms; the workflow turns it into an absolute deadline once. */
  deadlineMs?: number;
  summaryOn: GuardName[];
  prices?: Record<string, { input: number; output: number; cacheWrite: number; cacheRead: number }>;
  promptCaching: boolean;
  effort?: Effort;
  thinkingBudget?: number;
  outputSchema?: Record<string, unknown>;
  /** Tools that need a human decision (approve/deny) before each call, on top of those whose definition
   * says so. */
  approve?: string[];
  chat?: boolean;
  idleTimeoutMs?: number;
  /** Upsert the Agent* search attributes (only when the server has them registered; the client checks). */
  searchAttributes?: boolean;
  continueAsNewAfterSteps?: number;
  maxToolOutputChars?: number;
  contextClearAtTokens?: number;
  /** Server-side compaction: the API summarizes the conversation so far into a compaction block, and later requests
   * send the conversation from that block on. */
  compactAt?: number;
  compaction?: boolean;
  /** Activities heartbeat at a third of it. */
  heartbeatTimeoutMs?: number;
  serverTools?: ServerToolSettings;
  toolTimeoutMs?: number;
  maxAgentDepth?: number;
  /** Each model call as a local activity, inside the workflow task, so a turn needs no server round trip for it.
   * Costs: no heartbeat (no live progress of the call in `watch` or the UI's pending activities), and a query, signal
   * or timer that arrives during a call is seen when the worker next reports the task (at most ~8 s later).
   * docs/operations.md, "Local model calls". */
  localModelCalls?: boolean;
  /** Each event is POSTed, signed, by the `deliverWebhook` activity. Not inherited by sub-agents. */
  webhooks?: string[];
  /** `'batch'`: the run waits for each call's Message Batch with durable timers (docs/background-agents.md). */
  modelCalls?: 'direct' | 'batch';
  /** `'retry'`: at most MAX_BATCH_SUBMISSIONS submissions in all; `'direct'`: one direct call, at the full price. */
  batchFallback?: BatchFallback;
}

export type BatchFallback = 'retry' | 'direct';

/** A named sub-agent as a worker defines it (`agents` of the config file or of AgentPlugin), offered to the model as
 * the tool `agent__<name>` with input `{ task }`. Recorded in history when a run that may delegate to it starts
 * (RecordedTools.agents), so every replay and worker builds the same child run. What is absent is the parent's. Its
 * own budget: the child gets at most what its parent has left when it starts; its own deadline (ms after it starts):
 * never later than its parent's. */
export interface SubAgentDefinition
  extends Partial<Pick<AgentSettings, 'system' | 'model' | 'maxSteps' | 'maxOutputTokens' | 'budgetTokens' | 'budgetUsd' | 'deadlineMs' | 'outputSchema' | 'effort'>> {
  /** The tool's description: when the model should delegate to this agent. */
  description: string;
  /** Its tools (names, `<server>__*`, and `agent__<name>` for agents it may delegate to). Default: none. */
  tools?: string[];
  /** More input than `{ task }`: a JSON Schema object whose properties the tool's input schema adds to `task`; the
   * child's task then carries them as JSON after the task's text. */
  inputSchema?: Record<string, unknown>;
  /** Temporal task priority of its child runs and their calls, 1 (first) to 5 (last). Default: its parent's. */
  priority?: number;
}

/** The `subAgentReport` signal a child run sends its parent after each model call (in the parent's history): its
 * totals so far. */
export interface SubAgentReport extends Pick<LoopState, 'steps' | 'usage' | 'costUsd'> {
  workflowId: string;
}

/** A child run a run started for one `agent__*` call: what `status` shows and what its usage rolled up to. Its steps,
 * usage and cost are as it last reported them (at its end: its result's), already added to the parent's own totals. */
export interface ChildRunRecord extends SubAgentReport {
  agent: string;
  toolUseId: string;
  status: 'running' | RunStatus;
}

/** The Messages API's server tools this package offers (`--server-tools`). */
export type ServerToolName = 'web_search' | 'web_fetch' | 'code_execution';
export const SERVER_TOOL_NAMES: readonly ServerToolName[] = ['web_search', 'web_fetch', 'code_execution'];

export interface ServerToolSettings {
  tools: ServerToolName[];
  /** `max_uses` of web_search: searches per request. */
  webSearchMaxUses?: number;
  /** Only these domains, for web_search and web_fetch (the API takes either this or blockedDomains). */
  allowedDomains?: string[];
  /** Never these domains, for web_search and web_fetch. */
  blockedDomains?: string[];
}

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/** How a run ended. The workflow writes the first four; `terminated` (an operator's `temporal workflow
 * terminate`) and `timed_out` (a workflow timeout) are closes by the server, which the workflow never sees:
 * the client reports them, read from the run's history. */
export type RunStatus = 'completed' | 'stopped' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';

/** The harness guards. */
export type GuardName = 'max_steps' | 'budget' | 'deadline' | 'repetition' | 'error_streak';

/** The state of a run, JSON-plain, carried as it is through continue-as-new (`AgentInput.carried`) and
 * read by `resume` (the `runState` query). */
export interface RunState {
  messages: MessageParam[];
  loop: LoopState;
  stopReason: StopReason | null;
  /** Absolute wall-clock deadline (epoch ms), fixed once at the start; null without --deadline. */
  deadlineAt: number | null;
  /** Runs this job has used so far, this one included. */
  runsUsed: number;
  /** Follow-up messages sent while the model or the tools were busy, appended at the next turn boundary. */
  pendingMessages: string[];
  /** Tool results in messages before this index are cleared from requests (the transcript keeps them). */
  clearedUpTo: number;
  /** A chat run was asked to close (`close`): it ends at its next wait for a message. */
  chatClosed: boolean;
  /** The MCP tool definitions of the job, recorded once when it started (absent when it uses none). */
  recordedTools?: RecordedTools;
  /** The call policies of the job's tools that set one (timeout, heartbeat, retry), by tool name, recorded once
   * when it started (the `describeTools` activity). */
  toolPolicies?: Record<string, ToolCallPolicy>;
  /** The compactions of the job so far, oldest first (absent until the first). */
  compactions?: CompactionRecord[];
  /** Request features the endpoint refused (a 400 naming them): not asked for again in this job. */
  refused?: RefusableFeature[];
  /** Client-side compaction (where the endpoint refused server-side compaction): the latest summary and the
   * index of the first message it does not replace. Requests send it in place of the messages before. */
  clientSummary?: ClientSummary;
  /** The sub-agents the job may delegate to, recorded once when it started (absent when it has none). */
  agents?: Record<string, SubAgentDefinition>;
  /** The child runs it started, by workflow id (absent until the first). */
  children?: Record<string, ChildRunRecord>;
}

/** A budget the model sees: the job's token budget (--budget-tokens) and what is left of it before this call. */
export interface TaskBudget {
  total: number;
  remaining: number;
}

/** Request features an endpoint or model may refuse, for which the run has a fallback. */
export type RefusableFeature = 'compaction' | 'task_budget';

export interface ClientSummary {
  /** The summary the model wrote of messages [0, messageIndex). */
  summary: string;
  messageIndex: number;
}

/** One compaction: where its block is in the transcript and what it did. */
export interface CompactionRecord {
  /** The index of the assistant message whose content begins with the compaction block. */
  messageIndex: number;
  /** The prompt it compacted, in tokens (the compaction's input, cached or not). */
  tokensBefore: number;
  /** The summary's size in tokens (the compaction's output). */
  summaryTokens: number;
  /** A client-side compaction: a summary call, whose summary replaces messages before `messageIndex` in later
   * requests (no block in the transcript). */
  clientSide?: boolean;
}

/** How the calls of one tool are scheduled, as its definition on the worker says (`defineTool({ timeout,
 * heartbeatTimeout, retry, completesLater })`, an MCP server's `callTimeout` / `toolTimeouts`). Durations in ms;
 * what is absent is the run's default (see src/core/tool-policy.ts). */
export interface ToolCallPolicy {
  /** Start-to-close timeout of one attempt: the whole call, a wait for an outside completion included. */
  timeoutMs?: number;
  heartbeatTimeoutMs?: number;
  retry?: {
    maximumAttempts?: number;
    initialIntervalMs?: number;
    backoffCoefficient?: number;
    maximumIntervalMs?: number;
  };
  /** The tool may end a call with `context.completeLater()`: the call is scheduled without a heartbeat timeout
   * (nothing beats while it waits for its completion from outside). */
  completesLater?: boolean;
  /** Calls run as local activities (patch `fast-tools-local`): no dispatch, no workflow task of their own. */
  fast?: boolean;
}

/** What the guards look at. Plain JSON, so it is carried through continue-as-new as it is. */
export interface LoopState {
  /** Model calls made so far (the summary call included). */
  steps: number;
  /** Tool executions so far, including those that returned is_error. */
  toolCalls: number;
  usage: Usage;
  /** Usage of the most recent model call: the base of the next call's estimate. */
  lastCallUsage: Usage | null;
  /** Spend so far in USD; null when the model has no known price. */
  costUsd: number | null;
  /** How often each tool call was requested, keyed by `toolCallKey` (name, length and hash of the canonical
   * arguments), so the carried state does not hold every call's input. */
  toolCallHashes: Record<string, number>;
  /** Tool calls in a row, up to the latest, that ended in an error. */
  errorStreak: number;
}

/** Token counts summed over a whole job (the four fields of the API's `usage` that cost money). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Server tool requests (`usage.server_tool_use`); present once a call used one. Web searches are billed per
   * search, on top of the tokens. */
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
}

/** The outcome of a run, as `result --json` prints it. */
export interface AgentResult extends Pick<LoopState, 'steps' | 'toolCalls' | 'usage' | 'costUsd'> {
  workflowId: string;
  runId: string;
  status: RunStatus;
  /** The last stop_reason the model returned, or null when no model call completed. */
  stopReason: StopReason | null;
  guard: GuardName | null;
  /** The final answer, or the last assistant text when the run did not complete. */
  text: string;
  /** True when `text` is a partial answer: the run stopped before the model was done. */
  partial: boolean;
  /** The `submit_answer` input, for a run started with an output schema. */
  output?: unknown;
  /** Runs the job used, when more than one (continue-as-new). */
  runsUsed?: number;
  /** The run this one continued (`resume`). */
  resumedFrom?: { workflowId: string; runId: string };
  /** The run this one forked (`fork`); its `steps`, `usage` and `costUsd` count the live steps only. */
  forkedFrom?: ForkOrigin;
  error: string | null;
}

/** A reference to the first `messageCount` messages of a run's transcript: what the model activity receives
 * instead of the messages themselves, so each message is stored in history once. */
export interface TranscriptRef {
  workflowId: string;
  runId: string;
  messageCount: number;
}

/** The settings of a run that each of its model calls is made with, as they are. */
type RunModelSetting = 'model' | 'maxOutputTokens' | 'system' | 'tools' | 'promptCaching' | 'effort' | 'thinkingBudget' | 'outputSchema' | 'serverTools';

/** One model call: those settings of its run, and what this call adds. */
export interface ModelCallInput extends Pick<AgentSettings, RunModelSetting> {
  transcript: TranscriptRef;
  /** Tools stay defined (the API requires them once the conversation holds tool blocks) but may not be used:
   * the final summary call. */
  toolChoiceNone?: boolean;
  /** Messages before this index have their tool results replaced by a short placeholder in the request. */
  clearToolResultsBefore?: number;
  /** Server-side compaction (the `compact-2026-01-12` beta) at this many input tokens; absent: none. The
   * request sends the conversation from the last compaction block on. */
  compactAt?: number;
  /** Client-side compaction: the request sends this summary, as a user message, in place of the messages
   * before `messageIndex`. */
  clientSummary?: ClientSummary;
  /** A request-side instruction appended as the last user text (the client-side compaction's summary call). */
  instruction?: string;
  /** `output_config.task_budget` (the `task-budgets-2026-03-13` beta): the job's token budget and what is left. */
  taskBudget?: TaskBudget;
  /** The digest of the run's recorded MCP tool definitions (RecordedTools), when it has some: the activity
   * reads them from its cache or with the `toolDefinitions` query, as it does the transcript. */
  recordedTools?: string;
}

/** The fields of ModelCallInput that are the same for every call of a run: the model-call settings. */
export type ModelCallSettingsField = RunModelSetting | 'compactAt' | 'clientSummary';

/** A model call's input, as the workflow schedules it: ModelCallInput without its settings, which `settings` names by digest (src/core/model-settings.ts). The activity reads them from its
 * cache or with the `modelSettings` query, so a 16 KB system prompt is stored once, in the workflow input, not
 * in every model call's input. The transcript is that of the run that scheduled the call (the activity's own
 * workflow execution), so only its length is given. */
export interface ModelCallByDigest extends Omit<ModelCallInput, ModelCallSettingsField | 'transcript'> {
  transcript: Pick<TranscriptRef, 'messageCount'>;
  settings: string;
}

/** The part of a Messages API response the workflow keeps. */
export interface ModelReply {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
  /** Tools of this reply whose definition on the worker says they need approval. */
  needsApproval?: string[];
  /** The usage of the compaction this call made (the API reports it apart from `usage`, which does not include
   * it); present when the reply begins with a compaction block. Counted in tokens, cost and the budget. */
  compactionUsage?: Usage;
  /** Set when the reply came as the result of a Message Batch request: billed at the batch price (pricing.ts). */
  batch?: { id: string; customId: string };
}

/** The input of `submitModelBatchRequest`: a model call named like `callModel`'s, the run's step and which
 * submission of that step's call this is (1, then 2 after an errored or expired request). */
export interface BatchCallInput extends ModelCallByDigest {
  step: number;
  submission: number;
}

/** A model call handed to a Message Batch (the `submitModelBatchRequest` result): which batch and which request in
 * it; once in history, the run waits for this batch whatever happens to the worker. */
export interface BatchSubmission {
  batchId: string;
  customId: string;
  /** When the request was submitted (epoch ms, the worker's clock). */
  submittedAt: number;
  /** How long the run waits before its first poll (the worker's setting). */
  pollMs: number;
  /** The request features a 400 may refuse that the request carried (a refused one lets the run go on without it). */
  asked?: { compaction: boolean; taskBudget: boolean };
}

/** What a poll of one batch request found (`pollModelBatchRequest`). */
export type BatchPoll =
  | { status: 'pending'; nextPollMs: number }
  | { status: 'succeeded'; reply: ModelReply }
  /** errored (an error worth trying again: overloaded, a server error), expired (not done in 24 h), canceled. */
  | { status: 'errored' | 'expired' | 'canceled'; error: string };

export interface ToolCallInput {
  workflowId: string;
  toolUseId: string;
  name: string;
  input: unknown;
  /** The tools this run may use; a call to any other is answered with an error result. */
  allowedTools: string[];
  /** For `submit_answer`: the schema its input must satisfy. */
  outputSchema?: Record<string, unknown>;
  /** Output longer than this many characters is truncated with a note to the model. */
  maxOutputChars?: number;
  /** Set by runs that hold MCP elicitations as questions: the answers recorded so far
   * for this call, in the order the server asked; a call without it has its elicitations declined. */
  elicitation?: { answers: ElicitationAnswer[] };
}

/** An MCP server's `elicitation/create` during a tool call (form mode), held by the run as a pending question. */
export interface ElicitationQuestion {
  /** `<toolUseId>/<n>`: the call's n-th question (1-based). */
  id: string;
  toolUseId: string;
  /** Which of the call's elicitations it is (0-based): where its answer goes in `answers`. */
  index: number;
  /** A hash of the message and schema: a repeated request with the same key gets the recorded answer. */
  key: string;
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  /** The server's `elicitationTimeout`: after it the question is answered `cancel`. */
  timeoutMs?: number;
}

/** An answer to an elicitation, recorded by the run and given to the server's repeated request. */
export interface ElicitationAnswer {
  key: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** A content block a tool_result may hold besides text: the Messages API takes text, images and documents
 * (MCP tools answer with these). */
export type ToolResultContentBlock = Exclude<NonNullable<ToolResultBlockParam['content']>, string>[number];

/** A tool's answer, ready to become a `tool_result` block: text, or content blocks (an MCP tool's images and
 * embedded resources). */
export interface ToolOutcome {
  content: string | ToolResultContentBlock[];
  isError: boolean;
  /** The call stopped at an MCP elicitation that needs a person: the run asks, then makes the call again with the answer. */
  question?: ElicitationQuestion;
}

/** The MCP tool definitions a run uses, fixed when it starts: the `describeTools` activity's result (its
 * input is `DescribeToolsInput`), recorded in history once and carried through continue-as-new. Model calls
 * name them by `digest` only (see src/activities/recorded-tools.ts), so they are not repeated in every model
 * call's input. */
export interface RecordedTools {
  /** A hash of `covers` and `definitions`: the same definitions have the same digest on every worker. */
  digest: string;
  /** The names of the run's `tools` setting that MCP servers answered (`files__read`, or `files__*`). */
  covers: string[];
  /** The tool definitions those names stand for, as the Messages API takes them. */
  definitions: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  /** The call policies of the tools `tools` names that set one, by tool name (not part of the digest: model calls
   * do not use them). */
  policies?: Record<string, ToolCallPolicy>;
  /** Asked for with `DescribeToolsInput.agents`: the definitions of those sub-agents (their `agent__<name>` tool
   * definitions are in `covers` and `definitions`, so model calls read them as they read MCP tools'). */
  agents?: Record<string, SubAgentDefinition>;
}

/** The input of the `describeTools` activity. */
export interface DescribeToolsInput {
  /** The run's `tools` setting (names and `<server>__*`). */
  tools: string[];
  /** The sub-agents the run may delegate to, by name. */
  agents?: string[];
}

/** The events a run sends its webhooks (src/core/webhooks.ts). */
export type WebhookEventType = 'run.completed' | 'run.stopped' | 'run.failed' | 'run.cancelled' | 'approval.needed' | 'guard.fired';

/** One event, as the body of every delivery of it (the same on every attempt). */
export interface WebhookEvent {
  /** Stable: derived from the workflow id, run id and the event, so a receiver de-duplicates retries with it. */
  id: string;
  type: WebhookEventType;
  /** When the run emitted it (ISO 8601, the workflow's clock). */
  createdAt: string;
  workflowId: string;
  runId: string;
  data: Record<string, unknown>;
}

/** The input of the `deliverWebhook` activity: one event for one URL. The signing secret is not here: the worker
 * reads it from its environment. */
export interface WebhookDeliveryInput {
  url: string;
  event: WebhookEvent;
}

/** What a delivery's receiver answered. */
export interface WebhookDeliveryResult {
  status: number;
  attempt: number;
}
