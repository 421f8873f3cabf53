// The run's model-call settings (model, system prompt, tool names, output schema, ...) reach the model
// activity by digest, not in each call's input: they are in history once, in the workflow input. Just before a
// model call the workflow hands them to the worker's cache through the transcript sink (no command, no event); a
// model call that misses there reads them with the `modelSettings` query: a long system prompt is stored once.
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import { digestSettings, modelCallSettings, type DigestedSettings } from '../core/model-settings.js';
import type { AgentSettings, RunState, ModelCallByDigest, TranscriptRef } from '../core/types.js';
import type { AgentSinks } from '../core/transcript-sink.js';

const { agentTranscript } = proxySinks<AgentSinks>();

export class ModelSettingsSharing {
  /** Every digest this run has named, so a retried call of an earlier one still finds its settings. */
  readonly #named = new Map<string, DigestedSettings>();
  /** Digests this workflow instance has handed to the worker's cache. */
  readonly #shared = new Set<string>();

  /** The settings and the transcript reference of a model call's input: the digest and the message count (after
   * handing the settings to the worker's cache). */
  forCall(settings: AgentSettings, state: RunState, transcript: TranscriptRef): Pick<ModelCallByDigest, 'settings' | 'transcript'> {
    const named = this.#digested(settings, state);
    this.#named.set(named.digest, named);
    // Not while replaying (the sink call would be dropped): the first live call after a replay shares again.
    if (!workflowInfo().unsafe.isReplaying && !this.#shared.has(named.digest)) {
      agentTranscript.settings(named.digest, named.settings);
      this.#shared.add(named.digest);
    }
    return { transcript: { messageCount: transcript.messageCount }, settings: named.digest };
  }

  /** The last settings digested, and what they were made of: the digest hashes the settings' JSON (the system
   * prompt included), so it is computed again only when they change (a refused feature, a client-side summary),
   * not at every model call. */
  #last: { settings: AgentSettings; refused: string; clientSummary: RunState['clientSummary']; named: DigestedSettings } | null = null;

  #digested(settings: AgentSettings, state: RunState): DigestedSettings {
    const refused = state.refused?.join(',') ?? '';
    const last = this.#last;
    if (last && last.settings === settings && last.refused === refused && last.clientSummary === state.clientSummary) return last.named;
    const named = digestSettings(modelCallSettings(settings, state));
    this.#last = { settings, refused, clientSummary: state.clientSummary, named };
    return named;
  }

  /** The `modelSettings` query. */
  lookup(digest: string): DigestedSettings | null {
    return this.#named.get(digest) ?? null;
  }
}
