// The finish tool: its input schema (object schemas as they are, others wrapped in `answer`), the output it
// yields, and its validation through the tool layer.
import { describe, expect, it } from 'vitest';
import { outputFromInput, submitAnswerInputSchema, submitAnswerTool } from '../../src/core/finish-tool.js';
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
