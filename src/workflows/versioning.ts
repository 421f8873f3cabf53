// Worker Versioning inside the workflow: a pinned run moves to its deployment's current version when it continues
// as new (see src/core/versioning.ts and docs/operations.md, "Upgrading workers").
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
// The SDK reports each workflow task's versioning behavior from its activator, which has no public setter: see
// upgradeOnContinueAsNew and sdk-internals.cjs.
import { reportAutoUpgrade } from './sdk-internals.cjs';

const { workerUsesVersioning } = proxyLocalActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '10s' });

/** The options of this run's continue-as-new that move the next run to the current version. Two ways, for two
 * server generations:
 * - Temporal Server 1.30+ (upgrade-on-continue-as-new): `initialVersioningBehavior: 'AUTO_UPGRADE'` on the
 *   command starts the next run on the current version.
 * - Temporal Server 1.29 (our dev server, Temporal CLI 1.5.1) has no such field and drops it: there a pinned run's
 *   continue-as-new inherits its pinned version, unless the run is AUTO_UPGRADE when it continues. So the workflow
 *   task that continues as new reports AUTO_UPGRADE (the server applies a task's behavior before its commands),
 *   and the next run starts unpinned: its first task goes to the current version, which pins it. */
export async function upgradeOnContinueAsNew(): Promise<{ initialVersioningBehavior?: 'AUTO_UPGRADE' }> {
  if (!workflowInfo().currentDeploymentVersion) return {};
  // A worker may name a version without polling as one (`useWorkerVersioning: false`): the server would refuse a
  // behavior from it (the task would fail for ever). Its info cannot tell; the worker can (a local activity, once
  // per continue-as-new).
  if (!(await workerUsesVersioning())) return {};
  reportAutoUpgrade();
  return { initialVersioningBehavior: 'AUTO_UPGRADE' };
}
