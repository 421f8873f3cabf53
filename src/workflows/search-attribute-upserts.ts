// When a run writes its search attributes. Each upsert is a history event and a visibility write on the server,
// so only a change is written, and progress alone (steps, tokens, cost, the last stop reason) at most every
// SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS of workflow time; a change of status, guard or model at once.
import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS } from '../core/policies.js';
import { isProgressAttribute, searchAttributesOf } from '../core/search-attributes.js';
import type { AgentStatusView } from '../core/types.js';

/** Patch id: progress-only search attribute changes are upserted at most every
 * SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS. Runs recorded before it upserted on every change, and replay so. */
export const THROTTLED_PROGRESS_ATTRIBUTES = 'throttled-progress-search-attributes';

export class SearchAttributeUpserts {
  #written = '';
  #writtenState = '';
  #writtenAt = 0;

  /** Upserts the attributes of `view` if they are due. */
  write(view: AgentStatusView): void {
    const pairs = searchAttributesOf(view);
    const all = JSON.stringify(pairs.map((p) => p.value));
    if (all === this.#written) return;
    const state = JSON.stringify(pairs.filter((p) => !isProgressAttribute(p.key)).map((p) => p.value));
    const now = Date.now();
    const progressOnly = state === this.#writtenState;
    if (progressOnly && now - this.#writtenAt < SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS && patched(THROTTLED_PROGRESS_ATTRIBUTES)) return;
    this.#written = all;
    this.#writtenState = state;
    this.#writtenAt = now;
    upsertSearchAttributes(pairs);
  }
}
