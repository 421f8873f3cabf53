// Message definitions shared by the workflow, the activities, the client and the CLI.
// The wire name is the TypeScript name.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RunState } from '../core/durable-state.js';
import type { DigestedSettings } from '../core/model-settings.js';
import type {
  AgentStatusView,
  ApprovalAck,
  ApprovalDecision,
  ElicitationAck,
  ElicitationReply,
  RecordedTools,
  SubAgentReport,
  TranscriptPage,
} from '../core/types.js';

/** The workflow type name of `agentWorkflow`, which the client starts runs of and lists runs by. */
export const AGENT_WORKFLOW = 'agentWorkflow';

/** The ApplicationFailure type of a run that failed: its details carry the AgentResult (partial answer and all). */
export const AGENT_RUN_FAILED = 'AgentRunFailed';

/** The workflow a worker answers "what tools do you offer?" with (src/workflows/tool-catalog.ts). */
export const AGENT_TOOL_CATALOG_WORKFLOW = 'agentToolCatalog';

/** Messages [from, to) of the transcript, at most about TRANSCRIPT_PAGE_BYTES of them per page. The model
 * activity reads the transcript through this query when its cache misses; queries are not recorded in
 * history, so the transcript is stored there once. */
export const transcriptPage = defineQuery<TranscriptPage, [from: number, to: number]>('transcriptPage');

/** The live state of the run: status, spend, tools in flight, pending approvals. */
export const agentStatus = defineQuery<AgentStatusView>('agentStatus');

/** A human decision on a tool call that needs approval. The validator rejects unknown or decided calls. */
export const decideToolCall = defineUpdate<ApprovalAck, [ApprovalDecision]>('decideToolCall');

/** An answer to an MCP server's question (elicitation). The validator rejects unknown questions and answers that do
 * not match the requested schema. */
export const answerElicitation = defineUpdate<ElicitationAck, [ElicitationReply]>('answerElicitation');

/** A follow-up user message for a running run, or for a chat run waiting for its next message. */
export const sendMessage = defineUpdate<{ queued: number }, [text: string]>('sendMessage');

/** Ends a chat run once it is waiting for a message. */
export const closeChat = defineSignal('closeChat');

/** The run's guard state, without the messages (read those with `transcriptPage`): what `resume` carries
 * into a new run. */
export const runState = defineQuery<Omit<RunState, 'messages'>>('runState');

/** The MCP tool definitions the run recorded when it started (null when it uses none). The model activity
 * reads them through this query when its cache misses, so they are stored in history once. */
export const toolDefinitions = defineQuery<RecordedTools | null>('toolDefinitions');

/** The model-call settings the run names by `digest` (null when it has none of that digest). The model activity
 * reads them through this query when its cache misses, so they are stored in history once. */
export const modelSettings = defineQuery<DigestedSettings | null, [digest: string]>('modelSettings');

/** A sub-agent's progress, signalled by the child run to its parent after each of its model calls: its totals so
 * far, which the parent adds to its own (and to its budget guard) as they come. */
export const subAgentReport = defineSignal<[SubAgentReport]>('subAgentReport');
