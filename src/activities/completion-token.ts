// The token that completes a tool call from outside (`context.completionToken`): the activity's Temporal task
// token, with the run and the call it belongs to, so that a completion for a run that has ended can say so.
// Opaque to its holder; `complete-tool` and `completeToolCall` read it back.

const PREFIX = 'dact1.';

export interface CompletionTarget {
  workflowId: string;
  runId: string;
  activityId: string;
  toolUseId: string;
  /** The activity's task token (Temporal's, what `client.activity.complete` takes). */
  taskToken: Uint8Array;
  /** The run's tool output limit (characters), applied to the result as to any tool's. */
  maxOutputChars?: number;
  /** The run's namespace: a completion from a client of another one is refused, naming it (tokens from before it
   * was carried have none). */
  namespace?: string;
  /** The worker that handed it out encrypts the run's data: a completion from a client that does not is refused
   * (it would store the result in plain text). */
  encrypted?: boolean;
}

export function encodeCompletionToken(target: CompletionTarget): string {
  const { taskToken, ...where } = target;
  const body = JSON.stringify({ ...where, taskToken: Buffer.from(taskToken).toString('base64') });
  return PREFIX + Buffer.from(body, 'utf8').toString('base64url');
}

/** The target of a token, or null when the text is not one of ours (mistyped, cut short, another kind). */
export function decodeCompletionToken(token: string): CompletionTarget | null {
  const text = token.trim();
  if (!text.startsWith(PREFIX)) return null;
  try {
    const body = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8')) as Record<string, unknown>;
    const fields = ['workflowId', 'runId', 'activityId', 'toolUseId', 'taskToken'] as const;
    if (!fields.every((f) => typeof body[f] === 'string' && body[f] !== '')) return null;
    return {
      workflowId: body.workflowId as string,
      runId: body.runId as string,
      activityId: body.activityId as string,
      toolUseId: body.toolUseId as string,
      taskToken: new Uint8Array(Buffer.from(body.taskToken as string, 'base64')),
      ...(typeof body.maxOutputChars === 'number' ? { maxOutputChars: body.maxOutputChars } : {}),
      ...(typeof body.namespace === 'string' && body.namespace !== '' ? { namespace: body.namespace } : {}),
      ...(body.encrypted === true ? { encrypted: true } : {}),
    };
  } catch {
    return null;
  }
}
