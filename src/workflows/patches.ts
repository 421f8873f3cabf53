// Which changes of the workflow code a run takes (`patched()`), recorded once per run rather than once per change.
// Every patch marker costs a run two history events, and a visibility write on the server: Temporal's core
// upserts the TemporalChangeVersion search attribute with each marker, and no SDK option turns that off. A plain
// run reached five patch ids, so it wrote five markers and five upserts that a bare workflow does not.
import { patched } from '@temporalio/workflow';

/** Patch id: every change whose patch id was in the workflow code on 2026-12-04 (the ids `takesPatch` is asked
 * for), and the changes below that came with it. A run started since records this one marker; a run recorded
 * before it has none, and asks for each id on its own, as it did when it ran.
 *
 * The changes it brings (no other id gates them):
 * - a run whose tools name no MCP tool asks for its tools' call policies in a local activity (tool-definitions.ts);
 * - a run started with its search attributes (startAgent sets them) does not upsert the same values again
 *   (search-attribute-upserts.ts). */
export const CHANGES_OF_2026_12 = 'changes-of-2026-12';

/** The patch ids CHANGES_OF_2026_12 stands for: the only ids `takesPatch` may be asked for (its parameter's type
 * holds the workflow code to it; test/durability/replay.test.ts checks that the fixtures recorded before hold no
 * other). */
export const PATCH_IDS_OF_2026_12 = [
  'refuse-invalid-settings',
  'carry-task-once',
  'wait-for-deadline-cancelled-calls',
  'refused-feature-fallback',
  'fast-tools-local',
  'wait-for-cancelled-calls',
  'model-calls-on-own-queue',
  'task-priority',
  'tool-call-policies',
  'sub-agents',
  'mcp-tool-definitions',
  'upgrade-on-continue-as-new',
  'mcp-elicitation',
  'model-calls-eager',
  'model-settings-by-digest',
  'webhooks',
  'throttled-progress-search-attributes',
  'trace-runs',
] as const;

/** Whether this run takes the change `patchId` names: every run that records CHANGES_OF_2026_12 does; a run
 * recorded before it, as `patched(patchId)` says. Ask in the same places, in the same order, as `patched()` was,
 * so the runs recorded before replay their markers where they recorded them. A patch id added later is asked
 * with `patched()` itself, until the next id like this one takes it in. */
export function takesPatch(patchId: (typeof PATCH_IDS_OF_2026_12)[number]): boolean {
  return patched(CHANGES_OF_2026_12) || patched(patchId);
}

/** Whether this run takes the changes that came with CHANGES_OF_2026_12 (see there). */
export function takesChangesOf202612(): boolean {
  return patched(CHANGES_OF_2026_12);
}
