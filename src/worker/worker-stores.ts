// The model activity's worker-side caches, wired to a client: the transcript store (queries as its fallback, the
// sticky queue released when it must read), and the sink the workflow fills them through.
import type { Client } from '@temporalio/client';
import type { InjectedSinks } from '@temporalio/worker';
import { TranscriptStore, type ModelSettingsStore } from '../activities/index.js';
import type { AgentSinks } from '../core/transcript-sink.js';
import { transcriptPage } from '../workflows/definitions.js';

export function transcriptStore(client: Client): TranscriptStore {
  return new TranscriptStore(
    (ref, from, to) => client.workflow.getHandle(ref.workflowId, ref.runId).query(transcriptPage, from, to),
    {
      releaseStickiness: (ref) =>
        client.workflowService.resetStickyTaskQueue({
          namespace: client.options.namespace,
          execution: { workflowId: ref.workflowId, runId: ref.runId },
        }),
    },
  );
}

/** The sink the agent workflow shares its transcript through (src/core/transcript-sink.ts), into `store`. */
export function transcriptSinks(store: TranscriptStore, settings: ModelSettingsStore): InjectedSinks<AgentSinks> {
  return {
    agentTranscript: {
      share: { fn: (info, from, messages) => store.share(info, from, messages) },
      settings: { fn: (_info, digest, named) => settings.remember(digest, named) },
      forget: { fn: (info) => store.forget(info) },
    },
  };
}
