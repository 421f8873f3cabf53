// The harness guards: pure functions over the loop state, so they are unit-tested without a server and
// the workflow only asks "may the loop go on?". The model decides when it is done; these decide when it is not.
import type { AgentSettings, GuardName, Usage } from './types.js';

/** What the guards look at. Plain JSON, so it can be carried through continue-as-new as it is. */
export interface LoopState {
  /** Model calls made so far. */
  steps: number;
  /** Tool executions so far, including those that returned is_error. */
  toolCalls: number;
  usage: Usage;
}

export interface GuardTripped {
  guard: GuardName;
  /** Why the run stopped, in words a user can act on. */
  reason: string;
}

/** Checked before every model call. Returns the first guard that forbids the call, or null. */
export function guardBeforeModelCall(state: LoopState, settings: AgentSettings): GuardTripped | null {
  if (state.steps >= settings.maxSteps) {
    return {
      guard: 'max_steps',
      reason: `step cap reached: ${state.steps} model calls (--max-steps ${settings.maxSteps})`,
    };
  }
  // Budget, deadline, repetition and error-streak guards go here (guards issue).
  return null;
}
