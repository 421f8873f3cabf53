// When a run writes its search attributes. Each upsert is a history event and a visibility write on the server,
// so only a change is written, and progress alone (steps, tokens, cost, the last stop reason) at most every
// SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS of workflow time; a change of status, guard or model at once.
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS } from '../core/policies.js';
import { agentSearchAttributeValues, attributePairs, PROGRESS_VALUE, searchAttributeValues } from '../core/search-attributes.js';
import type { AgentStatusView } from '../core/types.js';

export class SearchAttributeUpserts {
  /** The values last written (AGENT_SEARCH_ATTRIBUTES order), compared value by value: this runs on every change
   * of the live view, and most of them change no attribute. */
  #written: readonly (string | number)[] | null = null;
  #writtenAt = 0;

  /** Upserts the attributes of `view` if they are due. */
  write(view: AgentStatusView): void {
    const values = searchAttributeValues(view);
    if (this.#written === null) this.#startedWith();
    const written = this.#written;
    let progressOnly = written !== null;
    let changed = written === null;
    for (let i = 0; written && i < values.length; i++) {
      if (values[i] === written[i]) continue;
      changed = true;
      if (!PROGRESS_VALUE[i]) progressOnly = false;
    }
    if (!changed) return;
    const now = Date.now();
    if (progressOnly && now - this.#writtenAt < SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS) return;
    this.#written = values;
    this.#writtenAt = now;
    upsertSearchAttributes(attributePairs(values));
  }

  /** A run started with all of its attributes (startAgent sets them; continue-as-new carries them on) counts them as
   * written then, and upserts only what differs. */
  #startedWith(): void {
    const started = agentSearchAttributeValues(workflowInfo().typedSearchAttributes);
    if (!started) return;
    this.#written = started;
    this.#writtenAt = Date.now();
  }
}
