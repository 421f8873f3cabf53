// Temporal's schedule overlap policies, here rather than in client/schedules.ts so that the CLI can list them in its
// flags without loading @temporalio/client at start-up.

/** What a firing does while the schedule's previous run is still running. */
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
