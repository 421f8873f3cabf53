// The floor the fleet and per-turn benchmarks compare against: the agent's shape without the agent. Each turn
// calls a "model" activity (that sleeps as long as the scripted model answers) and, but on the last turn, a no-op
// "tool" activity. Not part of the product.
import { proxyActivities } from '@temporalio/workflow';

export interface BareActivities {
  bareModel(delayMs: number): Promise<void>;
  bareTool(): Promise<void>;
}

// The same timeouts as the agent's calls: a task lost between the server and a busy worker (the server recorded it
// as started, the worker never got it; seen once in a thousand at 1,000 agents) is retried after the heartbeat
// timeout, as ours are, instead of stalling the whole fleet for the start-to-close timeout.
const { bareModel, bareTool } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 minutes', heartbeatTimeout: '10 seconds' });

export async function bareAgentWorkflow(turns: number, modelMs: number): Promise<number> {
  for (let turn = 0; turn < turns; turn++) {
    await bareModel(modelMs);
    if (turn < turns - 1) await bareTool();
  }
  return turns;
}
