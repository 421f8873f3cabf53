// The finish tool: its input schema (object schemas as they are, others wrapped in `answer`), the output it
// yields, and its validation through the tool layer.
import { describe, expect, it } from 'vitest';
import { FINISH_TOOLS_KEPT, outputFromInput, submitAnswerInputSchema, submitAnswerTool } from '../../src/core/finish-tool.js';
import { validateToolInput } from '../../src/tools/validate.js';

const objectSchema = {
  type: 'object',
  properties: { population: { type: 'integer' }, country: { type: 'string' } },
  required: ['population'],
};
const arraySchema = { type: 'array', items: { type: 'string' } };

describe('submitAnswerInputSchema', () => {
  it('keeps an object schema as it is', () => {
    expect(submitAnswerInputSchema(objectSchema)).toEqual(objectSchema);
  });

  it('wraps any other schema in a required `answer` property of an object', () => {
    for (const schema of [arraySchema, { type: 'string' }, { type: 'integer', minimum: 0 }, { enum: ['yes', 'no'] }]) {
      expect(submitAnswerInputSchema(schema)).toEqual({
        type: 'object',
        properties: { answer: schema },
        required: ['answer'],
        additionalProperties: false,
      });
    }
  });

  it('does not change the schema it was given', () => {
    const schema = { type: 'array', items: { type: 'number' } };
    submitAnswerInputSchema(schema);
    expect(schema).toEqual({ type: 'array', items: { type: 'number' } });
  });
});

describe('outputFromInput', () => {
  it('is the input itself for an object schema', () => {
    expect(outputFromInput(objectSchema, { population: 5, country: 'x' })).toEqual({ population: 5, country: 'x' });
  });

  it('unwraps `answer` for a wrapped schema', () => {
    expect(outputFromInput(arraySchema, { answer: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(outputFromInput({ type: 'boolean' }, { answer: false })).toBe(false);
  });
});

describe('the submit_answer tool', () => {
  it('is named submit_answer and says the run ends when the input is valid', () => {
    const tool = submitAnswerTool(objectSchema);
    expect(tool.name).toBe('submit_answer');
    expect(tool.description).toMatch(/run ends/);
  });

  it('accepts input that satisfies the schema and names the violation otherwise', () => {
    const tool = submitAnswerTool(objectSchema);
    expect(validateToolInput(tool, { population: 68_606_000 })).toBeNull();
    expect(validateToolInput(tool, { population: 'many' })).toMatch(/submit_answer.*\/population must be integer/);
    expect(validateToolInput(tool, { country: 'France' })).toMatch(/must have required property 'population'/);
  });

  it('validates a wrapped schema inside `answer`, and refuses the bare value', () => {
    const tool = submitAnswerTool(arraySchema);
    expect(validateToolInput(tool, { answer: ['a'] })).toBeNull();
    expect(validateToolInput(tool, { answer: [1] })).toMatch(/\/answer\/0 must be string/);
    expect(validateToolInput(tool, ['a'])).toMatch(/must be object/);
    expect(validateToolInput(tool, { answer: ['a'], extra: 1 })).toMatch(/additional properties \("extra"\)/);
  });
});

describe('submit_answer across runs on one worker', () => {
  it('two output schemas sharing an $id each validate against their own schema (no collision in a shared Ajv)', () => {
    const id = 'https://example.com/answer.json';
    const numbers = { $id: id, type: 'object', properties: { value: { type: 'number' } }, required: ['value'] };
    const words = { $id: id, type: 'object', properties: { value: { type: 'string' } }, required: ['value'] };
    const first = submitAnswerTool(numbers);
    const second = submitAnswerTool(words);
    expect(validateToolInput(first, { value: 42 })).toBeNull();
    expect(validateToolInput(second, { value: 'forty-two' })).toBeNull();
    expect(validateToolInput(second, { value: 42 })).toBe('Invalid input for tool "submit_answer": /value must be string');
    expect(validateToolInput(first, { value: 'forty-two' })).toBe('Invalid input for tool "submit_answer": /value must be number');
  });

  it('the same $id in two wrapped (non-object) schemas works too', () => {
    const a = submitAnswerTool({ $id: 'urn:answer', type: 'integer' });
    const b = submitAnswerTool({ $id: 'urn:answer', type: 'boolean' });
    expect(validateToolInput(a, { answer: 3 })).toBeNull();
    expect(validateToolInput(b, { answer: true })).toBeNull();
    expect(validateToolInput(b, { answer: 3 })).toMatch(/\/answer must be boolean/);
  });

  it('keeps the finish tools of the most recent FINISH_TOOLS_KEPT schemas: a recent one is reused, the oldest is rebuilt', () => {
    const schemaNo = (n: number) => ({ type: 'object', properties: { [`field${n}`]: { type: 'number' } } });
    const oldest = submitAnswerTool(schemaNo(0));
    for (let n = 1; n <= FINISH_TOOLS_KEPT; n++) submitAnswerTool(schemaNo(n));
    const recent = submitAnswerTool(schemaNo(FINISH_TOOLS_KEPT));
    expect(submitAnswerTool(schemaNo(FINISH_TOOLS_KEPT))).toBe(recent);
    // Schema 0 was pushed out by FINISH_TOOLS_KEPT newer ones: asking again builds a new tool (same behaviour).
    const again = submitAnswerTool(schemaNo(0));
    expect(again).not.toBe(oldest);
    expect(again).toEqual({ ...oldest, execute: again.execute });
  });
});
