// How an error that ends a command is told: one line a person can act on, and the exit code. Expected problems
// (bad input, configuration, a run that does not exist) are exit 2; anything else is exit 1. A stack trace is a
// bug report's business: it is printed only with DEBUG=durable-agent.
import { UsageError } from '../core/args.js';
import { debugEnabled, logLine } from './log.js';
import { EXIT } from './output.js';

// By name: the error classes live in modules this file does not load up front.
const USAGE_ERROR_NAMES = new Set(['RunNotResumableError', 'EncryptionKeyError', 'ToolCompletionError', 'McpStartupError', 'InvalidSettingsError', 'McpTokenStoreError', 'McpLoginError', 'OtelConfigError', 'InvalidScheduleError', 'InvalidTaskBatchError', 'ForkError', 'ReplayInputError']);

export function reportError(err: unknown): number {
  const { message, code, unexpected } = describeError(err);
  logLine(`error: ${message}`);
  if (debugEnabled()) {
    if (err instanceof Error && err.stack) logLine(err.stack);
    // And what caused it, down to where it was thrown (a config's tool module that threw at import, for one).
    let cause = err instanceof Error ? err.cause : undefined;
    for (let depth = 0; cause instanceof Error && depth < 3; depth++, cause = cause.cause) logLine(`caused by: ${cause.stack ?? cause.message}`);
  } else if (unexpected) {
    logLine('(DEBUG=durable-agent prints the stack trace, for a bug report)');
  }
  return code;
}

interface Described {
  message: string;
  code: number;
  /** Not a problem a person caused: worth a bug report. */
  unexpected: boolean;
}

export function describeError(err: unknown): Described {
  if (err instanceof UsageError) return { message: err.message, code: EXIT.usage, unexpected: false };
  if (!(err instanceof Error)) return { message: String(err), code: EXIT.failed, unexpected: true };
  if (err.name === 'WorkflowNotFoundError') {
    const id = (err as Error & { workflowId?: string }).workflowId;
    return { message: `no run with id "${id}" on this Temporal server`, code: EXIT.usage, unexpected: false };
  }
  if (err.name === 'ScheduleNotFoundError') {
    const id = (err as Error & { scheduleId?: string }).scheduleId;
    const why = /does not start agent runs/.test(err.message) ? ' that starts agent runs' : '';
    return { message: `no schedule named "${id}"${why} on this Temporal server (schedule list shows them)`, code: EXIT.usage, unexpected: false };
  }
  if (USAGE_ERROR_NAMES.has(err.name)) return { message: err.message, code: EXIT.usage, unexpected: false };
  if (err.name === 'NamespaceNotFoundError') {
    return {
      message: `${err.message} (set TEMPORAL_NAMESPACE to a namespace that exists, or create it: temporal operator namespace create)`,
      code: EXIT.usage,
      unexpected: false,
    };
  }
  return { message: oneLineMessage(err), code: EXIT.failed, unexpected: true };
}

/** The message and what caused it, without gRPC's `Status{…}` dumps. */
function oneLineMessage(err: Error): string {
  const parts = [err.message];
  let cause = (err as { cause?: unknown }).cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    if (!parts.some((p) => p.includes(cause instanceof Error ? cause.message : ''))) parts.push(cause.message);
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.join(': ').trim();
}
