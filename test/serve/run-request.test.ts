import { describe, expect, it } from 'vitest';
import { parseRunRequest, RequestError, runRequestFields } from '../../src/serve/run-request.js';

const error = (body: unknown) => {
  try {
    parseRunRequest(body);
  } catch (err) {
    if (err instanceof RequestError) return { field: err.field, message: err.message, status: err.status };
    throw err;
  }
  throw new Error('accepted');
};

describe('parseRunRequest', () => {
  it('maps camelCase fields onto the flags of `start`', () => {
    expect(parseRunRequest({ task: 'x', id: 'job-1', maxSteps: 5, budgetTokens: 1000, approve: ['calculator'], chat: true, noPromptCache: false, model: null })).toEqual({
      task: 'x',
      id: 'job-1',
      flags: { 'max-steps': 5, 'budget-tokens': 1000, approve: ['calculator'], chat: true },
    });
  });

  it('refuses wrong types and values with the CLI’s sentence, naming the field, not the flag', () => {
    expect(error({ task: 'x', maxSteps: 10_001 })).toEqual({ field: 'maxSteps', message: 'maxSteps must be at most 10000 (got 10001)', status: 400 });
    expect(error({ task: 'x', effort: 'max!' }).message).toMatch(/^effort must be one of /);
    expect(error({ task: 'x', tools: 'calculator,web_search' })).toMatchObject({ field: 'tools' });
    expect(error({ task: 'x', tools: [] })).toMatchObject({ field: 'tools', message: 'tools needs at least one name' });
    expect(error({ task: 'x', chat: 'yes' })).toMatchObject({ field: 'chat', message: 'chat must be true or false (got "yes")' });
    expect(error({ task: 'x', id: 'has space' })).toMatchObject({ field: 'id' });
    expect(error([])).toMatchObject({ message: 'the body must be a JSON object: { "task": "..." }' });
  });

  it('takes no field that names a file of the server (prices, outputSchema, taskFile, config)', () => {
    for (const field of ['prices', 'outputSchema', 'taskFile', 'config', 'json']) {
      expect(error({ task: 'x', [field]: '/etc/passwd' })).toMatchObject({ field, status: 400 });
    }
    expect(runRequestFields().map(([f]) => f)).not.toContain('prices');
  });

  it('refuses a task over one payload with 413', () => {
    expect(error({ task: 'x'.repeat(1_900_000) })).toMatchObject({ field: 'task', status: 413 });
  });
});
