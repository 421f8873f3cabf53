// The activities a worker registers, built from their dependencies (the worker assembles them).
import type { Client } from '@temporalio/client';
import type { ToolRegistry } from '../tools/registry.js';
import { createCallModel, type ModelConnection } from './model.js';
import { Semaphore } from './semaphore.js';
import { createRunTool } from './tool.js';
import { TranscriptStore } from './transcript-store.js';

export type { ModelConnection } from './model.js';
export { TranscriptStore } from './transcript-store.js';

export interface ActivityDeps {
  /** Used to read transcripts from the workflow (a query) when the worker's cache misses. */
  client: Client;
  connection: ModelConnection;
  tools: ToolRegistry;
  transcripts?: TranscriptStore;
  /** At most this many model calls at once on this worker (`worker --max-model-calls N`). */
  maxModelCalls?: number;
}

export function createActivities(deps: ActivityDeps) {
  const transcripts = deps.transcripts ?? new TranscriptStore(deps.client);
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
