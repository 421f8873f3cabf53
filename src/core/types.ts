// Types shared by the workflow, the activities, the client and the CLI.
// This module must stay free of Node built-ins and I/O: the workflow bundle imports it.
import type {
  ContentBlock,
  ContentBlockParam,
  MessageParam,
  StopReason,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type { RunState } from './run-state.js';

export type { ContentBlock, ContentBlockParam, MessageParam, StopReason, ToolResultBlockParam, ToolUseBlock };

/** Every stop_reason the SDK's `StopReason` union lists; the workflow's switch is checked against it. */
export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const satisfies readonly StopReason[];

/** Token counts summed over a whole job (the four fields of the API's `usage` that cost money). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** What a run is configured with. Carried in the workflow input, so a run keeps it on any worker. */
export interface AgentSettings {
  model: string;
  /** Safety net: the largest number of model calls a run may make. */
  maxSteps: number;
  /** `max_tokens` of each model call. */
  maxOutputTokens: number;
  system?: string;
  /** Names of the tools the model may call (resolved against the worker's registry). */
  tools: string[];
  /** Stop when input + output + cache tokens, summed over the run, reach this. */
  budgetTokens?: number;
  /** Stop when the run's cost reaches this (needs a known price for the model). */
  budgetUsd?: number;
  /** Wall-clock limit of the whole job, in ms; the workflow turns it into an absolute deadline once. */
  deadlineMs?: number;
  /** Guards after which one last model call, with tools disabled, asks for a summary of progress. */
  summaryOn: GuardName[];
  /** Prices that override the built-in table (USD per million tokens), keyed by model id. */
  prices?: Record<string, { input: number; output: number; cacheWrite: number; cacheRead: number }>;
  /** Mark the conversation prefix with cache_control on every call (default true). */
  promptCaching: boolean;
  /** `output_config.effort`. */
  effort?: Effort;
  /** Extended thinking budget in tokens (`thinking: {type: "enabled", budget_tokens}`). */
  thinkingBudget?: number;
  /** A JSON Schema for the final answer: the run gets a `submit_answer` tool and ends when it is called with
   * valid input. */
  outputSchema?: Record<string, unknown>;
  /** Tools that need a human decision (approve/deny) before each call, on top of those whose definition
   * says so. */
  approve?: string[];
  /** Keep the run open after end_turn, waiting for follow-up messages, until `close` or the idle timeout. */
  chat?: boolean;
  /** How long an open chat run waits for the next message before it ends (ms). */
  idleTimeoutMs?: number;
  /** Upsert the Agent* search attributes (only when the server has them registered; the client checks). */
  searchAttributes?: boolean;
  /** Continue-as-new after this many model calls in one run, even if the server does not suggest it yet. */
  continueAsNewAfterSteps?: number;
  /** Tool output longer than this (characters) is truncated, with a note to the model saying how much. */
  maxToolOutputChars?: number;
  /** When a call's prompt reaches this many tokens, older tool results are cleared from later requests. */
  contextClearAtTokens?: number;
  /** How soon a worker that died in the middle of a call is noticed and the call retried elsewhere (ms);
   * default 30 s. Activities heartbeat at a third of it. */
  heartbeatTimeoutMs?: number;
}

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export interface AgentInput {
  task: string;
  settings: AgentSettings;
  /** The state a previous run of this job carried over (continue-as-new, or `resume` of a stopped run). */
  carried?: CarriedState;
  /** Set by `resume`: the run this one continues from. */
  resumedFrom?: { workflowId: string; runId: string };
}

/** What one run hands to the next: JSON-plain, so it survives serialisation unchanged. */
export type CarriedState = RunState;

/** The live state of a run, answered by the `agentStatus` query. */
export type AgentStatusValue = 'running' | 'awaiting_approval' | RunStatus;

export interface ToolCallView {
  toolUseId: string;
  name: string;
  input: unknown;
}

export interface AgentStatusView {
  workflowId: string;
  runId: string;
  status: AgentStatusValue;
  steps: number;
  toolCalls: number;
  usage: Usage;
  costUsd: number | null;
  stopReason: StopReason | null;
  guard: GuardName | null;
  /** Tool calls running now. */
  inFlight: ToolCallView[];
  /** Tool calls waiting for `approve` / `deny`. */
  pendingApprovals: ToolCallView[];
  lastText: string;
  messages: number;
  deadlineAt: number | null;
  /** Runs this job has used (1 + continue-as-new count). */
  runsUsed: number;
  /** A chat run waiting for the next message. */
  waitingForMessage: boolean;
  /** Messages before this index have their tool results cleared from requests (context management). */
  clearedUpTo: number;
  model: string;
}

export interface ApprovalDecision {
  /** Which pending call; may be omitted when exactly one call is pending. */
  toolUseId?: string;
  approve: boolean;
  reason?: string;
}

export interface ApprovalAck {
  toolUseId: string;
  approved: boolean;
}

export type RunStatus = 'completed' | 'stopped' | 'failed' | 'cancelled';

/** The harness guards. */
export type GuardName = 'max_steps' | 'budget' | 'deadline' | 'repetition' | 'error_streak';

/** The outcome of a run, as `result --json` prints it. */
export interface AgentResult {
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
  /** Model calls, all of them. */
  steps: number;
  /** Tool executions, including those that returned is_error. */
  toolCalls: number;
  usage: Usage;
  /** Cost of the whole job in USD from the price table; null when the model has no known price. */
  costUsd: number | null;
  /** The `submit_answer` input, for a run started with an output schema. */
  output?: unknown;
  /** Runs the job used, when more than one (continue-as-new). */
  runsUsed?: number;
  /** The run this one continued (`resume`). */
  resumedFrom?: { workflowId: string; runId: string };
  error: string | null;
}

/** A reference to the first `messageCount` messages of a run's transcript: what the model activity receives
 * instead of the messages themselves, so each message is stored in history once. */
export interface TranscriptRef {
  workflowId: string;
  runId: string;
  messageCount: number;
}

export interface ModelCallInput {
  transcript: TranscriptRef;
  model: string;
  maxOutputTokens: number;
  system?: string;
  tools: string[];
  /** Tools stay defined (the API requires them once the conversation holds tool blocks) but may not be used:
   * the final summary call. */
  toolChoiceNone?: boolean;
  promptCaching: boolean;
  effort?: Effort;
  thinkingBudget?: number;
  outputSchema?: Record<string, unknown>;
  /** Messages before this index have their tool results replaced by a short placeholder in the request. */
  clearToolResultsBefore?: number;
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
}

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
}

/** A tool's answer, ready to become a `tool_result` block. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** One page of a transcript, as served by the `transcriptPage` query. */
export interface TranscriptPage {
  messages: MessageParam[];
  /** Index of the first message of the page. */
  from: number;
  /** Total number of messages in the transcript. */
  total: number;
}
