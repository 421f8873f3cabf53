// An AgentResult, built in one place from what is known at the end of a run: by the workflow from its live state
// (AgentRun.end), and by the client from a history the server closed (a terminated or timed-out run). Pure.
import { roundUsd } from './pricing.js';
import type { AgentResult } from './types.js';

export type ResultFields = Omit<AgentResult, 'partial' | 'runsUsed'> & {
  /** Runs the job used (recorded only when more than one). */
  runsUsed: number;
};

/** The result: `partial` unless the run completed, and the optional fields only where they say something. */
export function agentResult(f: ResultFields): AgentResult {
  return {
    workflowId: f.workflowId,
    runId: f.runId,
    status: f.status,
    stopReason: f.stopReason,
    guard: f.guard,
    text: f.text,
    partial: f.status !== 'completed',
    ...(f.output !== undefined ? { output: f.output } : {}),
    steps: f.steps,
    toolCalls: f.toolCalls,
    usage: f.usage,
    costUsd: roundUsd(f.costUsd),
    error: f.error,
    ...(f.runsUsed > 1 ? { runsUsed: f.runsUsed } : {}),
    ...(f.resumedFrom ? { resumedFrom: f.resumedFrom } : {}),
    ...(f.forkedFrom ? { forkedFrom: f.forkedFrom } : {}),
  };
}
