// Small helpers of the MCP client: what it logs and shows (a list change, a progress notification, a byte count), and a
// wait that a call's abort signal cuts short.
import { setTimeout as sleep } from 'node:timers/promises';

/** `5 tools (added: b; removed: a)`, or `5 tools (the same names)`. */
export function listChange(before: string[], after: string[]): string {
  const added = after.filter((n) => !before.includes(n));
  const removed = before.filter((n) => !after.includes(n));
  const changes = [added.length ? `added: ${added.join(', ')}` : '', removed.length ? `removed: ${removed.join(', ')}` : ''].filter(Boolean);
  return `${after.length} tools (${changes.join('; ') || 'the same names'})`;
}

/** What a progress notification says: its message, else `3/10` (or `3`). */
export function progressText(p: { progress: number; total?: number; message?: string }): string {
  return p.message ?? (p.total ? `${p.progress}/${p.total}` : String(p.progress));
}

/** Node's abortable timer, failing with the signal's own reason (a Temporal cancellation stays one) instead of an AbortError. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => Promise.reject(signal.reason));
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}
