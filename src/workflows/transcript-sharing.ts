// The workflow's side of the transcript sink (src/core/transcript-sink.ts): the messages the worker's model
// activity has not had yet go to its cache just before each model call, so a model call on this worker needs no
// query. A sink call is no command and is recorded nowhere.
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { AgentSinks } from '../core/transcript-sink.js';
import type { MessageParam } from '../core/types.js';

const { agentTranscript } = proxySinks<AgentSinks>();

export class TranscriptSharing {
  /** How many messages this workflow instance has shared. */
  #shared = 0;

  /** Shares what is new in `messages`. Not while replaying: the sink call of a replayed turn would be dropped, so
   * the first live call after a replay (a cache eviction, another worker) shares the whole transcript. */
  share(messages: readonly MessageParam[]): void {
    if (workflowInfo().unsafe.isReplaying || this.#shared >= messages.length) return;
    agentTranscript.share(this.#shared, messages.slice(this.#shared));
    this.#shared = messages.length;
  }

  /** The run is over in this workflow instance: the worker's cache can drop its messages. */
  forget(): void {
    if (this.#shared > 0 && !workflowInfo().unsafe.isReplaying) agentTranscript.forget();
  }
}
