import type { Context } from '@temporalio/activity';
import { HEARTBEAT_INTERVAL_MS } from '../core/policies.js';

/** A third of the heartbeat timeout (at most HEARTBEAT_INTERVAL_MS), so two beats can be lost in a row
 * before the server gives up on this worker. */
export function heartbeatInterval(ctx: Context): number {
  const timeout = ctx.info.heartbeatTimeoutMs;
  return timeout ? Math.max(100, Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(timeout / 3))) : HEARTBEAT_INTERVAL_MS;
}
