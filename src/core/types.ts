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
}

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export interface AgentInput {
  task: string;
  settings: AgentSettings;
}

export type RunStatus = 'completed' | 'stopped' | 'failed' | 'cancelled';

/** The harness guards. Only `max_steps` is enforced so far; the others arrive with the guards issue. */
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
}

/** The part of a Messages API response the workflow keeps. */
export interface ModelReply {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
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
