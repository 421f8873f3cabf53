// Worker Versioning: the worker as a version (deployment name + build id) of a Worker Deployment, and how runs
// move between versions. Pure: the worker options come from here, the checks too (library and CLI share them).
import type { WorkerOptions } from '@temporalio/worker';

/** How the agent runs of a versioned worker move between versions: `pinned` (the default) finishes a run on the
 * version it started on and moves it to the current version at its next continue-as-new; `auto-upgrade` moves it
 * at its next workflow task after a new version becomes current (its code must then replay the old one's history:
 * `patched()`). */
export const VERSIONING_BEHAVIORS = ['pinned', 'auto-upgrade'] as const;
export type Versioning = (typeof VERSIONING_BEHAVIORS)[number];

export interface WorkerDeployment {
  /** The Worker Deployment (one per service: its versions are the releases). */
  name: string;
  /** This worker's version of it (a release id, a git sha). */
  buildId: string;
  /** Default `pinned`. */
  versioning?: Versioning;
}

/** What is wrong with `d`, naming the fix, or null. */
export function deploymentProblem(d: WorkerDeployment): string | null {
  for (const [field, value] of [['deployment name', d.name], ['build id', d.buildId]] as const) {
    if (typeof value !== 'string' || value.trim() === '') return `the ${field} is empty: give one (e.g. --deployment agents --build-id v2)`;
    if (/\s/.test(value)) return `the ${field} ${JSON.stringify(value)} has whitespace: use letters, digits, '-', '_' or '.'`;
    if (value.length > 255) return `the ${field} is ${value.length} characters long: at most 255`;
  }
  if (d.versioning !== undefined && !VERSIONING_BEHAVIORS.includes(d.versioning)) {
    return `versioning ${JSON.stringify(d.versioning)} is not one of ${VERSIONING_BEHAVIORS.join(', ')}`;
  }
  return null;
}

/** The `workerDeploymentOptions` of Worker.create (the same for the run's worker and its
 * key-queue workers: every queue of a version is polled by that version). */
export function workerDeploymentOptions(d: WorkerDeployment): NonNullable<WorkerOptions['workerDeploymentOptions']> {
  const problem = deploymentProblem(d);
  if (problem) throw new Error(`worker deployment: ${problem}`);
  return {
    useWorkerVersioning: true,
    version: { deploymentName: d.name, buildId: d.buildId },
    defaultVersioningBehavior: d.versioning === 'auto-upgrade' ? 'AUTO_UPGRADE' : 'PINNED',
  };
}

/** Whether a run should continue as new before its next model call: the server suggests it (history size or
 * length), the configured number of model calls is reached, or (servers that say so, Temporal 1.30+) a new
 * version of its deployment has become its target. Never before the run's first model call (no loop of empty
 * runs). */
export function continueAsNewDue(o: {
  suggested: boolean;
  targetVersionChanged: boolean;
  stepsThisRun: number;
  every: number | undefined;
}): boolean {
  if (o.stepsThisRun === 0) return false;
  return o.suggested || o.targetVersionChanged || (o.every !== undefined && o.stepsThisRun >= o.every);
}
