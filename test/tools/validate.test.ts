import { describe, expect, it, vi } from 'vitest';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/types.js';
import { validateJsonSchema, validateToolInput } from '../../src/tools/validate.js';
import { watchNativeRegExp } from '../helpers/native-regexp.js';

const enumTool = defineTool<{ unit: string }>({
  name: 'convert',
  description: 'test tool',
  inputSchema: {
    type: 'object',
    properties: { unit: { enum: ['km', 'mi'] } },
    required: ['unit'],
    additionalProperties: false,
  },
  execute: async () => 'ok',
});

describe('validateToolInput', () => {
  it('checks the formats JSON Schema defines (uri, date-time) instead of ignoring them with a warning', () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const fetcher = defineTool<{ url: string; at?: string }>({
        name: 'fetch_page',
        description: 'test tool',
        inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'date-time' } }, required: ['url'] },
        execute: async () => 'ok',
      });
      expect(validateToolInput(fetcher, { url: 'https://example.com/a', at: '2026-12-01T10:00:00Z' })).toBeNull();
      expect(validateToolInput(fetcher, { url: 'not a uri' })).toMatch(/url must match format "uri"/);
      expect(validateToolInput(fetcher, { url: 'https://example.com', at: 'yesterday' })).toMatch(/at must match format "date-time"/);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('returns null for valid input', () => {
    expect(validateToolInput(calculator, { expression: '1 + 1' })).toBeNull();
  });

  it('names the path and the problem for a value of the wrong type', () => {
    expect(validateToolInput(calculator, { expression: 42 })).toBe(
      'Invalid input for tool "calculator": /expression must be string',
    );
  });

  it('reports a missing required property', () => {
    expect(validateToolInput(calculator, {})).toBe(
      `Invalid input for tool "calculator": must have required property 'expression'`,
    );
  });

  it('reports every problem at once, separated by semicolons', () => {
    const message = validateToolInput(calculator, { expr: '1' });
    expect(message).toBe(
      `Invalid input for tool "calculator": must have required property 'expression'; ` +
        `must NOT have additional properties ("expr")`,
    );
  });

  it('lists the allowed values of an enum', () => {
    expect(validateToolInput(enumTool, { unit: 'yards' })).toBe(
      'Invalid input for tool "convert": /unit must be equal to one of the allowed values: ["km","mi"]',
    );
  });

  it('rejects input that is not an object', () => {
    expect(validateToolInput(calculator, null)).toBe('Invalid input for tool "calculator": must be object');
    expect(validateToolInput(calculator, 'sqrt(2)')).toBe('Invalid input for tool "calculator": must be object');
  });

  it('gives the same answer on repeated calls with the cached validator', () => {
    const first = validateToolInput(calculator, { expression: 1 });
    expect(validateToolInput(calculator, { expression: 1 })).toBe(first);
    expect(validateToolInput(calculator, { expression: '1' })).toBeNull();
  });
});

describe('validateJsonSchema', () => {
  it('accepts a schema that compiles', () => {
    expect(validateJsonSchema({ type: 'object', properties: { answer: { type: 'number' } } })).toBeNull();
    expect(validateJsonSchema(true)).toBeNull();
  });

  it('accepts the same schema with an $id twice', () => {
    const schema = { $id: 'https://example.com/answer.json', type: 'object' };
    expect(validateJsonSchema(schema)).toBeNull();
    expect(validateJsonSchema(schema)).toBeNull();
  });

  it('reports a schema that does not compile', () => {
    expect(validateJsonSchema({ type: 'nonsense' })).toMatch(/^Invalid JSON Schema: /);
    expect(validateJsonSchema({ $ref: '#/definitions/missing' })).toMatch(/^Invalid JSON Schema: .*missing/);
  });

  it('reports a value that is not a schema at all', () => {
    expect(validateJsonSchema('{"type":"object"}')).toBe('A JSON Schema must be an object or a boolean, got string');
    expect(validateJsonSchema(null)).toBe('A JSON Schema must be an object or a boolean, got null');
    expect(validateJsonSchema([])).toBe('A JSON Schema must be an object or a boolean, got an array');
  });
});

describe('tools whose schemas share an $id', () => {
  it('each validates against its own schema', () => {
    const $id = 'https://example.com/input.json';
    const byId = defineTool<{ id: number }>({
      name: 'by_id',
      description: 'test tool',
      inputSchema: { $id, type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      execute: async () => 'ok',
    });
    const byName = defineTool<{ name: string }>({
      name: 'by_name',
      description: 'test tool',
      inputSchema: { $id, type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute: async () => 'ok',
    });
    expect(validateToolInput(byId, { id: 1 })).toBeNull();
    expect(validateToolInput(byName, { name: 'x' })).toBeNull();
    expect(validateToolInput(byName, { id: 1 })).toBe(`Invalid input for tool "by_name": must have required property 'name'`);
  });

  it('each resolves a $ref to its own nested $id, whichever was compiled first', () => {
    const nested = (type: string) => ({
      $id: 'https://example.com/outer.json',
      type: 'object' as const,
      properties: { value: { $ref: 'value.json' } },
      definitions: { value: { $id: 'value.json', type } },
      required: ['value'],
    });
    const numbers = defineTool<{ value: number }>({ name: 'numbers', description: 'test tool', inputSchema: nested('number'), execute: async () => 'ok' });
    const strings = defineTool<{ value: string }>({ name: 'strings', description: 'test tool', inputSchema: nested('string'), execute: async () => 'ok' });
    expect(validateToolInput(numbers, { value: 1 })).toBeNull();
    expect(validateToolInput(strings, { value: 'x' })).toBeNull();
    expect(validateToolInput(strings, { value: 1 })).toMatch(/must be string/);
    expect(validateToolInput(numbers, { value: 'x' })).toMatch(/must be number/);
  });

  it('still holds once the shared compiler has been replaced (it is, every 100 schemas)', () => {
    for (let i = 0; i < 150; i++) expect(validateJsonSchema({ $id: 'https://example.com/same.json', type: 'object', properties: { [`p${i}`]: { type: 'number' } } })).toBeNull();
    const late = defineTool<{ id: number }>({
      name: 'late',
      description: 'test tool',
      inputSchema: { $id: 'https://example.com/same.json', type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      execute: async () => 'ok',
    });
    expect(validateToolInput(late, { id: 'one' })).toMatch(/must be number/);
  });
});

describe('patterns run on a linear-time engine', () => {
  const hostile = defineTool<{ s: string }>({
    name: 'match',
    description: 'test tool',
    inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] },
    execute: async () => 'ok',
  });

  it('checks a pattern with nested quantifiers against a string that backtracks exponentially, never on JavaScript\'s backtracking engine', () => {
    // Which engine ran it, not how long it took: JavaScript's own RegExp never sees the pattern.
    const native = watchNativeRegExp();
    try {
      // 28 a's and a "!": about 2^28 steps on a backtracking engine, seconds of a frozen event loop (32: minutes). Not
      // more: should the engine ever backtrack again, this test must fail, not hang the suite.
      expect(validateToolInput(hostile, { s: `${'a'.repeat(28)}!` })).toBe('Invalid input for tool "match": /s must match pattern "^(a+)+$"');
      expect(validateToolInput(hostile, { s: 'aaaa' })).toBeNull();
    } finally {
      native.restore();
    }
    // Checked on the way: the watch sees what the native engine runs.
    expect(native.sources.has('^(a+)+$')).toBe(false);
  });

  it('keeps the JavaScript pattern syntax schemas use: classes, escapes, Unicode properties, patternProperties', () => {
    const tool = defineTool<Record<string, string>>({
      name: 'ids',
      description: 'test tool',
      inputSchema: {
        type: 'object',
        properties: { phone: { type: 'string', pattern: '^\\d{3}-\\d{4}$' }, word: { type: 'string', pattern: '^\\p{L}+$' } },
        patternProperties: { '^x-[a-z]+$': { type: 'string' } },
      },
      execute: async () => 'ok',
    });
    expect(validateToolInput(tool, { phone: '555-1234', word: 'café', 'x-tag': 'a' })).toBeNull();
    expect(validateToolInput(tool, { phone: '5551234' })).toMatch(/\/phone must match pattern/);
    expect(validateToolInput(tool, { word: 'abc1' })).toMatch(/\/word must match pattern/);
    expect(validateToolInput(tool, { 'x-tag': 1 })).toMatch(/\/x-tag must be string/);
  });

  it('refuses a schema whose pattern needs backtracking (lookaround, a backreference), naming the pattern', () => {
    expect(validateJsonSchema({ type: 'string', pattern: '^(?=a)a+$' })).toMatch(
      /^Invalid JSON Schema: pattern "\^\(\?=a\)a\+\$" cannot run on the linear-time regex engine \(.*\); patterns may not use lookaround or backreferences$/,
    );
    expect(validateJsonSchema({ type: 'string', pattern: '(a)\\1' })).toMatch(/cannot run on the linear-time regex engine/);
  });
});
