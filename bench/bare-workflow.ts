// The floor the fleet and per-turn benchmarks compare against: the agent's shape without the agent. Each turn
// calls a "model" activity (that sleeps as long as the scripted model answers) and, but on the last turn, a no-op
// "tool" activity. Not part of the product.
import { proxyActivities } from '@temporalio/workflow';

export interface BareActivities {
  bareModel(delayMs: number): Promise<void>;
  bareTool(): Promise<void>;
}

const { bareModel, bareTool } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 minutes' });

export async function bareAgentWorkflow(turns: number, modelMs: number): Promise<number> {
  for (let turn = 0; turn < turns; turn++) {
    await bareModel(modelMs);
    if (turn < turns - 1) await bareTool();
  }
  return turns;
}
