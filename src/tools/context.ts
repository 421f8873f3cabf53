// A ToolContext for calling a tool's `execute` yourself (a unit test, a script): what the worker passes, without
// a worker. Progress is kept in `progressReports`; completing a call from outside needs a worker.
import type { ToolContext } from './types.js';

export type LocalToolContext = ToolContext & { readonly progressReports: Array<{ message: string; fraction?: number }> };

export function toolContext(given: Partial<Omit<ToolContext, 'progress' | 'completeLater' | 'completionToken'>> = {}): LocalToolContext {
  const workflowId = given.workflowId ?? 'local';
  const toolUseId = given.toolUseId ?? 'toolu_local';
  const progressReports: LocalToolContext['progressReports'] = [];
  const noWorker = (what: string) => new Error(`${what} needs a worker: the call is not running in a runTool activity`);
  return {
    workflowId,
    toolUseId,
    idempotencyKey: given.idempotencyKey ?? `${workflowId}/${toolUseId}`,
    signal: given.signal ?? new AbortController().signal,
    attempt: given.attempt ?? 1,
    ...(given.deadline !== undefined ? { deadline: given.deadline } : {}),
    progressReports,
    progress: (message, fraction) => void progressReports.push(fraction === undefined ? { message } : { message, fraction }),
    // Not a token the server knows: completeToolCall answers it as such.
    completionToken: 'local-call-not-completable',
    completeLater(): never {
      throw noWorker('context.completeLater()');
    },
  };
}
