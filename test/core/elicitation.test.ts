import { describe, expect, it } from 'vitest';
import {
  answersAfter,
  checkedAnswer,
  defaultsAnswer,
  elicitationProblem,
  recordedAnswer,
  withElicitationDefaults,
} from '../../src/core/elicitation.js';
import type { ElicitationQuestion } from '../../src/core/types.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, default: 'Ada' },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 36 },
    score: { type: 'number', default: 0.5 },
    subscribe: { type: 'boolean', default: true },
    plan: { type: 'string', enum: ['free', 'pro'], default: 'free' },
    color: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 1 },
  },
  required: ['name', 'email'],
};

const question: ElicitationQuestion = {
  id: 'toolu_1/1',
  toolUseId: 'toolu_1',
  index: 0,
  key: 'k1',
  server: 'fx',
  message: 'Who are you?',
  requestedSchema: schema,
};

describe('elicitation answers', () => {
  it('fills every field the answer leaves out with its default, as SEP-1034 says, and keeps what was given', () => {
    expect(withElicitationDefaults(schema, { email: 'a@b.c', age: 40 })).toEqual({
      name: 'Ada',
      email: 'a@b.c',
      age: 40,
      score: 0.5,
      subscribe: true,
      plan: 'free',
    });
  });

  it('names the first problem of an answer that does not fit the schema, in one line', () => {
    const ok = withElicitationDefaults(schema, { email: 'a@b.c' });
    expect(elicitationProblem(schema, ok)).toBeNull();
    expect(elicitationProblem(schema, { name: 'Ada' })).toBe('missing required field "email"');
    expect(elicitationProblem(schema, { ...ok, age: 1.5 })).toBe('"age" must be a whole number, not 1.5');
    expect(elicitationProblem(schema, { ...ok, age: 200 })).toBe('"age" must be at most 150');
    expect(elicitationProblem(schema, { ...ok, plan: 'gold' })).toBe('"plan" must be one of "free", "pro", not "gold"');
    expect(elicitationProblem(schema, { ...ok, color: 'b' })).toBe('"color" must be one of "r", "g", not "b"');
    expect(elicitationProblem(schema, { ...ok, email: 'nope' })).toBe('"email" must be an email address, not "nope"');
    expect(elicitationProblem(schema, { ...ok, name: 'A' })).toBe('"name" must be at least 2 characters');
    expect(elicitationProblem(schema, { ...ok, subscribe: 'yes' })).toBe('"subscribe" must be true or false, not "yes"');
    expect(elicitationProblem(schema, { ...ok, tags: ['a', 'b'] })).toBe('"tags" takes at most 1 item(s)');
    expect(elicitationProblem(schema, { ...ok, tags: ['c'] })).toBe('"tags" has "c", which is not one of "a", "b"');
    expect(elicitationProblem(schema, { ...ok, extra: 1 })).toMatch(/^"extra" is not a field of the question/);
    expect(elicitationProblem(schema, [])).toBe('the answer must be a JSON object');
  });

  it('checks a person\'s answer: accept gets the defaults, decline and cancel carry no content, anything else is refused', () => {
    expect(checkedAnswer(question, 'accept', { email: 'a@b.c' })).toEqual({
      key: 'k1',
      action: 'accept',
      content: { name: 'Ada', email: 'a@b.c', age: 36, score: 0.5, subscribe: true, plan: 'free' },
    });
    expect(checkedAnswer(question, 'decline', { ignored: true })).toEqual({ key: 'k1', action: 'decline' });
    expect(checkedAnswer(question, 'cancel', undefined)).toEqual({ key: 'k1', action: 'cancel' });
    expect(() => checkedAnswer(question, 'accept', {})).toThrow('the answer to toolu_1/1 does not match the requested schema: missing required field "email"');
    expect(() => checkedAnswer(question, 'maybe', {})).toThrow('unknown action "maybe": give accept (with content), decline or cancel');
    expect(() => checkedAnswer(question, 'accept', 'text')).toThrow(/must be a JSON object of the fields name, email/);
  });

  it('accept-defaults accepts with the defaults when they fill the required fields, and declines otherwise', () => {
    expect(defaultsAnswer({ type: 'object', properties: { n: { type: 'number', default: 2 } }, required: ['n'] })).toEqual({ action: 'accept', content: { n: 2 } });
    expect(defaultsAnswer(schema)).toEqual({ action: 'decline' });
  });

  it('gives a repeated request the answer recorded at its place only when it asks the same question', () => {
    const answers = [{ key: 'k1', action: 'decline' as const }];
    expect(recordedAnswer(answers, 0, 'k1')).toEqual(answers[0]);
    expect(recordedAnswer(answers, 0, 'other')).toBeUndefined();
    expect(recordedAnswer(answers, 1, 'k1')).toBeUndefined();
    expect(answersAfter(answers, 1, { key: 'k2', action: 'cancel' })).toEqual([...answers, { key: 'k2', action: 'cancel' }]);
    expect(answersAfter(answers, 0, { key: 'k3', action: 'cancel' })).toEqual([{ key: 'k3', action: 'cancel' }]);
  });
});
