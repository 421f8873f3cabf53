// Types shared by the workflow, the activities, the client and the CLI: the live views (queries, updates) and
// the Messages API types we use. The shapes written to history are in durable-state.ts, re-exported here.
// This module must stay free of Node built-ins and I/O: the workflow bundle imports it.
import type {
  ContentBlock,
  ContentBlockParam,
  MessageParam,
  StopReason,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type { AgentResult, ChildRunRecord, CompactionRecord, ElicitationAnswer, ElicitationQuestion, RunState, RunStatus, ToolCallInput } from './durable-state.js';

export type { ContentBlock, ContentBlockParam, MessageParam, StopReason, ToolResultBlockParam, ToolUseBlock };
export * from './durable-state.js';

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

/** The live state of a run, answered by the `agentStatus` query. */
export type AgentStatusValue = 'running' | 'awaiting_approval' | 'awaiting_input' | RunStatus;

/** Every RunStatus: a run that shows one of these has ended. */
export const TERMINAL_STATUSES: readonly string[] = ['completed', 'stopped', 'failed', 'cancelled', 'terminated', 'timed_out'] satisfies RunStatus[];
/** Every AgentStatusValue: what `list --status` and `GET /v1/runs?status=` filter by. */
export const AGENT_STATUSES: readonly string[] = ['running', 'awaiting_approval', 'awaiting_input', ...TERMINAL_STATUSES];

export interface ToolCallView extends Pick<ToolCallInput, 'toolUseId' | 'name' | 'input'> {
  /** The call's start-to-close timeout (ms), set for calls scheduled with a tool call policy. */
  timeoutMs?: number;
  /** Its tool may complete it from outside (`completesLater`). */
  completesLater?: boolean;
}

/** What a tool call in flight reports: its activity's heartbeat details (small JSON), read back by `status` and
 * `watch` from the pending activity and shown by the Temporal UI. Never part of the workflow's state. */
export interface ToolCallProgress {
  toolUseId: string;
  /** The tool's latest `context.progress(message)` (or an MCP server's progress notification). */
  message?: string;
  /** 0..1, when the tool said. */
  fraction?: number;
  /** When that message was reported (epoch ms). */
  reportedAt?: number;
  /** Since when (epoch ms) the call waits for its completion from outside (`context.completeLater()`). */
  waitingSince?: number;
  /** The MCP task the call runs as (`execution.taskSupport`): a retry resumes it. */
  mcpTaskId?: string;
}

/** The live view of a run: so far, the fields of its result (AgentResult) and of its state (RunState) it shares. */
export interface AgentStatusView
  extends Pick<AgentResult, 'workflowId' | 'runId' | 'steps' | 'toolCalls' | 'usage' | 'costUsd' | 'stopReason' | 'guard' | 'forkedFrom'>,
    Pick<RunState, 'deadlineAt' | 'runsUsed' | 'clearedUpTo'> {
  status: AgentStatusValue;
  /** Tool calls running now. */
  inFlight: ToolCallView[];
  /** Tool calls waiting for `approve` / `deny`. */
  pendingApprovals: ToolCallView[];
  /** MCP servers' questions (elicitations) waiting for `answer` (absent when none ever waited). */
  pendingQuestions?: ElicitationQuestion[];
  lastText: string;
  messages: number;
  /** A chat run waiting for the next message. */
  waitingForMessage: boolean;
  model: string;
  /** Compactions the job has made (src/core/compaction.ts). */
  compactions?: number;
  /** Where each compaction is in the transcript and what it did (absent before the first). */
  compactionLog?: CompactionRecord[];
  /** The size of the latest model call's prompt, in tokens (input, cached or not). */
  promptTokens?: number;
  /** The child runs of its sub-agents (absent for a run that never delegated). */
  children?: ChildRunRecord[];
  /** Batch mode: the Message Batch the current model call waits for, and when it was submitted (epoch ms). */
  waitingForBatch?: { batchId: string; submittedAt: number };
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

/** An answer to an MCP server's question (the `answerElicitation` update). */
export interface ElicitationReply {
  /** Which pending question (`<toolUseId>/<n>`); may be omitted when exactly one is pending. */
  elicitationId?: string;
  action: ElicitationAnswer['action'];
  /** For `accept`: the fields, checked against the requested schema (its defaults fill those left out). */
  content?: Record<string, unknown>;
}

/** The answer as the server gets it: its content with the defaults applied. */
export interface ElicitationAck extends Omit<ElicitationAnswer, 'key'> {
  elicitationId: string;
}

/** What a model call in flight has produced so far: the activity's heartbeat details (a small JSON object),
 * read back by `status` and `watch` from the pending activity (`describe()`), and shown by the Temporal UI on
 * the pending activity. Never part of the workflow's state; a call that finally times out leaves its last one in
 * the timeout failure. */
export interface ModelCallProgress {
  /** Output tokens so far: estimated from the streamed characters (about 4 a token) until the final count. */
  outputTokens: number;
  /** The last words of the text (or thinking) streamed so far, at most MODEL_PROGRESS_WORDS characters. */
  lastWords: string;
  /** What the model is producing now: `text`, `thinking`, `tool_use <name>`, ...; `waiting` before the first. */
  producing: string;
  /** Stream events received so far. */
  events: number;
  /** Milliseconds since the request was sent (this attempt). */
  elapsedMs: number;
}

/** One page of a transcript, as served by the `transcriptPage` query. */
export interface TranscriptPage {
  messages: MessageParam[];
  /** Index of the first message of the page. */
  from: number;
  /** Total number of messages in the transcript. */
  total: number;
}

/** What a worker offers runs on its task queue (the `agentToolCatalog` workflow's answer): what a CLI that
 * starts runs elsewhere checks `--tools` against, and what a run without `--tools` gets. */
export interface OfferedTools {
  /** Tools registered by name (built-ins, the config's, the plugin's `tools`). */
  tools: string[];
  /** MCP servers, by name. */
  mcpServers: string[];
  /** Every MCP tool, `<server>__<tool>`. */
  mcpTools: string[];
  /** Sub-agents (offered as `agent__<name>`). */
  agents: string[];
  /** The depth limit its sub-agents were checked against (`maxAgentDepth`), when it was given one: a run started
   * without its own nests as deep. */
  maxAgentDepth?: number;
}
