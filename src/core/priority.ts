// Task priority and fairness (Temporal's `Priority`: priorityKey, fairnessKey, fairnessWeight) of a run, its
// activities and its sub-agents. Pure: checks shared by the library, the CLI and `serve`.

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

/** What is wrong with `p` (one line, naming the field and the fix), or null. */
export function priorityProblem(p: RunPriority): string | null {
  const { priorityKey, fairnessKey, fairnessWeight } = p;
  if (priorityKey !== undefined && !(Number.isInteger(priorityKey) && priorityKey >= PRIORITY_MIN && priorityKey <= PRIORITY_MAX)) {
    return `priority ${JSON.stringify(priorityKey)} is not a whole number from ${PRIORITY_MIN} (first) to ${PRIORITY_MAX} (last)`;
  }
  if (fairnessKey !== undefined) {
    if (typeof fairnessKey !== 'string' || fairnessKey.trim() === '') return 'the fairness key is empty: give a tenant id, or leave it out';
    const bytes = new TextEncoder().encode(fairnessKey).length;
    if (bytes > FAIRNESS_KEY_MAX_BYTES) return `the fairness key is ${bytes} bytes long: at most ${FAIRNESS_KEY_MAX_BYTES}`;
  }
  if (fairnessWeight !== undefined && !(typeof fairnessWeight === 'number' && Number.isFinite(fairnessWeight) && fairnessWeight >= 0.001 && fairnessWeight <= 1000)) {
    return `fairness weight ${JSON.stringify(fairnessWeight)} is not a number from 0.001 to 1000`;
  }
  if (fairnessWeight !== undefined && fairnessKey === undefined) return 'a fairness weight needs a fairness key (the key it weighs)';
  return null;
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
