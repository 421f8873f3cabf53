// Task priority and fairness (Temporal's `Priority`: priorityKey, fairnessKey, fairnessWeight) of a run, its
// activities and its sub-agents. Pure. Checked with the run's settings (src/core/run-settings.ts, START_OPTIONS).

/** Priorities run from 1 (first) to 5 (last); a run without one is 3, Temporal's default with 5 levels. */
export const PRIORITY_MIN = 1;
export const PRIORITY_MAX = 5;
/** Temporal's limit on a fairness key. */
export const FAIRNESS_KEY_MAX_BYTES = 64;

export interface RunPriority {
  /** 1..5, lower first. */
  priorityKey?: number;
  /** A tenant (or any group) whose tasks share a fair part of the queue with other keys'. */
  fairnessKey?: string;
  /** The key's share relative to others (default 1; Temporal clamps to 0.001..1000). */
  fairnessWeight?: number;
}

/** `p` without its unset fields, or undefined when none is set (a start without a priority). */
export function compactPriority(p: RunPriority | undefined): RunPriority | undefined {
  if (!p) return undefined;
  const out: RunPriority = {};
  if (p.priorityKey !== undefined) out.priorityKey = p.priorityKey;
  if (p.fairnessKey !== undefined) out.fairnessKey = p.fairnessKey;
  if (p.fairnessWeight !== undefined) out.fairnessWeight = p.fairnessWeight;
  return Object.keys(out).length > 0 ? out : undefined;
}
