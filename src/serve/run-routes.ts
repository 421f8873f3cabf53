// The routes of runs in the HTTP API (app.ts holds what every request goes through, and the error answers):
// `/v1/runs` to start and list runs, `/v1/runs/:id/...` to read, follow, steer, resume and fork one, and
// `/v1/completions` for a tool call that completes later. Each is a call of the typed client (src/client).
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  answerElicitation,
  approveToolCall,
  completeToolCall,
  cancelRun,
  denyToolCall,
  getAgentResult,
  getStatus,
  getTranscript,
  getTurnUsage,
  listRuns,
  resumeAgent,
  sendFollowUp,
  startAgent,
  type ResumeOptions,
} from '../client/index.js';
import { parseDuration } from '../core/duration.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import { AGENT_STATUSES, type ElicitationReply } from '../core/types.js';
import { parseEventId } from '../core/run-events.js';
import type { EventHub } from './events.js';
import type { RunInput } from '../config/run-input.js';
import { forkRequest } from './fork-request.js';
import { fail, intQuery, jsonBody, objectBody } from './http.js';
import { parseRunRequest, RequestError } from './run-request.js';

/** What the run routes use of the API's options (ApiOptions, app.ts). */
export interface RunRoutesOptions {
  client: Client;
  /** Turns a run request's settings into the run's (defaults filled, its tools checked against the tool catalog). */
  settings(values: Record<string, unknown>): Promise<RunInput>;
  taskQueue: string;
  hub: EventHub;
}

const MAX_WAIT_MS = 5 * 60_000;
const MAX_LIST = 1000;

export function runRoutes(app: Hono, options: RunRoutesOptions): void {
  const { client, hub } = options;

  app.post('/v1/runs', async (c) => {
    const request = parseRunRequest(await jsonBody(c));
    const key = c.req.header('idempotency-key');
    if (key !== undefined && (key.length === 0 || key.length > 200)) throw new RequestError('Idempotency-Key: 1 to 200 characters', 'Idempotency-Key');
    const keyed = key !== undefined ? `run-${createHash('sha256').update(key).digest('hex').slice(0, 24)}` : undefined;
    if (keyed && request.id && request.id !== keyed) {
      throw new RequestError('give either an Idempotency-Key header or an id, not both', 'id');
    }
    const { settings, priority } = await options.settings(request.values);
    const started = await startAgent(client, { task: request.task, settings, workflowId: request.id ?? keyed, taskQueue: options.taskQueue, priority });
    return c.json(started, started.attached ? 200 : 201);
  });

  app.get('/v1/runs', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !AGENT_STATUSES.includes(status)) {
      throw new RequestError(`status must be one of ${AGENT_STATUSES.join(', ')} (got "${status}")`, 'status');
    }
    const limit = intQuery(c, 'limit', 20, 1, MAX_LIST);
    // A schedule's runs (TemporalScheduledById) or a task batch's (start --tasks: AgentTaskBatch).
    const [schedule, batch] = (['schedule', 'batch'] as const).map((name) => {
      const v = c.req.query(name);
      if (v !== undefined && !/^[\w.@-]{1,100}$/.test(v)) throw new RequestError(`${name}: "${v.slice(0, 60)}" is not a ${name} name (letters, digits and . _ @ -)`, name);
      return v;
    });
    return c.json({ runs: await listRuns(client, { status, limit, schedule, batch }) });
  });

  app.get('/v1/runs/:id', async (c) => c.json(await getStatus(client, runId(c))));
  app.get('/v1/runs/:id/transcript', async (c) => c.json({ messages: await getTranscript(client, runId(c)) }));
  app.get('/v1/runs/:id/usage', async (c) => c.json({ turns: await getTurnUsage(client, runId(c)) }));

  app.get('/v1/runs/:id/result', async (c) => {
    const id = runId(c);
    const wait = c.req.query('wait');
    let waitMs = 0;
    if (wait !== undefined) {
      try {
        waitMs = parseDuration(wait);
      } catch (err) {
        throw new RequestError(`wait: ${(err as Error).message}`, 'wait');
      }
      if (waitMs > MAX_WAIT_MS) throw new RequestError(`wait must be at most 5m (got "${wait}")`, 'wait');
    }
    const description = await client.workflow.getHandle(id).describe();
    if (description.status.name !== 'RUNNING') return c.json(await getAgentResult(client, id));
    if (waitMs === 0) return c.json({ workflowId: id, running: true }, 202);
    // A caller that hangs up ends the long poll too.
    const signal = AbortSignal.any([AbortSignal.timeout(waitMs), c.req.raw.signal]);
    try {
      return c.json(await client.withAbortSignal(signal, () => getAgentResult(client, id)));
    } catch (err) {
      if (signal.aborted) return c.json({ workflowId: id, running: true }, 202);
      throw err;
    }
  });

  app.post('/v1/runs/:id/approvals/:toolUseId', async (c) => {
    const body = objectBody(await jsonBody(c), ['decision', 'reason']);
    const { decision, reason } = body;
    if (decision !== 'approve' && decision !== 'deny') throw new RequestError('decision must be "approve" or "deny"', 'decision');
    if (reason !== undefined && typeof reason !== 'string') throw new RequestError('reason must be a string', 'reason');
    if (reason !== undefined && decision === 'approve') throw new RequestError('reason goes with "deny" only', 'reason');
    const toolUseId = c.req.param('toolUseId');
    const ack =
      decision === 'approve'
        ? await whileRunning(client, c, 'approve', () => approveToolCall(client, runId(c), toolUseId))
        : await whileRunning(client, c, 'deny', () => denyToolCall(client, runId(c), toolUseId, reason));
    return c.json(ack);
  });

  // An MCP server's question (elicitation) the run holds: `elicitationId` may be left out when one is pending. The
  // run's update checks the answer against the requested schema (defaults filled) and refuses it with one line.
  app.post('/v1/runs/:id/answers', async (c) => {
    const { elicitationId, action, content } = objectBody(await jsonBody(c), ['elicitationId', 'action', 'content']);
    if (elicitationId !== undefined && (typeof elicitationId !== 'string' || !elicitationId)) {
      throw new RequestError('elicitationId must be the question\'s id, e.g. "toolu_01/1"', 'elicitationId');
    }
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') throw new RequestError('action must be "accept", "decline" or "cancel"', 'action');
    if (content !== undefined && (action !== 'accept' || !content || typeof content !== 'object' || Array.isArray(content))) {
      throw new RequestError('content is the answer\'s fields, a JSON object, with "accept" only', 'content');
    }
    const reply: ElicitationReply = { action, ...(elicitationId ? { elicitationId } : {}), ...(content ? { content: content as Record<string, unknown> } : {}) };
    return c.json(await whileRunning(client, c, 'answer a question of', () => answerElicitation(client, runId(c), reply)));
  });

  // The result of a tool call that completes later (the tool handed out `context.completionToken`): the call's
  // run is named by the token, so this route has no run id.
  app.post('/v1/completions', async (c) => {
    const { token, result, isError } = objectBody(await jsonBody(c), ['token', 'result', 'isError']);
    if (typeof token !== 'string' || !token) throw new RequestError('token: the completion token the tool handed out is required', 'token');
    if (typeof result !== 'string') throw new RequestError('result must be the call\'s result as text', 'result');
    if (isError !== undefined && typeof isError !== 'boolean') throw new RequestError('isError must be true or false', 'isError');
    return c.json(await completeToolCall(client, token, isError ? { content: result, isError: true } : result));
  });

  app.post('/v1/runs/:id/messages', async (c) => {
    const { text } = objectBody(await jsonBody(c), ['text']);
    if (typeof text !== 'string' || !text.trim()) throw new RequestError('text: a non-empty string is required', 'text');
    return c.json(await whileRunning(client, c, 'send a message to', () => sendFollowUp(client, runId(c), text)), 202);
  });

  app.post('/v1/runs/:id/cancel', async (c) => {
    await whileRunning(client, c, 'cancel', () => cancelRun(client, runId(c)));
    return c.json({ workflowId: runId(c), cancelRequested: true }, 202);
  });

  app.post('/v1/runs/:id/resume', async (c) => {
    const body = objectBody(await jsonBody(c, true), ['moreSteps', 'moreBudgetTokens', 'deadline']);
    const resume: ResumeOptions = { taskQueue: options.taskQueue };
    for (const field of ['moreSteps', 'moreBudgetTokens'] as const) {
      const v = body[field];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new RequestError(`${field} must be a whole number >= 1`, field);
      resume[field] = v;
    }
    if (body.deadline !== undefined) {
      if (typeof body.deadline !== 'string') throw new RequestError('deadline must be a duration such as "30m"', 'deadline');
      try {
        resume.deadlineMs = parseDuration(body.deadline);
      } catch (err) {
        throw new RequestError(`deadline: ${(err as Error).message}`, 'deadline');
      }
    }
    return c.json(await resumeAgent(client, runId(c), resume), 201);
  });

  app.post('/v1/runs/:id/fork', async (c) => c.json(await forkRequest(await jsonBody(c), runId(c), client, options), 201));

  app.get('/v1/runs/:id/events', async (c) => {
    const id = runId(c);
    await client.workflow.getHandle(id).describe(); // 404 before the stream opens
    const last = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    if (last !== undefined && !parseEventId(last)) throw new RequestError(`Last-Event-ID "${last.slice(0, 40)}" is not an id this stream sent`, 'Last-Event-ID');
    return streamSSE(c, async (stream) => {
      let unsubscribe = () => {};
      let queue = Promise.resolve();
      const send = (write: () => Promise<void>) => (queue = queue.then(write).catch(() => stream.abort()));
      // A comment now and then keeps proxies from closing a quiet stream (a run waiting hours for approval).
      const keepAlive = setInterval(() => send(() => stream.write(': keep-alive\n\n').then(() => undefined)), 15_000);
      await new Promise<void>((resolve) => {
        stream.onAbort(resolve);
        unsubscribe = hub.subscribe(
          id,
          last,
          (event) => send(() => stream.writeSSE({ id: event.id, event: event.event, data: JSON.stringify(event.data) })),
          () => void send(async () => resolve()),
        );
      });
      clearInterval(keepAlive);
      unsubscribe();
      await queue;
    });
  });
}

/** The run a request names, as `agentRunsOnly` found it: a steering route reads its status from here. */
const describedRuns = new WeakMap<Context, { describe(): Promise<WorkflowExecutionDescription>; status: string }>();

export function agentRunsOnly(client: Client) {
  return async (c: Context, next: () => Promise<void>) => {
    if (c.req.method === 'OPTIONS') return next();
    const handle = client.workflow.getHandle(runId(c));
    const description = await handle.describe();
    if (description.type !== AGENT_WORKFLOW) return fail(c, 404, 'not_found', `no run with id "${c.req.param('id') ?? ''}" (that workflow is not an agent run)`);
    describedRuns.set(c, { describe: () => handle.describe(), status: description.status.name });
    await next();
  };
}

/** A steering route (a message, a cancel, a decision, an answer) acts on a running run only: one that has ended is
 * 409 naming its status, in the CLI's words (src/cli/commands/steer.ts), not a 404 (the run exists) nor a 202
 * (nothing would happen). A run that ends between the check and the call is answered the same way. */
async function whileRunning<T>(client: Client, c: Context, what: string, act: () => Promise<T>): Promise<T> {
  const run = describedRuns.get(c); // by the context: bodyLimit may swap the request for a wrapped one
  const ended = (status: string) =>
    new RequestError(`cannot ${what} run ${runId(c)}: it has ended (${status})`, undefined, 409, 'run_ended');
  if (run && run.status !== 'RUNNING') throw ended(run.status);
  try {
    // An update waits for a worker to take it, for as long as none does: a caller that hangs up, or the server
    // closing (which closes its connections), ends the wait, so that close() is not held by it.
    return await client.withAbortSignal(c.req.raw.signal, act);
  } catch (err) {
    if (run && err instanceof WorkflowNotFoundError) {
      const now = await run.describe().catch(() => undefined);
      if (now && now.status.name !== 'RUNNING') throw ended(now.status.name);
    }
    throw err;
  }
}

/** The run a route names. A sub-agent's child run is `<parent id>/<toolUseId>` (nested: one `/` per level), sent
 * URL-encoded (`%2F`); Temporal takes ids of up to 1,000 characters. */
function runId(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!/^[\w.:@/-]{1,1000}$/.test(id)) throw new RequestError(`the run id "${id.slice(0, 60)}" is not a workflow id`, 'id', 404, 'not_found');
  return id;
}
