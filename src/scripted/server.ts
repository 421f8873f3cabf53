// A local stand-in for the Anthropic Messages API: node:http only, answers from a Script, speaks the real wire
// format (JSON and SSE, real error shapes and statuses) so agents run through the real SDK without an API key.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequest, ReturnedContent, turnIndexOf } from './conformance.js';
import {
  isErrorTurn,
  isFailTimesTurn,
  scriptTurnProblem,
  systemText,
  type AgentScript,
  type ErrorTurn,
  type MessagesRequestBody,
  type ReplyTurn,
  type Script,
  type ScriptTurn,
} from './script.js';
import { clientSummaryReply, compactionRequestProblem, type CompactionOptions } from './compaction.js';
import { buildMessage } from './message.js';
import { PromptCache } from './prompt-cache.js';
import { text as readBody } from 'node:stream/consumers';
import { isAuthenticated, sendError, sendJson } from './http.js';
import { ScriptedBatches, type BatchAnswer, type RecordedBatch } from './batches.js';
import { messageEvents, writeSse } from './sse.js';

export interface ScriptedModelOptions extends CompactionOptions {
  script: Script;
  /** What the script is called in the errors it causes (its file, for one): default "the script". */
  name?: string;
  /** Sub-agents' own scripts, by agent name: a request whose system prompt is an agent's `system` is answered from
   * that agent's script, any other (the top-level run's) from `script`. Without it, parent and children share
   * `script`. */
  agents?: Record<string, AgentScript>;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the server is for local tests, not for the network. */
  host?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Request headers without credentials (authorization, x-api-key, cookies). */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** Turn index (assistant messages in the request); null when rejected before it was known. */
  turn: number | null;
  stream: boolean;
  requestId: string;
  /** Response status; null while the request is pending (held or delayed); 499 when the client went away before
   * the answer was complete. */
  status: number | null;
  /** Id of the returned message, for 200 answers. */
  messageId?: string;
  /** Set when the scripted stream was cut on purpose (`cut`): how many events were sent first. */
  cutAfterEvents?: number;
}

export interface ScriptedModel {
  url: string;
  port: number;
  /** Every POST /v1/messages, in arrival order (entries are updated in place when answered). */
  requests: RecordedRequest[];
  /** Every Message Batch created (`POST /v1/messages/batches`), in order, with its requests and their results. A
   * request held by its turn (`hold`) keeps its batch in progress until `release()`. */
  batches: RecordedBatch[];
  close(): Promise<void>;
  /** Answers the held requests (of `turn` only, when given), and stops holding that turn (every turn when omitted)
   * for later requests, so a retry after release is answered at once. */
  release(turn?: number): void;
  /** Resolves once at least `count` requests are being held (to kill a worker mid-call at the right moment). */
  waitForHeld(count?: number, timeoutMs?: number): Promise<void>;
  /** Scripts the model anew on the same address, as if it had just been started with `options` (for a test kit that
   * keeps one model and one worker for many tests): `requests` and `batches` are emptied (the same arrays), the prompt
   * cache, the held and released turns and the counts of `failTimes` and `cut` turns start again. A request still
   * held or delayed from before is not answered (its client sees the connection close); one still arriving is
   * answered from the new script. */
  reset(options: Omit<ScriptedModelOptions, 'port' | 'host'>): void;
}

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization']);
const newRequestId = () => `req_${randomBytes(12).toString('hex')}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The most common scripting mistake: a script whose last reply is a tool_use (the run then asks for one more). */
function outOfTurns(name: string, length: number, turn: number): string {
  const has = length === 0 ? 'it has no turns' : length === 1 ? 'it has 1 turn, turn 0' : `it has ${length} turns, 0 to ${length - 1}`;
  return (
    `scripted model: ${name} has no turn ${turn} (${has}): the run asked for model reply ${turn + 1}. ` +
    'A script ends with a reply whose stop_reason is end_turn; one that ends on a tool_use leaves the run asking for more'
  );
}

/** The sub-agents' scripts of `options`, checked: each is told apart by its system prompt. */
function agentScripts(options: ScriptedModelOptions): Array<[string, AgentScript]> {
  const agents = Object.entries(options.agents ?? {});
  for (const [agent, { system }] of agents) {
    if (!system) throw new Error(`scripted model: the agent "${agent}" has no system prompt, by which its requests would be told apart`);
    const twin = agents.find(([other, def]) => other !== agent && def.system === system);
    if (twin) throw new Error(`scripted model: the agents "${agent}" and "${twin[0]}" have the same system prompt: their requests cannot be told apart`);
  }
  return agents;
}

export async function startScriptedModel(startOptions: ScriptedModelOptions): Promise<ScriptedModel> {
  // What `reset` replaces: the script and its options, and everything the answers so far left behind.
  let options = startOptions;
  let agents = agentScripts(options);
  /** The script that answers `body`: its agent's, by the system prompt, else the top-level run's. */
  const scriptFor = (body: MessagesRequestBody): { script: Script; name: string } => {
    const system = systemText(body.system);
    const agent = system ? agents.find(([, def]) => def.system === system) : undefined;
    if (!agent) return { script: options.script, name: options.name ?? 'the script' };
    return { script: agent[1].script, name: `the script for agent "${agent[0]}"${options.name ? ` (in ${options.name})` : ''}` };
  };
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  // One prompt cache per server, like one account's cache on the real API.
  let cache = new PromptCache();
  let returned = new ReturnedContent();
  const failCounts = new Map<number, number>();
  const cutCounts = new Map<number, number>();
  const held: Array<{ turn: number; wake: () => void }> = [];
  const releasedTurns = new Set<number>();
  let releasedAll = false;
  let closing = false;
  /** Counts the resets: a request that began before one is not answered after it. */
  let generation = 0;

  async function resolveTurn(body: MessagesRequestBody, turn: number): Promise<ReplyTurn | ErrorTurn | string> {
    const summary = clientSummaryReply(body, turn);
    if (summary) return summary;
    const { script, name } = scriptFor(body);
    let scripted: ScriptTurn | undefined;
    if (Array.isArray(script)) {
      scripted = script[turn];
      if (scripted === undefined) return outOfTurns(name, script.length, turn);
    } else {
      try {
        scripted = await script(body, turn);
      } catch (err) {
        return `scripted model: ${name} threw at turn ${turn}: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    const problem = scriptTurnProblem(scripted, false);
    if (problem) return `scripted model: turn ${turn} of ${name} is invalid: ${problem}`;
    if (!isFailTimesTurn(scripted)) return scripted;
    const count = failCounts.get(turn) ?? 0;
    failCounts.set(turn, count + 1);
    return count < scripted.failTimes.times ? scripted.failTimes.failure : scripted.failTimes.then;
  }

  /** Resolves once `turn` is released (or every turn is), or when `until` says the wait is over. */
  function holdTurn(turn: number, until?: (stop: () => void) => void): Promise<void> {
    if (releasedAll || releasedTurns.has(turn)) return Promise.resolve();
    return new Promise<void>((wake) => {
      const entry = { turn, wake };
      held.push(entry);
      until?.(() => {
        const i = held.indexOf(entry);
        if (i >= 0) held.splice(i, 1);
        wake();
      });
    });
  }

  /** A request of a Message Batch, checked and answered as the same direct request would be; its turn's hold and
   * delay keep its batch in progress. */
  async function answerInBatch(params: unknown, betas: string | undefined): Promise<BatchAnswer> {
    const problem = checkRequest(params, returned) ?? compactionRequestProblem(params as MessagesRequestBody, betas, options);
    if (problem) return { turn: null, error: { type: 'invalid_request_error', message: problem } };
    const body = params as MessagesRequestBody;
    const turn = turnIndexOf(body);
    const answer = await resolveTurn(body, turn);
    if (typeof answer === 'string') return { turn, error: { type: 'invalid_request_error', message: answer } };
    if (answer.hold) await holdTurn(turn);
    if (answer.delayMs) await sleep(answer.delayMs);
    if (isErrorTurn(answer)) return { turn, error: { type: answer.error.type, message: answer.error.message }, expired: answer.expiredInBatch };
    const message = buildMessage(body, turn, answer, cache);
    returned.remember(message.id as string, message.content as unknown[]);
    return { turn, message };
  }
  let baseUrl = ''; // known once the server listens
  const batches = new ScriptedBatches(answerInBatch, () => baseUrl);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    const url = new URL(req.url ?? '/', 'http://scripted.local');
    if (url.pathname.startsWith('/v1/messages/batches')) return batches.handle(req, res, url.pathname, requestId);
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      req.resume();
      return sendError(res, requestId, 404, 'not_found_error', `Not found: ${req.method} ${url.pathname}`);
    }
    const raw = await readBody(req);
    const began = generation;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !SECRET_HEADERS.has(k)));
    const record: RecordedRequest = { method: 'POST', path: url.pathname + url.search, headers, body: raw, turn: null, stream: false, requestId, status: null };
    requests.push(record);
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        clientGone = true;
        // A client that goes away before the answer is complete (even mid-stream) is a 499, unless the script
        // cut the stream itself.
        if (record.cutAfterEvents === undefined) record.status = 499;
      }
    });
    const fail = (status: number, type: string, message: string, extra?: Record<string, string>) => {
      record.status = status;
      sendError(res, requestId, status, type, message, extra);
    };

    if (!isAuthenticated(req)) {
      return fail(401, 'authentication_error', 'x-api-key header or Authorization: Bearer header is required');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      return fail(400, 'invalid_request_error', `There was an issue with your request body: it is not valid JSON (${(err as Error).message})`);
    }
    record.body = parsed;
    const problem = checkRequest(parsed, returned) ?? compactionRequestProblem(parsed as MessagesRequestBody, req.headers['anthropic-beta'], options);
    if (problem) return fail(400, 'invalid_request_error', problem);
    const body = parsed as MessagesRequestBody;
    const turn = turnIndexOf(body);
    record.turn = turn;
    record.stream = body.stream === true;

    const answer = await resolveTurn(body, turn);
    // A script that cannot answer (out of turns, a turn it cannot make, a function that threw) will not answer a
    // retry either: a 400, which the SDK and the worker do not retry, so the run fails at once with this message.
    // (A script that wants a call to fail and be retried says so with an error turn: apiError(500, ...).)
    if (typeof answer === 'string') return fail(400, 'invalid_request_error', answer);
    // A client that disconnects (a killed worker) stops being held.
    const holdHere = (): Promise<void> => holdTurn(turn, (stop) => res.on('close', stop));
    if (answer.hold) await holdHere();
    if (answer.delayMs) await Promise.race([sleep(answer.delayMs), new Promise((r) => res.on('close', r))]);
    if (clientGone || closing || began !== generation) {
      record.status ??= 499;
      res.destroy();
      return;
    }
    if (isErrorTurn(answer)) {
      const { status, type, message, headers: extra } = answer.error;
      return fail(status, type, message, extra);
    }
    const message = buildMessage(body, turn, answer, cache);
    returned.remember(message.id as string, message.content as unknown[]);
    record.status = 200;
    record.messageId = message.id as string;
    const responseHeaders = { 'request-id': requestId };
    if (!record.stream) return sendJson(res, 200, message, responseHeaders);
    const cuts = cutCounts.get(turn) ?? 0;
    const cutAfterEvents = answer.cut && cuts < (answer.cut.times ?? 1) ? answer.cut.afterEvents : undefined;
    if (cutAfterEvents !== undefined) {
      cutCounts.set(turn, cuts + 1);
      record.cutAfterEvents = cutAfterEvents;
    }
    await writeSse(res, messageEvents(message), responseHeaders, {
      eventDelayMs: answer.eventDelayMs,
      cutAfterEvents,
      pauseAfterEvents: answer.holdAfterEvents,
      resume: holdHere,
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, newRequestId(), 500, 'api_error', `scripted server error: ${(err as Error)?.message ?? String(err)}`);
      else res.destroy();
    });
  });
  server.listen(options.port ?? 0, host);
  await once(server, 'listening'); // rejects with the server's 'error' (a port in use)
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  const release = (turn?: number): void => {
    if (turn === undefined) releasedAll = true;
    else releasedTurns.add(turn);
    for (const entry of held.filter((h) => turn === undefined || h.turn === turn)) {
      held.splice(held.indexOf(entry), 1);
      entry.wake();
    }
  };

  baseUrl = `http://${urlHost}:${port}`;
  return {
    url: baseUrl,
    port,
    requests,
    batches: batches.recorded,
    release,
    async waitForHeld(count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (held.length < count) {
        if (Date.now() > deadline) throw new Error(`waitForHeld: ${held.length} of ${count} requests held after ${timeoutMs} ms`);
        await sleep(10);
      }
    },
    reset(next) {
      const nextAgents = agentScripts(next);
      generation++;
      options = next;
      agents = nextAgents;
      requests.length = 0;
      batches.clear();
      cache = new PromptCache();
      returned = new ReturnedContent();
      failCounts.clear();
      cutCounts.clear();
      releasedTurns.clear();
      releasedAll = false;
      for (const entry of held.splice(0)) entry.wake();
    },
    async close() {
      closing = true;
      for (const entry of held.splice(0)) entry.wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
