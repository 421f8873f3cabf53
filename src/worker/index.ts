// `durable-agent/worker`: for a worker of your own, beyond `createAgentWorker` and `AgentPlugin` (the package's root).
// The agent's sizing (docs/operations.md, "Sizing a worker"), what a worker reads from the environment (the Temporal
// server, the Messages API, the encryption keys), and the types of what a worker holds.
//
//   import { NativeConnection, Worker } from '@temporalio/worker';
//   import { AgentPlugin } from 'durable-agent';
//   import { agentWorkerSizing, resolveTemporalTarget, workerDataConverter } from 'durable-agent/worker';
//   const { connectionOptions } = resolveTemporalTarget();
//   const worker = await Worker.create({
//     ...agentWorkerSizing({ maxActivities: 50 }),
//     connection: await NativeConnection.connect(connectionOptions),
//     taskQueue: 'orders',
//     dataConverter: workerDataConverter(),
//     plugins: [new AgentPlugin({ tools: [weather] })],
//   });
export { agentWorkerSizing, type Pollers, type SizingWorkerOptions, type WorkerSizing } from './worker-sizing.js';
export { AGENT_WORKER_SIZING } from '../core/policies.js';
export { modelConnectionFromEnv } from './model-connection.js';
export { encryptionKeyQueues, workerDataConverter } from './key-queues.js';
export { resolveTemporalTarget, type TemporalTarget } from '../client/connection.js';
export type { ModelConnection } from '../activities/model.js';
export type { WorkerDeployment, Versioning } from '../core/versioning.js';
export type { ToolRegistry } from '../tools/registry.js';
export type { TranscriptStore, TranscriptStoreStats } from '../activities/transcript-store.js';
export type { RecordedToolsStore } from '../activities/recorded-tools.js';
export type { ModelSettingsStore } from '../activities/model-settings.js';
export type { BatcherStats, ModelBatcher } from '../activities/batcher.js';
export type { ModelBatchOptions } from '../core/batch.js';
export type { McpTools } from '../mcp/tools.js';
