// How the workflow hands its transcript to the model activity of the same worker process without a query:
// a Temporal sink (a call out of the workflow sandbox into the worker, never recorded in history). The agent
// workflow shares the messages the model activity has not yet been given just before each model call, and
// says when the run is over; the worker keeps them in the model activity's transcript cache
// (src/activities/transcript-store.ts). A model call that finds nothing there (another process, a restart)
// still reads the transcript with the paged query.
import type { InjectedSinks } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import type { ModelCallSettings } from './model-settings.js';
import type { MessageParam } from './types.js';

export interface AgentSinks extends Sinks {
  agentTranscript: {
    /** Messages [from, from + messages.length) of the calling run's transcript. */
    share(from: number, messages: MessageParam[]): void;
    /** The run's model-call settings, named by their digest (src/core/model-settings.ts). */
    settings(digest: string, settings: ModelCallSettings): void;
    /** The run has ended (completed, stopped, failed, cancelled, continued as new): its messages can go. */
    forget(): void;
  };
}

/** For replaying workers (the CLI's history reader, a team's replayer): the sink exists but does nothing. The
 * workflow shares nothing while replaying; this only keeps a non-replay activation at the end of a replay from
 * being logged as a call to an unregistered sink. */
export const ignoredTranscriptSinks: InjectedSinks<AgentSinks> = {
  agentTranscript: { share: { fn: () => undefined }, settings: { fn: () => undefined }, forget: { fn: () => undefined } },
};
