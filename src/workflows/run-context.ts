// What the loop's helpers (compaction, sub-agents, tool definitions) need of a run: its input, settings and state,
// publishing its live view, and a model call. AgentRun (run.ts) is one; the helpers take this narrow view so that
// they and the run do not import each other.
import type { AgentInput, AgentSettings, ModelReply, RunState } from '../core/types.js';

export interface ModelCallRequest {
  /** `tool_choice: none` (the guards' final summary call). */
  toolChoiceNone?: boolean;
  summary?: string;
  /** A request-side instruction appended as the last user text of this call only (not to the transcript). */
  instruction?: string;
}

export interface RunContext {
  readonly input: AgentInput;
  readonly settings: AgentSettings;
  readonly state: RunState;
  readonly workflowId: string;
  /** Publishes the run's live view (current details, search attributes) after a change of state. */
  publish(): void;
  /** One model call over the run's transcript, recorded in its state. */
  callModel(options?: ModelCallRequest): Promise<ModelReply>;
}
