// buildModelRequest: the Messages API request of one model call, built at the edge from the transcript.
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { buildModelRequest, requestBetas, withCacheBreakpoint } from '../../src/activities/request.js';
import type { MessageParam, ModelCallInput } from '../../src/core/types.js';

const input = (i: Partial<ModelCallInput> = {}): ModelCallInput => ({
  transcript: { workflowId: 'wf', runId: 'run', messageCount: 1 },
  model: 'claude-sonnet-5-5',
  maxOutputTokens: 1024,
  tools: [],
  promptCaching: false,
  ...i,
});

const calculatorDef: Anthropic.Tool = {
  name: 'calculator',
  description: 'maths',
  input_schema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
};

const afterToolTurn: MessageParam[] = [
  { role: 'user', content: 'What is 6 * 7?' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Computing.', citations: null },
      { type: 'tool_use', id: 'toolu_1', name: 'calculator', input: { expression: '6 * 7' } },
    ],
  } as MessageParam,
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '42' },
    ],
  },
];

const countCacheControl = (value: unknown) => (JSON.stringify(value).match(/"cache_control"/g) ?? []).length;

describe('buildModelRequest', () => {
  it('sends the model, max_tokens and messages, and nothing it was not asked for', () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'hi' }];
    expect(buildModelRequest(input(), messages, [])).toEqual({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages });
  });

  it('adds the system prompt and the tool definitions', () => {
    const request = buildModelRequest(input({ system: 'be brief' }), [{ role: 'user', content: 'hi' }], [calculatorDef]);
    expect(request.system).toBe('be brief');
    expect(request.tools).toEqual([calculatorDef]);
    expect(request.tool_choice).toBeUndefined();
  });

  it('toolChoiceNone sets tool_choice none and keeps the tool definitions', () => {
    const request = buildModelRequest(input({ toolChoiceNone: true }), afterToolTurn, [calculatorDef]);
    expect(request.tool_choice).toEqual({ type: 'none' });
    expect(request.tools).toEqual([calculatorDef]);
  });

  it('toolChoiceNone with no tool at all sends no tool_choice', () => {
    const request = buildModelRequest(input({ toolChoiceNone: true }), [{ role: 'user', content: 'hi' }], []);
    expect(request.tool_choice).toBeUndefined();
    expect(request.tools).toBeUndefined();
  });

  it('effort becomes output_config.effort, thinkingBudget becomes thinking enabled with budget_tokens', () => {
    const request = buildModelRequest(input({ effort: 'high', thinkingBudget: 2048 }), [{ role: 'user', content: 'hi' }], []);
    expect(request.output_config).toEqual({ effort: 'high' });
    expect(request.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const plain = buildModelRequest(input(), [{ role: 'user', content: 'hi' }], []);
    expect(plain).not.toHaveProperty('output_config');
    expect(plain).not.toHaveProperty('thinking');
  });

  it('an output schema adds submit_answer after the run tools, an object schema as it is', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const request = buildModelRequest(input({ outputSchema: schema }), [{ role: 'user', content: 'hi' }], [calculatorDef]);
    expect(request.tools?.map((t) => (t as Anthropic.Tool).name)).toEqual(['calculator', 'submit_answer']);
    expect((request.tools?.[1] as Anthropic.Tool).input_schema).toEqual(schema);
  });

  it('an output schema that is not an object is wrapped in an answer property, even with no other tool', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const request = buildModelRequest(input({ outputSchema: schema }), [{ role: 'user', content: 'hi' }], []);
    expect(request.tools).toHaveLength(1);
    expect((request.tools?.[0] as Anthropic.Tool).input_schema).toEqual({
      type: 'object',
      properties: { answer: schema },
      required: ['answer'],
      additionalProperties: false,
    });
  });
});

describe('prompt caching', () => {
  it('on: the last block of the last message, and only it, carries cache_control ephemeral', () => {
    const request = buildModelRequest(input({ promptCaching: true, system: 'sys' }), afterToolTurn, [calculatorDef]);
    const last = request.messages[request.messages.length - 1].content as unknown as Array<Record<string, unknown>>;
    expect(last[last.length - 1]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '42', cache_control: { type: 'ephemeral' } });
    expect(countCacheControl(request)).toBe(1);
  });

  it('on: a string task becomes one text block with cache_control', () => {
    const request = buildModelRequest(input({ promptCaching: true }), [{ role: 'user', content: 'the task' }], []);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'the task', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('off: no cache_control anywhere', () => {
    const request = buildModelRequest(input({ promptCaching: false, system: 'sys' }), afterToolTurn, [calculatorDef]);
    expect(countCacheControl(request)).toBe(0);
    expect(request.messages).toBe(afterToolTurn);
  });

  it('never rewrites the transcript it was given', () => {
    const before = JSON.stringify(afterToolTurn);
    buildModelRequest(input({ promptCaching: true }), afterToolTurn, [calculatorDef]);
    expect(JSON.stringify(afterToolTurn)).toBe(before);
    expect(countCacheControl(afterToolTurn)).toBe(0);
  });

  it('leaves a turn that ends in a thinking block unmarked, and an empty transcript as it is', () => {
    const endsInThinking: MessageParam[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }] },
    ];
    expect(countCacheControl(withCacheBreakpoint(endsInThinking))).toBe(0);
    expect(withCacheBreakpoint([])).toEqual([]);
  });
});

describe('server tools in the request', () => {
  it('adds the newest web_search, web_fetch and code_execution definitions after the client tools, with their options', () => {
    const serverTools = { tools: ['web_search', 'web_fetch', 'code_execution'] as const, webSearchMaxUses: 5, blockedDomains: ['example.com'] };
    const request = buildModelRequest(input({ serverTools: { ...serverTools, tools: [...serverTools.tools] } }), afterToolTurn, [calculatorDef]);
    expect(request.tools).toEqual([
      calculatorDef,
      { type: 'web_search_20260318', name: 'web_search', max_uses: 5, blocked_domains: ['example.com'] },
      { type: 'web_fetch_20260318', name: 'web_fetch', blocked_domains: ['example.com'] },
      { type: 'code_execution_20260521', name: 'code_execution' },
    ]);
  });

  it('refuses, without retry, a client tool with the name of a server tool (tool names must be unique)', () => {
    const webSearchStub: Anthropic.Tool = { name: 'web_search', input_schema: { type: 'object' } };
    expect(() => buildModelRequest(input({ serverTools: { tools: ['web_search'] } }), afterToolTurn, [webSearchStub])).toThrow(
      expect.objectContaining({ type: 'ToolNameConflict', nonRetryable: true, message: expect.stringMatching(/leave web_search out of --tools/) }),
    );
  });

  it('sends no server tool without the setting', () => {
    expect(buildModelRequest(input(), afterToolTurn, [calculatorDef]).tools).toEqual([calculatorDef]);
  });
});

describe('compaction and the task budget in the request', () => {
  const compacted: MessageParam[] = [
    { role: 'user', content: 'task' },
    { role: 'assistant', content: [{ type: 'compaction', content: 'summary', encrypted_content: null }, { type: 'text', text: 'go on', citations: null }] } as never,
    { role: 'user', content: 'next' },
  ];

  it('asks for compaction at the trigger and sends the conversation from the last compaction block', () => {
    const request = buildModelRequest(input({ compactAt: 30_000 }), compacted, []) as Record<string, unknown>;
    expect(request.context_management).toEqual({ edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 30_000 } }] });
    expect((request.messages as MessageParam[]).slice(1)).toEqual(compacted.slice(1));
    expect(requestBetas({ compactAt: 30_000 })).toEqual(['compact-2026-01-12']);
  });

  it('without compaction, sends everything and asks for nothing', () => {
    const request = buildModelRequest(input(), compacted, []) as Record<string, unknown>;
    expect(request).not.toHaveProperty('context_management');
    expect(request.messages).toEqual(compacted);
    expect(requestBetas({})).toEqual([]);
  });

  it('a client-side summary replaces the messages before its index', () => {
    const request = buildModelRequest(input({ clientSummary: { summary: 'all so far', messageIndex: 2 } }), compacted, []);
    expect(request.messages).toHaveLength(2);
    expect(request.messages[0]).toMatchObject({ role: 'user', content: expect.stringContaining('all so far') });
    expect(request.messages[1]).toEqual(compacted[2]);
  });

  it('the task budget goes in output_config next to effort, with its beta', () => {
    const request = buildModelRequest(input({ effort: 'low', taskBudget: { total: 9_000, remaining: 4_000 } }), compacted, []);
    expect(request.output_config).toEqual({ effort: 'low', task_budget: { type: 'tokens', total: 9_000, remaining: 4_000 } });
    expect(requestBetas({ taskBudget: { total: 9_000, remaining: 4_000 }, compactAt: 5_000 })).toEqual(['compact-2026-01-12', 'task-budgets-2026-03-13']);
  });
});
