// How a running activity tells the server its worker is alive (and hears of a cancellation).
import type { Context } from '@temporalio/activity';
import { HEARTBEAT_INTERVAL_MS } from '../core/policies.js';

/** Heartbeats every `heartbeatInterval(ctx)` until the returned function is called; each beat carries what
 * `details` returns then (the model call's progress), if anything. */
export function startHeartbeat(ctx: Context, details?: () => unknown): () => void {
  const beat = setInterval(() => ctx.heartbeat(details?.()), heartbeatInterval(ctx));
  return () => clearInterval(beat);
}

/** A third of the heartbeat timeout (at most HEARTBEAT_INTERVAL_MS), so two beats can be lost in a row
 * before the server gives up on this worker. */
export function heartbeatInterval(ctx: Context): number {
  const timeout = ctx.info.heartbeatTimeoutMs;
  return timeout ? Math.max(100, Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(timeout / 3))) : HEARTBEAT_INTERVAL_MS;
}
