// Stepping in while a run runs: approve or deny a tool call, send a follow-up, close a chat, cancel.
import type { Client } from '@temporalio/client';
import type { AgentInput, ApprovalAck, ElicitationAck, ElicitationReply } from '../core/types.js';
import { answerElicitation as answerUpdate, closeChat, decideToolCall, sendMessage } from '../workflows/definitions.js';
import { decodePayloadAt } from './decode.js';

/** Approves a tool call waiting for a decision (the only one pending, when `toolUseId` is omitted). */
export function approveToolCall(client: Client, workflowId: string, toolUseId?: string): Promise<ApprovalAck> {
  return client.workflow.getHandle(workflowId).executeUpdate(decideToolCall, { args: [{ toolUseId, approve: true }] });
}

/** Denies a tool call: the model gets an is_error result carrying the reason, and can adapt. */
export function denyToolCall(client: Client, workflowId: string, toolUseId?: string, reason?: string): Promise<ApprovalAck> {
  return client.workflow
    .getHandle(workflowId)
    .executeUpdate(decideToolCall, { args: [{ toolUseId, approve: false, reason }] });
}

/** Answers an MCP server's question (the only one pending, when `elicitationId` is omitted): `accept` with content
 * (checked against the requested schema, its defaults applied), `decline` or `cancel`. A refused answer throws
 * `WorkflowUpdateFailedError` naming the problem; the question stays pending. */
export function answerElicitation(client: Client, workflowId: string, reply: ElicitationReply): Promise<ElicitationAck> {
  return client.workflow.getHandle(workflowId).executeUpdate(answerUpdate, { args: [reply] });
}

/** Adds a user message to a running run (taken at the next turn boundary) or to a chat run waiting for one. */
export function sendFollowUp(client: Client, workflowId: string, text: string): Promise<{ queued: number }> {
  return client.workflow.getHandle(workflowId).executeUpdate(sendMessage, { args: [text] });
}

/** Whether the current run of `workflowId` is a chat run (started with `chat`), from its first history event: no
 * worker needed. A run that is not ignores `closeChatRun`. */
export async function isChatRun(client: Client, workflowId: string): Promise<boolean> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  return (await decodePayloadAt<AgentInput>(client, payloads, 0))?.settings.chat === true;
}

/** Ends a chat run once it is waiting for its next message (a run started without `chat` ignores it). */
export function closeChatRun(client: Client, workflowId: string): Promise<void> {
  return client.workflow.getHandle(workflowId).signal(closeChat);
}

/** Cancels a run: in-flight activities are cancelled, and it ends with status "cancelled" and a partial answer. */
export async function cancelRun(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).cancel();
}
