// The activities a worker registers, built from their dependencies (the worker assembles them).
import type { ToolRegistry } from '../tools/registry.js';
import { createCallModel, type ModelConnection } from './model.js';
import { Semaphore } from './semaphore.js';
import { createRunTool } from './tool.js';
import type { TranscriptStore } from './transcript-store.js';

export type { ModelConnection } from './model.js';
export { TranscriptStore, type ReadTranscriptPage } from './transcript-store.js';

export interface ActivityDeps {
  /** Where model calls read their messages: the worker's cache, else a query to the workflow. */
  transcripts: TranscriptStore;
  connection: ModelConnection;
  tools: ToolRegistry;
  /** At most this many model calls at once on this worker (`worker --max-model-calls N`). */
  maxModelCalls?: number;
}

export function createActivities(deps: ActivityDeps) {
  const { transcripts } = deps;
  return {
    callModel: createCallModel({
      connection: deps.connection,
      tools: deps.tools,
      transcripts,
      limiter: deps.maxModelCalls ? new Semaphore(deps.maxModelCalls) : undefined,
    }),
    runTool: createRunTool({ tools: deps.tools }),
  };
}
