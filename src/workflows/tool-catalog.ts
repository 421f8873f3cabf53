// agentToolCatalog: a short workflow that asks one worker of its task queue what tools it offers. A CLI that
// starts runs for workers elsewhere (`start`) cannot see tools configured in a worker's code (AgentPlugin({
// mcpServers })); this is how it learns them, through Temporal, before it starts a run.
import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { OfferedTools } from '../core/types.js';

const { offeredTools } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

export async function agentToolCatalog(): Promise<OfferedTools> {
  return offeredTools();
}
