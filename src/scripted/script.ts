// What the scripted model answers: a Script maps a Messages API request to a ScriptTurn.
// Replies are chosen by turn index (the number of assistant messages in the request), never by arrival order,
// so a request retried after a crash gets the same reply as the first attempt did.
import type { MessageCreateParamsBase, StopReason } from '@anthropic-ai/sdk/resources/messages';
import { STOP_REASONS } from '../core/types.js';
import { isObject } from '../core/is-object.js';

/** The JSON body of a `POST /v1/messages`, after the server's conformance checks passed. */
export type MessagesRequestBody = MessageCreateParamsBase;

export interface ScriptTextBlock {
  type: 'text';
  text: string;
}
export interface ScriptToolUseBlock {
  type: 'tool_use';
  /** Omitted → the server generates `toolu_<turn>_<blockIndex>`, deterministic so retries see the same id. */
  id?: string;
  name: string;
  input: unknown;
}
export interface ScriptThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface ScriptRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
/** Claude calling one of its server tools (run by Anthropic, inside the same response). */
export interface ScriptServerToolUseBlock {
  type: 'server_tool_use';
  /** Omitted → `srvtoolu_<turn>_<blockIndex>`. */
  id?: string;
  name: string;
  input: unknown;
}
export const SERVER_TOOL_RESULT_TYPES = [
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
] as const;
/** A server tool's result, in the API's shape for its type (e.g. a list of `web_search_result`). */
export interface ScriptServerToolResultBlock {
  type: (typeof SERVER_TOOL_RESULT_TYPES)[number];
  /** Omitted → the id of the nearest server_tool_use before it in the same reply. */
  tool_use_id?: string;
  content: unknown;
}
export type ScriptBlock =
  | ScriptTextBlock
  | ScriptToolUseBlock
  | ScriptThinkingBlock
  | ScriptRedactedThinkingBlock
  | ScriptServerToolUseBlock
  | ScriptServerToolResultBlock;

/** Overrides of the estimated usage; missing fields keep the estimate (or 0 for the cache fields). */
export interface ScriptUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** Default: counted from the reply's server_tool_use blocks (null when it has none). */
  server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number };
}

interface TurnTiming {
  /** Do not answer until `ScriptedModel.release()` is called or the client disconnects. */
  hold?: boolean;
  /** Wait this long before answering (after any hold). */
  delayMs?: number;
}

/** How a streamed (SSE) reply is delivered; a JSON (non-streaming) reply ignores it. */
export interface StreamShape {
  /** Wait this long before each event: a slow stream, like a long reply being generated. */
  eventDelayMs?: number;
  /** End the connection abruptly after this many events, on the first `times` (default 1) streamed answers of
   * this turn index (counted by the server), so a retry gets the whole reply. */
  cut?: { afterEvents: number; times?: number };
  /** Send this many events, then hold the rest until `ScriptedModel.release()` (or the client disconnects): a
   * model call caught mid-stream for as long as a test needs it there. */
  holdAfterEvents?: number;
}

export interface ReplyTurn extends TurnTiming, StreamShape {
  content: ScriptBlock[];
  stop_reason: StopReason;
  stop_sequence?: string | null;
  usage?: ScriptUsage;
}

export interface ErrorTurn extends TurnTiming {
  error: { status: number; type: string; message: string; headers?: Record<string, string> };
  /** In a Message Batch, the request is `expired` (not done in 24 hours) instead of `errored` with this error. */
  expiredInBatch?: boolean;
}

/** Fails `times` times for its turn index (counted by the server, per turn index), then answers `then`. */
export interface FailTimesTurn {
  failTimes: { times: number; failure: ErrorTurn; then: ReplyTurn | ErrorTurn };
}

export type ScriptTurn = ReplyTurn | ErrorTurn | FailTimesTurn;

export type ScriptFunction = (request: MessagesRequestBody, turn: number) => ScriptTurn | Promise<ScriptTurn>;

/** A function, or an array indexed by turn (the number of assistant messages in the request). */
export type Script = ScriptFunction | ScriptTurn[];

/** A config's scripted model for a run with sub-agents: the top-level run answers from `script`, each sub-agent from
 * `agents[<its name>]` (its own turns, counted from 0 in its own conversation). */
export interface ScriptsByAgent {
  script: Script;
  agents: Record<string, Script>;
}

/** A sub-agent's script for the scripted model (`ScriptedModelOptions.agents`). A Messages API request carries no
 * agent name: the scripted model tells an agent's requests by their system prompt, the `system` of the agent's
 * definition, which must be the agent's own (no other agent's, nor the top-level run's). */
export interface AgentScript {
  system: string;
  script: Script;
}

export function isScriptsByAgent(value: unknown): value is ScriptsByAgent {
  return isObject(value) && 'script' in value && 'agents' in value;
}

/** The system prompt of a request as text (a string, or text blocks joined), '' when it has none. */
export function systemText(system: MessagesRequestBody['system']): string {
  if (typeof system === 'string') return system;
  return (system ?? []).map((b) => b.text).join('\n');
}

export function isErrorTurn(turn: ScriptTurn): turn is ErrorTurn {
  return 'error' in turn;
}
export function isFailTimesTurn(turn: ScriptTurn): turn is FailTimesTurn {
  return 'failTimes' in turn;
}

// ---- helpers ----

export function text(s: string): ScriptTextBlock {
  return { type: 'text', text: s };
}

export function toolUse(name: string, input: unknown, id?: string): ScriptToolUseBlock {
  return id === undefined ? { type: 'tool_use', name, input } : { type: 'tool_use', id, name, input };
}

export function thinking(thought: string, signature = 'scripted-signature'): ScriptThinkingBlock {
  return { type: 'thinking', thinking: thought, signature };
}

export function serverToolUse(name: string, input: unknown, id?: string): ScriptServerToolUseBlock {
  return id === undefined ? { type: 'server_tool_use', name, input } : { type: 'server_tool_use', id, name, input };
}

/** A `web_search_tool_result` whose results are these pages (their content is opaque to the client, as in the
 * real API: `encrypted_content`). */
export function webSearchResult(pages: Array<{ url: string; title: string; page_age?: string }>, tool_use_id?: string): ScriptServerToolResultBlock {
  const content = pages.map((p) => ({
    type: 'web_search_result',
    url: p.url,
    title: p.title,
    page_age: p.page_age ?? null,
    encrypted_content: Buffer.from(`scripted:${p.url}`).toString('base64'),
  }));
  return tool_use_id === undefined ? { type: 'web_search_tool_result', content } : { type: 'web_search_tool_result', tool_use_id, content };
}

/** A reply; `stop_reason` defaults to `tool_use` when a block is a tool_use, else `end_turn`. */
export function reply(blocks: ScriptBlock[], stop_reason?: StopReason): ReplyTurn {
  return {
    content: blocks,
    stop_reason: stop_reason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
  };
}

/** An error answer in the real API's shape, e.g. `apiError(429, 'rate_limit_error', 'slow down', {'retry-after': '1'})`. */
export function apiError(status: number, type: string, message: string, headers?: Record<string, string>): ErrorTurn {
  return { error: headers ? { status, type, message, headers } : { status, type, message } };
}

export function failTimes(n: number, errorTurn: ErrorTurn, thenTurn: ReplyTurn | ErrorTurn): FailTimesTurn {
  return { failTimes: { times: n, failure: errorTurn, then: thenTurn } };
}

// ---- validation of scripts that come from JSON files ----

function blockProblem(block: unknown): string | null {
  if (!isObject(block)) return 'is not an object';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? null : 'text block needs a string "text"';
    case 'tool_use':
    case 'server_tool_use':
      if (typeof block.name !== 'string' || block.name === '') return `${block.type} block needs a non-empty string "name"`;
      if (!isObject(block.input)) return `${block.type} block needs an object "input"`;
      return block.id === undefined || typeof block.id === 'string' ? null : `${block.type} "id" must be a string`;
    case 'thinking':
      return typeof block.thinking === 'string' && typeof block.signature === 'string'
        ? null
        : 'thinking block needs string "thinking" and "signature"';
    case 'redacted_thinking':
      return typeof block.data === 'string' ? null : 'redacted_thinking block needs a string "data"';
    default:
      if ((SERVER_TOOL_RESULT_TYPES as readonly unknown[]).includes(block.type)) {
        if (block.content === undefined) return `${String(block.type)} block needs "content"`;
        return block.tool_use_id === undefined || typeof block.tool_use_id === 'string' ? null : `${String(block.type)} "tool_use_id" must be a string`;
      }
      return `unknown block type ${JSON.stringify(block.type)} (expected text, tool_use, thinking, redacted_thinking, server_tool_use, ${SERVER_TOOL_RESULT_TYPES.join(', ')})`;
  }
}

function streamShapeProblem(turn: Record<string, unknown>): string | null {
  if (turn.eventDelayMs !== undefined && !(typeof turn.eventDelayMs === 'number' && turn.eventDelayMs >= 0)) {
    return '"eventDelayMs" must be a number >= 0';
  }
  if (turn.holdAfterEvents !== undefined && !(typeof turn.holdAfterEvents === 'number' && Number.isInteger(turn.holdAfterEvents) && turn.holdAfterEvents >= 0)) {
    return '"holdAfterEvents" must be an integer >= 0';
  }
  if (turn.cut === undefined) return null;
  const cut = turn.cut;
  if (!isObject(cut) || !(Number.isInteger(cut.afterEvents) && (cut.afterEvents as number) >= 0)) {
    return '"cut" must be {"afterEvents": <integer >= 0>, "times"?: <integer >= 1>}';
  }
  if (cut.times !== undefined && !(Number.isInteger(cut.times) && (cut.times as number) >= 1)) return 'cut.times must be an integer >= 1';
  return null;
}

function timingProblem(turn: Record<string, unknown>): string | null {
  if (turn.hold !== undefined && typeof turn.hold !== 'boolean') return '"hold" must be a boolean';
  if (turn.delayMs !== undefined && !(typeof turn.delayMs === 'number' && turn.delayMs >= 0)) {
    return '"delayMs" must be a number >= 0';
  }
  return null;
}

/** Why `turn` is not a valid ScriptTurn, or null when it is. `knownStopReasonsOnly` is off for scripts written in code, so a test can send a stop_reason the SDK does
 * not list yet (the workflow must fail clearly on it); script files keep to the known ones. */
export function scriptTurnProblem(turn: unknown, knownStopReasonsOnly = true): string | null {
  if (!isObject(turn)) return 'is not an object';
  if ('failTimes' in turn) {
    const f = turn.failTimes;
    if (!isObject(f)) return '"failTimes" must be an object';
    if (!(Number.isInteger(f.times) && (f.times as number) >= 0)) return 'failTimes.times must be an integer >= 0';
    const failure = scriptTurnProblem(f.failure);
    if (failure || !isObject(f.failure) || !('error' in f.failure)) return `failTimes.failure: ${failure ?? 'must be an error turn'}`;
    if (isObject(f.then) && 'failTimes' in f.then) return 'failTimes.then: cannot nest failTimes';
    const then = scriptTurnProblem(f.then);
    return then ? `failTimes.then: ${then}` : null;
  }
  if ('error' in turn) {
    const e = turn.error;
    if (!isObject(e)) return '"error" must be an object';
    if (!(Number.isInteger(e.status) && (e.status as number) >= 400 && (e.status as number) <= 599)) {
      return 'error.status must be an HTTP error status (400-599)';
    }
    if (typeof e.type !== 'string' || typeof e.message !== 'string') return 'error.type and error.message must be strings';
    if (e.headers !== undefined && !(isObject(e.headers) && Object.values(e.headers).every((v) => typeof v === 'string'))) {
      return 'error.headers must map names to strings';
    }
    return timingProblem(turn);
  }
  if (!Array.isArray(turn.content)) return 'needs a "content" array (or an "error" object, or "failTimes")';
  for (const [i, block] of turn.content.entries()) {
    const problem = blockProblem(block);
    if (problem) return `content[${i}]: ${problem}`;
  }
  if (typeof turn.stop_reason !== 'string' || turn.stop_reason === '') return '"stop_reason" must be a string';
  if (knownStopReasonsOnly && !(STOP_REASONS as readonly unknown[]).includes(turn.stop_reason)) {
    return `"stop_reason" must be one of ${STOP_REASONS.join(', ')}`;
  }
  if (turn.usage !== undefined) {
    if (!isObject(turn.usage)) return '"usage" must be an object';
    for (const [k, v] of Object.entries(turn.usage)) {
      if (k === 'server_tool_use' && isObject(v)) {
        const bad = Object.entries(v).find(([, n]) => !(Number.isInteger(n) && (n as number) >= 0));
        if (bad) return `usage.server_tool_use.${bad[0]} must be an integer >= 0`;
        continue;
      }
      if (!(Number.isInteger(v) && (v as number) >= 0)) return `usage.${k} must be an integer >= 0`;
    }
  }
  return streamShapeProblem(turn) ?? timingProblem(turn);
}

/** Checks a parsed JSON script; throws naming `source` and the first bad index. */
export function validateScriptTurns(value: unknown, source: string): ScriptTurn[] {
  if (!Array.isArray(value)) throw new Error(`${source}: a script file must hold a JSON array of turns`);
  for (const [i, turn] of value.entries()) {
    const problem = scriptTurnProblem(turn);
    if (problem) throw new Error(`${source}: turn ${i}: ${problem}`);
  }
  return value as ScriptTurn[];
}
