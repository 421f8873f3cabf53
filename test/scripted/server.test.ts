// The scripted model through the real Anthropic SDK: wire format, streaming, conformance, errors, hold, failTimes.
import Anthropic, { AuthenticationError, BadRequestError, OverloadedError, RateLimitError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, failTimes, reply, scriptTurnProblem, serverToolUse, startScriptedModel, text, thinking, toolUse, webSearchResult, type Script, type ScriptedModel } from '../../src/scripted/index.js';

const servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(script: Script, maxRetries = 0): Promise<{ server: ScriptedModel; client: Anthropic }> {
  const server = await startScriptedModel({ script });
  servers.push(server);
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries }) };
}

const TOOLS = [
  { name: 'calc', description: 'calculator', input_schema: { type: 'object' as const, properties: { expression: { type: 'string' } } } },
  { name: 'search', description: 'web search', input_schema: { type: 'object' as const } },
];
const base = (messages: MessageParam[]): MessageCreateParamsNonStreaming => ({ model: 'claude-test', max_tokens: 1024, tools: TOOLS, messages });
const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
const assistant = (content: MessageParam['content']): MessageParam => ({ role: 'assistant', content });
const toolResult = (id: string, content = 'ok') => ({ type: 'tool_result' as const, tool_use_id: id, content });
const toolUseParam = (id: string, name = 'calc') => ({ type: 'tool_use' as const, id, name, input: { expression: '1+1' } });

/** The error the SDK throws for `body`, or fails the test when the request succeeds. */
async function rejection(client: Anthropic, body: unknown): Promise<any> {
  try {
    await client.messages.create(body as MessageCreateParamsNonStreaming);
  } catch (err) {
    return err;
  }
  throw new Error('expected the request to be rejected');
}

describe('replies', () => {
  it('answers with a JSON Message in the real shape, with deterministic tool_use ids', async () => {
    const { server, client } = await start([reply([text('Let me calculate.'), toolUse('calc', { expression: '2*3' })])]);
    const message = await client.messages.create(base([user('what is 2*3?')]));
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [
        { type: 'text', text: 'Let me calculate.' },
        { type: 'tool_use', id: 'toolu_0_1', name: 'calc', input: { expression: '2*3' } },
      ],
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: null, service_tier: 'standard' },
    });
    expect(message.id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    // A retried request gets the same message.
    expect(await client.messages.create(base([user('what is 2*3?')]))).toEqual(message);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({ status: 200, turn: 0, stream: false, messageId: message.id, path: '/v1/messages' });
    expect(server.requests[0].headers.authorization).toBeUndefined();
    expect(server.requests[0].headers['x-api-key']).toBeUndefined();
    expect(server.requests[0].headers['anthropic-version']).toBeTruthy();
  });

  it('uses scripted usage and picks the turn by the number of assistant messages', async () => {
    const { client } = await start([
      reply([toolUse('calc', { expression: '1+1' }, 'toolu_custom')]),
      { ...reply([text('2')]), usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5 } },
    ]);
    const first = await client.messages.create(base([user('1+1?')]));
    expect(first.content[0]).toMatchObject({ id: 'toolu_custom' });
    const second = await client.messages.create(base([user('1+1?'), assistant(first.content), user([toolResult('toolu_custom', '2')])]));
    expect(second.content).toEqual([{ type: 'text', text: '2' }]);
    expect(second.usage).toMatchObject({ input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 });
  });

  it('streams SSE events that finalMessage() rebuilds into the non-streaming message', async () => {
    const long = 'This text is long enough to be split over several text_delta events by the server 🇫🇷🙂.';
    const { client } = await start([
      reply([
        thinking('First I think about it, at some length, so thinking_delta is chunked.', 'sig-123'),
        text(long),
        toolUse('calc', { expression: '68606000 * 0.15', nested: { list: [1, 2, 3], s: 'é"\\' } }),
        toolUse('search', {}),
      ]),
    ]);
    const body = base([user('go')]);
    const plain = await client.messages.create(body);
    // The SDK's stream helper adds `parsed_output` (structured outputs) on its own: not part of the wire message.
    const { parsed_output, ...streamed } = (await client.messages.stream(body).finalMessage()) as any;
    expect(parsed_output).toBeNull();
    expect(streamed).toEqual(plain);
    expect(JSON.parse(JSON.stringify(streamed))).toEqual(JSON.parse(JSON.stringify(plain)));

    const events: any[] = [];
    for await (const event of await client.messages.create({ ...body, stream: true })) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(events[0].message).toMatchObject({ content: [], stop_reason: null });
    const deltas = new Set(events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.type));
    expect(deltas).toEqual(new Set(['thinking_delta', 'signature_delta', 'text_delta', 'input_json_delta']));
    expect(events.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta').length).toBeGreaterThan(1);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: plain.usage.output_tokens } });
  });
});

describe('conformance', () => {
  // A valid tool turn to build the bad conversations from.
  const turn1 = [toolUseParam('toolu_a'), toolUseParam('toolu_b')];
  const cases: Array<[string, unknown, string]> = [
    ['missing model', { max_tokens: 10, messages: [user('hi')] }, 'model: Field required'],
    ['empty model', { model: '', max_tokens: 10, messages: [user('hi')] }, 'model: String should have at least 1 character'],
    ['missing max_tokens', { model: 'm', messages: [user('hi')] }, 'max_tokens: Field required'],
    ['max_tokens 0', { model: 'm', max_tokens: 0, messages: [user('hi')] }, 'greater than or equal to 1'],
    ['no messages', { model: 'm', max_tokens: 10, messages: [] }, 'at least one message'],
    ['first message from the assistant', { model: 'm', max_tokens: 10, messages: [assistant('hi'), user('x')] }, 'first message must use the "user" role'],
    ['tool_use without results', base([user('go'), assistant(turn1), user('where are they?')]), 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b'],
    ['results not first', base([user('go'), assistant(turn1), user([{ type: 'text', text: 'here' }, toolResult('toolu_a'), toolResult('toolu_b')])]), 'immediately after: toolu_a, toolu_b'],
    ['results split over messages', base([user('go'), assistant(turn1), user([toolResult('toolu_a')]), user([toolResult('toolu_b')])]), 'immediately after: toolu_b'],
    ['unknown tool_use_id', base([user('go'), assistant(turn1), user([toolResult('toolu_a'), toolResult('toolu_b'), toolResult('toolu_zzz')])]), 'unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz'],
    ['tool_result without a tool_use', base([user([toolResult('toolu_a')])]), 'unexpected `tool_use_id`'],
    ['tool blocks without tools', { ...base([user('go'), assistant([toolUseParam('toolu_a')]), user([toolResult('toolu_a')])]), tools: undefined }, 'Requests which include `tool_use` or `tool_result` blocks must define tools.'],
    ['tool blocks with empty tools', { ...base([user('go'), assistant([toolUseParam('toolu_a')]), user([toolResult('toolu_a')])]), tools: [] }, 'must define tools'],
    ['empty text block', base([user([{ type: 'text', text: '' }])]), 'text content blocks must be non-empty'],
    ['trailing whitespace in the final assistant message', base([user('go'), assistant('partial ')]), 'final assistant content cannot end with trailing whitespace'],
  ];
  it.each(cases)('rejects %s with a 400 invalid_request_error', async (_name, body, message) => {
    const { server, client } = await start([reply([text('never')])]);
    const err = await rejection(client, body);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.apiMessage).toContain(message);
    expect(err.requestID).toMatch(/^req_/);
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' }, request_id: err.requestID });
    expect(server.requests[0].status).toBe(400);
  });

  it('accepts consecutive user messages, tool_choice none, and a final assistant message', async () => {
    const { client } = await start([reply([text('a')]), reply([text('b')])]);
    await expect(client.messages.create(base([user('one'), user('two')]))).resolves.toBeTruthy();
    await expect(client.messages.create({ ...base([user('one')]), tool_choice: { type: 'none' } })).resolves.toBeTruthy();
    const continued = await client.messages.create(base([user('one'), assistant('The answer is')]));
    expect(continued.content).toEqual([{ type: 'text', text: 'b' }]);
  });

  it('rejects an assistant tool turn that is not sent back whole (stricter than the real API)', async () => {
    const { client } = await start([
      reply([thinking('hmm', 'sig'), text('Calculating.'), toolUse('calc', { expression: '1+1' })]),
      reply([text('done')]),
    ]);
    const first = await client.messages.create(base([user('go')]));
    const id = (first.content[2] as { id: string }).id;
    const results = user([toolResult(id, '2')]);
    const dropped = await rejection(client, base([user('go'), assistant(first.content.slice(1) as any), results]));
    expect(dropped).toBeInstanceOf(BadRequestError);
    expect(dropped.apiMessage).toBe('assistant message at messages.1 was modified: the whole content returned by the API must be sent back');
    const edited = first.content.map((b) => (b.type === 'tool_use' ? { ...b, input: { expression: '1+2' } } : b));
    expect(await rejection(client, base([user('go'), assistant(edited as any), results]))).toBeInstanceOf(BadRequestError);
    // The whole turn is accepted, also as params (no citations/caller fields, added cache_control, reordered keys).
    const asParams = first.content.map((b) =>
      b.type === 'tool_use' ? { input: b.input, name: b.name, id: b.id, type: b.type, cache_control: { type: 'ephemeral' as const } } : b,
    );
    const done = await client.messages.create(base([user('go'), assistant(asParams as any), results]));
    expect(done.content).toEqual([{ type: 'text', text: 'done' }]);
  });
});

describe('errors', () => {
  it('maps scripted error turns to the SDK error classes, with headers', async () => {
    const { client } = await start(async (_req, turn) => {
      if (turn === 0) return apiError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '7' });
      if (turn === 1) return apiError(529, 'overloaded_error', 'Overloaded');
      return apiError(401, 'authentication_error', 'invalid x-api-key');
    });
    const limited = await rejection(client, base([user('go')]));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.requestID).toMatch(/^req_/);
    expect(limited.apiMessage).toBe('Number of requests has exceeded your rate limit');
    expect(await rejection(client, base([user('go'), assistant('x')]))).toBeInstanceOf(OverloadedError);
    expect(await rejection(client, base([user('go'), assistant('x'), user('y'), assistant('z')]))).toBeInstanceOf(AuthenticationError);
  });

  it('answers 400 (not retried) naming the script and the turn when it has no such turn, 401 without credentials, 404 elsewhere', async () => {
    const server = await startScriptedModel({ script: [reply([text('only one')])], name: 'the script two.json' });
    servers.push(server);
    const client = new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
    const missing = await rejection(client, base([user('a'), assistant('b'), user('c')]));
    expect(missing).toBeInstanceOf(BadRequestError);
    expect(missing.apiMessage).toContain('scripted model: the script two.json has no turn 1 (it has 1 turn, turn 0)');
    expect(server.requests.at(-1)?.status).toBe(400);

    const noAuth = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify(base([user('a')])) });
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers.get('request-id')).toMatch(/^req_/);
    expect(await noAuth.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' }, request_id: expect.stringMatching(/^req_/) });
    const withKey = await fetch(`${server.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: JSON.stringify(base([user('a')])) });
    expect(withKey.status).toBe(200);
    const notFound = await fetch(`${server.url}/v1/complete`, { method: 'POST', headers: { 'x-api-key': 'k' } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

describe('hold and failTimes', () => {
  it('holds a turn until release(), forgets a disconnected client, then answers retries at once', async () => {
    const { server, client } = await start([{ ...reply([text('released')]), hold: true }]);
    const abort = new AbortController();
    const abandoned = client.messages.create(base([user('go')]), { signal: abort.signal }).catch((e) => e);
    await server.waitForHeld(1);
    abort.abort();
    await abandoned;
    await expect.poll(() => server.requests[0].status).toBe(499);

    let answered = false;
    const pending = client.messages.create(base([user('go')])).then((m) => ((answered = true), m));
    await server.waitForHeld(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    expect(server.requests[1].status).toBeNull();
    server.release();
    expect((await pending).content).toEqual([{ type: 'text', text: 'released' }]);
    expect(server.requests[1].status).toBe(200);
    await expect(client.messages.create(base([user('go')]))).resolves.toBeTruthy();
  });

  it('release(turn) only releases that turn', async () => {
    const { server, client } = await start([{ ...reply([text('zero')]), hold: true }, { ...reply([text('one')]), hold: true }]);
    const zero = client.messages.create(base([user('a')]));
    const one = client.messages.create(base([user('a'), assistant('b'), user('c')]));
    await server.waitForHeld(2);
    server.release(1);
    expect((await one).content).toEqual([{ type: 'text', text: 'one' }]);
    expect(server.requests.find((r) => r.turn === 0)?.status).toBeNull();
    server.release(0);
    expect((await zero).content).toEqual([{ type: 'text', text: 'zero' }]);
  });

  it('failTimes fails n times per turn index, then answers', async () => {
    const { client } = await start([failTimes(2, apiError(529, 'overloaded_error', 'Overloaded'), reply([text('finally')]))]);
    expect(await rejection(client, base([user('go')]))).toBeInstanceOf(OverloadedError);
    expect(await rejection(client, base([user('go')]))).toBeInstanceOf(OverloadedError);
    expect((await client.messages.create(base([user('go')]))).content).toEqual([{ type: 'text', text: 'finally' }]);
  });

  it('failTimes works with the SDK retrying on retry-after-ms', async () => {
    const error = apiError(429, 'rate_limit_error', 'slow down', { 'retry-after-ms': '5' });
    const { server, client } = await start([failTimes(2, error, reply([text('ok')]))], 2);
    expect((await client.messages.create(base([user('go')]))).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(server.requests.map((r) => r.status)).toEqual([429, 429, 200]);
  });
});

describe('reset', () => {
  it('scripts the model anew on the same address: the new script answers, the records, holds and failTimes counts start again, and a request held from before is not answered', async () => {
    const { server, client } = await start([failTimes(1, apiError(529, 'overloaded_error', 'Overloaded'), reply([text('first script')]))]);
    expect(await rejection(client, base([user('go')]))).toBeInstanceOf(OverloadedError);
    expect((await client.messages.create(base([user('go')]))).content).toEqual([{ type: 'text', text: 'first script' }]);
    const { requests } = server;

    server.reset({ script: [{ ...reply([text('held')]), hold: true }] });
    expect(server.requests).toBe(requests);
    expect(server.requests).toEqual([]);
    const abandoned = client.messages.create(base([user('go')])).catch((e: unknown) => e);
    await server.waitForHeld(1);

    server.reset({ script: [failTimes(1, apiError(529, 'overloaded_error', 'Overloaded'), reply([text('second script')]))] });
    expect(await abandoned).toBeInstanceOf(Error);
    expect(server.requests).toEqual([]);
    // The failTimes count of turn 0 started again: the first request fails once more.
    expect(await rejection(client, base([user('go')]))).toBeInstanceOf(OverloadedError);
    expect((await client.messages.create(base([user('go')]))).content).toEqual([{ type: 'text', text: 'second script' }]);
    expect(server.requests.map((r) => r.status)).toEqual([529, 200]);
  });
});

describe('stream shapes', () => {
  it('eventDelayMs spaces the SSE events out; cut ends the connection after N events once, then the turn streams whole', async () => {
    const turn = { ...reply([text('a reply long enough to take several text_delta events to stream')]), eventDelayMs: 40, cut: { afterEvents: 4 } };
    const { server, client } = await start([turn]);
    const seen: number[] = [];
    const cut = client.messages.stream(base([user('go')]));
    cut.on('streamEvent', () => seen.push(Date.now()));
    await expect(cut.finalMessage()).rejects.toThrow();
    // message_start, content_block_start, (ping: not surfaced by the SDK), one text_delta: then the cut.
    expect(seen).toHaveLength(3);
    expect(server.requests[0]).toMatchObject({ stream: true, status: 200, cutAfterEvents: 4 });

    const arrivals: number[] = [];
    const whole = client.messages.stream(base([user('go')]));
    whole.on('streamEvent', () => arrivals.push(Date.now()));
    const message = await whole.finalMessage();
    expect(message.content).toEqual(turn.content);
    expect(server.requests[1].cutAfterEvents).toBeUndefined();
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(30);
  });

  it('holdAfterEvents stops a stream after N events until release(), then sends the rest', async () => {
    const turn = { ...reply([text('a reply long enough to take several text_delta events to stream')]), holdAfterEvents: 3 };
    const { server, client } = await start([turn]);
    let events = 0;
    const stream = client.messages.stream(base([user('go')]));
    stream.on('streamEvent', () => void events++);
    const done = stream.finalMessage();
    // message_start, content_block_start (the ping is not surfaced): then nothing more while held.
    await vi.waitFor(() => expect(events).toBe(2));
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toBe(2);
    expect(server.requests[0].status).toBe(200);
    server.release();
    expect((await done).content).toEqual(turn.content);
    expect(events).toBeGreaterThan(2);
  });

  it('validates eventDelayMs, holdAfterEvents and cut in script files', () => {
    expect(scriptTurnProblem({ ...reply([text('x')]), holdAfterEvents: 1.5 })).toMatch(/holdAfterEvents/);
    expect(scriptTurnProblem({ ...reply([text('x')]), eventDelayMs: -1 })).toMatch(/eventDelayMs/);
    expect(scriptTurnProblem({ ...reply([text('x')]), cut: { afterEvents: 'two' } })).toMatch(/"cut" must be/);
    expect(scriptTurnProblem({ ...reply([text('x')]), cut: { afterEvents: 2, times: 0 } })).toMatch(/cut.times/);
    expect(scriptTurnProblem({ ...reply([text('x')]), eventDelayMs: 5, cut: { afterEvents: 2, times: 3 } })).toBeNull();
  });
});

describe('server tools', () => {
  const search = { type: 'web_search_20260318', name: 'web_search', max_uses: 2 };
  const searchTurn = reply([text('Searching.'), serverToolUse('web_search', { query: 'q' }), webSearchResult([{ url: 'https://a.example/x', title: 'A' }])], 'pause_turn');

  it('answers with server_tool_use and web_search_tool_result blocks, counts the searches, and accepts them sent back', async () => {
    const { client } = await start([searchTurn, reply([text('done')])]);
    const body = { ...base([user('find it')]), tools: [...TOOLS, search] } as MessageCreateParamsNonStreaming;
    const first = await client.messages.create(body);
    expect(first.stop_reason).toBe('pause_turn');
    expect(first.content).toEqual([
      { type: 'text', text: 'Searching.' },
      { type: 'server_tool_use', id: 'srvtoolu_0_1', name: 'web_search', input: { query: 'q' }, caller: { type: 'direct' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_0_1', caller: { type: 'direct' }, content: [expect.objectContaining({ type: 'web_search_result', url: 'https://a.example/x' })] },
    ]);
    expect(first.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
    // Streamed, the same message; sent back as it is after pause_turn, accepted.
    expect(await client.messages.stream(body).finalMessage()).toMatchObject(first);
    const second = await client.messages.create({ ...body, messages: [...body.messages, assistant(first.content as MessageParam['content'])] });
    expect(second.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(second.usage.server_tool_use).toBeNull();
  });

  it.each([
    ['a server tool of an unknown version', [{ type: 'web_search_2026', name: 'web_search' }], /does not match any of the expected tags/],
    ['a web_search definition named otherwise', [{ type: 'web_search_20260318', name: 'search_the_web' }], /name: Input should be 'web_search'/],
    ['max_uses 0', [{ ...search, max_uses: 0 }], /max_uses: Input should be greater than 0/],
    ['allowed and blocked domains at once', [{ ...search, allowed_domains: ['a.com'], blocked_domains: ['b.com'] }], /cannot specify both/],
  ])('rejects %s', async (_name, tools, message) => {
    const { client } = await start([reply([text('x')])]);
    const err = await rejection(client, { ...base([user('go')]), tools });
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toMatch(message);
  });

  it('rejects a server_tool_use in the conversation when that server tool is not defined', async () => {
    const { client } = await start([searchTurn, reply([text('done')])]);
    const first = await client.messages.create({ ...base([user('find it')]), tools: [search] } as MessageCreateParamsNonStreaming);
    const err = await rejection(client, { ...base([user('find it'), assistant(first.content as MessageParam['content'])]), tools: TOOLS });
    expect(err.message).toMatch(/must define the web_search server tool/);
  });
});
