// The floor of a turn made of local activities (BENCHMARKS.md (a), "local model calls"): a bare workflow whose turn is
// two no-op local activities, beside the same loop with two no-op activities. Not part of the product.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

interface NoOps {
  model(): Promise<void>;
  tool(): Promise<void>;
}

const local = proxyLocalActivities<NoOps>({ startToCloseTimeout: '1 minute' });
const remote = proxyActivities<NoOps>({ startToCloseTimeout: '1 minute' });

export async function localLoop(turns: number): Promise<number> {
  for (let i = 0; i < turns; i++) {
    await local.model();
    await local.tool();
  }
  return turns;
}

export async function remoteLoop(turns: number): Promise<number> {
  for (let i = 0; i < turns; i++) {
    await remote.model();
    await remote.tool();
  }
  return turns;
}
