// Completing a tool call from outside: the system a tool handed `context.completionToken` to (a CI job, a human
// task, a batch pipeline) gives the call its result. Temporal's async activity completion: the server takes it
// whether or not a worker is running, and the run goes on with it as the call's tool_result.
import { ActivityCompletionError, ActivityNotFoundError, type Client } from '@temporalio/client';
import { decodeCompletionToken } from '../activities/completion-token.js';
import { codecsEncrypt } from '../codec/encryption-codec.js';
import { assertFitsInHistory, limitToolOutput } from '../activities/payload-limit.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../core/policies.js';
import type { ToolOutcome } from '../core/types.js';

/** A completion that could not be delivered; its message is one line that says why and what to do. */
export class ToolCompletionError extends Error {
  override name = 'ToolCompletionError';
}

export interface CompletedToolCall {
  workflowId: string;
  runId: string;
  toolUseId: string;
}

/** Completes the call `token` stands for with `result`: text (or a ToolOutcome, `isError: true` for an error
 * result the model should act on). Throws ToolCompletionError for a token that is not one, already used, or
 * belongs to a run that has ended. */
export async function completeToolCall(client: Client, token: string, result: string | ToolOutcome): Promise<CompletedToolCall> {
  const target = decodeCompletionToken(token);
  if (!target) {
    throw new ToolCompletionError(`that is not a completion token (it should start with "dact1."): ${WHOLE_TOKEN}`);
  }
  const outcome: ToolOutcome = typeof result === 'string' ? { content: result, isError: false } : result;
  const limited = { ...outcome, content: limitToolOutput(outcome.content, target.maxOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS) };
  try {
    assertFitsInHistory(limited, 'tool result');
  } catch (err) {
    throw new ToolCompletionError(`the result is too large: ${(err as Error).message.split(';')[0]}; send less`);
  }
  const call = { workflowId: target.workflowId, runId: target.runId, toolUseId: target.toolUseId };
  const namespace = client.options.namespace;
  // The server would answer only "a token from a different namespace", without saying which.
  if (target.namespace !== undefined && target.namespace !== namespace) throw new ToolCompletionError(otherNamespace(call, target.namespace, namespace));
  if (target.encrypted && !codecsEncrypt(client.options.loadedDataConverter.payloadCodecs)) {
    throw new ToolCompletionError(
      `tool call ${call.toolUseId} of ${call.workflowId}: the run's data is encrypted, and this client does not encrypt: ` +
        'the result would be stored in plain text; complete it with the keys the workers use (AGENT_ENCRYPTION_KEYS)',
    );
  }
  try {
    await client.activity.complete(target.taskToken, limited.content.length === 0 ? { ...limited, content: '(empty result)' } : limited);
  } catch (err) {
    if (err instanceof ActivityCompletionError && /deserializing task token/i.test(err.message)) {
      throw new ToolCompletionError(`that is not a whole completion token (the server cannot read its task token): ${WHOLE_TOKEN}`);
    }
    if (err instanceof ActivityCompletionError && /different namespace/i.test(err.message)) {
      throw new ToolCompletionError(`tool call ${call.toolUseId} of ${call.workflowId}: the run is not in namespace "${namespace}" as this client: complete it with a client of the run's namespace (the CLI: TEMPORAL_NAMESPACE)`);
    }
    if (!(err instanceof ActivityNotFoundError)) throw err;
    throw new ToolCompletionError(await whyNotFound(client, call));
  }
  return call;
}

const WHOLE_TOKEN = 'pass the whole `context.completionToken` the tool handed out';

function otherNamespace(call: CompletedToolCall, runs: string, client: string): string {
  return (
    `tool call ${call.toolUseId} of ${call.workflowId}: the run is in namespace "${runs}", not in "${client}" as this client: ` +
    `complete it with a client of namespace "${runs}" (the CLI: TEMPORAL_NAMESPACE=${runs})`
  );
}

/** The server knows no such call: the run has ended, or the call was completed (or timed out) already. */
async function whyNotFound(client: Client, call: CompletedToolCall): Promise<string> {
  const where = `tool call ${call.toolUseId} of ${call.workflowId}`;
  const description = await client.workflow.getHandle(call.workflowId, call.runId).describe().catch(() => undefined);
  if (!description) return `${where}: no such run on this server (namespace ${client.options.namespace}); check TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE`;
  if (description.status.name !== 'RUNNING') {
    return `${where}: the run has ended (${description.status.name.toLowerCase()}), so the call can no longer be completed`;
  }
  return `${where}: the call is no longer waiting: it was completed already, or timed out (see \`status ${call.workflowId}\`)`;
}
