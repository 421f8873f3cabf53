// Worker Deployments in tests: making a version current (as `temporal worker deployment set-current-version`
// does) and reading which version ran what.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { vi } from 'vitest';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Makes `buildId` the current version of `deploymentName`, once its workers have polled every queue of it
 * (the server refuses a version it has not seen yet; it learns of one from its first polls). */
export async function setCurrentVersion(client: Client, deploymentName: string, buildId: string): Promise<void> {
  await vi.waitFor(
    () =>
      client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName,
        buildId,
        identity: 'test',
      }),
    { timeout: 20_000, interval: 200 },
  );
}

/** The version (build id) a run is on, as the server says (describe: its versioning info). */
export async function runBuildId(client: Client, workflowId: string, runId?: string): Promise<string | undefined> {
  const d = await client.workflow.getHandle(workflowId, runId).describe();
  return d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

/** The build ids of the workers that completed a run's workflow tasks, in order. */
export function workflowTaskBuildIds(events: HistoryEvent[]): string[] {
  return events.flatMap((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? []);
}

/** The identities of the workers that started a run's activities, by activity type. */
export function activityWorkers(events: HistoryEvent[]): Array<{ type: string; identity: string }> {
  const scheduled = new Map<string, string>();
  const out: Array<{ type: string; identity: string }> = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
    const st = e.activityTaskStartedEventAttributes;
    if (st) out.push({ type: scheduled.get(String(st.scheduledEventId)) ?? '', identity: st.identity ?? '' });
  }
  return out;
}
