import { describe, expect, it } from 'vitest';
import { canonicalJson, toolCallKey } from '../../src/core/canonical.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 3, e: 4 }] } })).toBe('{"a":{"c":[{"e":4,"f":3}],"d":2},"b":1}');
  });

  it('sorts by code unit, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4 })).toBe('{"B":2,"a":3,"b":1,"é":4}');
  });

  it('compares string values without case and surrounding white space, but keeps inner white space', () => {
    expect(canonicalJson('  Hello World\n')).toBe('"hello world"');
    expect(canonicalJson({ q: ' Paris ' })).toBe(canonicalJson({ q: 'paris' }));
    expect(canonicalJson('a  b')).not.toBe(canonicalJson('a b'));
  });

  it('keeps key case: keys are parameter names', () => {
    expect(canonicalJson({ Query: 'x' })).not.toBe(canonicalJson({ query: 'x' }));
  });

  it('writes numbers, booleans and null as JSON, and does not confuse a number with its string', () => {
    expect(canonicalJson([1, 1.5, -0, 1e21, true, false, null])).toBe('[1,1.5,0,1e+21,true,false,null]');
    expect(canonicalJson({ n: 1 })).not.toBe(canonicalJson({ n: '1' }));
    expect(canonicalJson(Number.NaN)).toBe('null');
  });

  it('keeps array order', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('treats what JSON cannot hold as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: 1 })).toBe('{"c":1}');
    expect(canonicalJson([undefined, Symbol('s')])).toBe('[null,null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(10n)).toBe('10');
  });

  it('escapes keys and strings', () => {
    expect(canonicalJson({ 'a"b': 'C"D\\' })).toBe('{"a\\"b":"c\\"d\\\\"}');
  });

  it('allows a shared (non-cyclic) object twice and refuses a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});

describe('toolCallKey', () => {
  it('gives the same key to the same tool with the same arguments, however written', () => {
    expect(toolCallKey('web_search', { query: 'Temporal Workflows', max_results: 5 })).toBe(
      toolCallKey('web_search', { max_results: 5, query: '  temporal workflows ' }),
    );
  });

  it('tells apart other tools and other arguments', () => {
    const key = toolCallKey('web_search', { query: 'a' });
    expect(toolCallKey('fetch', { query: 'a' })).not.toBe(key);
    expect(toolCallKey('web_search', { query: 'b' })).not.toBe(key);
    expect(toolCallKey('web_search', { query: 'a', page: 2 })).not.toBe(key);
  });

  it('is prefixed by the tool name', () => {
    expect(toolCallKey('calculator', { expression: '1 + 2' })).toMatch(/^calculator:/);
  });
});
