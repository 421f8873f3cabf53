// A tool's call policy (`timeout`, `heartbeatTimeout`, `retry`, `completesLater`, `fast` on its definition) checked and
// turned into the durable ToolCallPolicy the workflow schedules its calls with. Checked when the worker or the
// CLI loads the tool, so a bad value is one startup error naming the tool and the field, never a call that fails.
import { parseDuration } from '../core/duration.js';
import type { ToolCallPolicy } from '../core/types.js';
import type { Duration, ToolCallPolicyOptions } from './types.js';

/** The policy `options` sets, or undefined when it sets none; throws `Tool "x": <field> ...` for a bad value. */
export function toolCallPolicy(name: string, options: ToolCallPolicyOptions): ToolCallPolicy | undefined {
  const where = (field: string) => `Tool "${name}": ${field}`;
  const policy: ToolCallPolicy = {};
  if (options.timeout !== undefined) policy.timeoutMs = durationMs(options.timeout, where('timeout'));
  if (options.heartbeatTimeout !== undefined) policy.heartbeatTimeoutMs = durationMs(options.heartbeatTimeout, where('heartbeatTimeout'), 1_000);
  if (options.retry !== undefined) {
    const r = options.retry;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      throw new Error(`${where('retry')} must be an object { maximumAttempts, initialInterval, backoffCoefficient, maximumInterval }`);
    }
    const known = ['maximumAttempts', 'initialInterval', 'backoffCoefficient', 'maximumInterval'];
    const unknown = Object.keys(r).filter((k) => !known.includes(k));
    if (unknown.length > 0) throw new Error(`${where('retry')} has unknown field ${unknown.join(', ')} (expected ${known.join(', ')})`);
    const retry: NonNullable<ToolCallPolicy['retry']> = {};
    if (r.maximumAttempts !== undefined) {
      if (!Number.isInteger(r.maximumAttempts) || r.maximumAttempts < 1) {
        throw new Error(`${where('retry.maximumAttempts')} must be a whole number of at least 1 (got ${JSON.stringify(r.maximumAttempts)})`);
      }
      retry.maximumAttempts = r.maximumAttempts;
    }
    if (r.initialInterval !== undefined) retry.initialIntervalMs = durationMs(r.initialInterval, where('retry.initialInterval'));
    if (r.maximumInterval !== undefined) retry.maximumIntervalMs = durationMs(r.maximumInterval, where('retry.maximumInterval'));
    if (r.backoffCoefficient !== undefined) {
      if (typeof r.backoffCoefficient !== 'number' || !(r.backoffCoefficient >= 1)) {
        throw new Error(`${where('retry.backoffCoefficient')} must be a number of at least 1 (got ${JSON.stringify(r.backoffCoefficient)})`);
      }
      retry.backoffCoefficient = r.backoffCoefficient;
    }
    if (retry.initialIntervalMs !== undefined && retry.maximumIntervalMs !== undefined && retry.maximumIntervalMs < retry.initialIntervalMs) {
      throw new Error(`${where('retry.maximumInterval')} must not be shorter than retry.initialInterval`);
    }
    if (Object.keys(retry).length > 0) policy.retry = retry;
  }
  if (options.completesLater !== undefined) {
    if (typeof options.completesLater !== 'boolean') throw new Error(`${where('completesLater')} must be true or false`);
    if (options.completesLater) policy.completesLater = true;
  }
  if (policy.completesLater && policy.heartbeatTimeoutMs !== undefined) {
    throw new Error(`${where('heartbeatTimeout')} cannot be set with completesLater: a call waiting for its completion from outside does not heartbeat`);
  }
  if (options.fast !== undefined) {
    if (typeof options.fast !== 'boolean') throw new Error(`${where('fast')} must be true or false`);
    if (options.fast) policy.fast = true;
  }
  if (policy.fast && policy.completesLater) {
    throw new Error(`${where('fast')} cannot be set with completesLater: a local call cannot wait for a completion from outside`);
  }
  if (policy.fast && policy.heartbeatTimeoutMs !== undefined) {
    throw new Error(`${where('heartbeatTimeout')} cannot be set with fast: a local call does not heartbeat`);
  }
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** A positive duration in ms from a number of ms or a string like '2h'. */
export function durationMs(value: Duration, where: string, minMs = 1): number {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    try {
      ms = parseDuration(value);
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).message}`);
    }
  } else throw new Error(`${where} must be a duration such as '90s', '10m', '2h', or milliseconds (got ${JSON.stringify(value)})`);
  if (!Number.isFinite(ms) || ms < minMs) {
    throw new Error(`${where} must be at least ${minMs} ms (got ${JSON.stringify(value)})`);
  }
  // Temporal's durations are protobuf Durations; far beyond any real call, but refused rather than overflowed.
  if (ms > 10 * 365 * 86_400_000) throw new Error(`${where} is longer than ten years (got ${JSON.stringify(value)})`);
  return Math.round(ms);
}
