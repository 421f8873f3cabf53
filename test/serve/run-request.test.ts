import { describe, expect, it } from 'vitest';
import { parseRunRequest, RequestError } from '../../src/serve/run-request.js';

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
  it('takes the settings by the names the library gives them; null is the default', () => {
    expect(parseRunRequest({ task: 'x', id: 'job-1', maxSteps: 5, budgetTokens: 1000, approve: ['calculator'], chat: true, promptCaching: false, model: null })).toEqual({
      task: 'x',
      id: 'job-1',
      values: { maxSteps: 5, budgetTokens: 1000, approve: ['calculator'], chat: true, promptCaching: false },
    });
  });

  it('refuses wrong types and values with the library’s words, naming the field', () => {
    expect(error({ task: 'x', maxSteps: 10_001 })).toEqual({ field: 'maxSteps', message: 'maxSteps must be at most 10000 (got 10001)', status: 400 });
    expect(error({ task: 'x', effort: 'max!' }).message).toMatch(/^effort must be one of /);
    expect(error({ task: 'x', tools: 'calculator,web_search' })).toMatchObject({ field: 'tools', message: 'tools must be an array of strings (got "calculator,web_search")' });
    expect(error({ task: 'x', chat: 'yes' })).toMatchObject({ field: 'chat', message: 'chat must be true or false (got "yes")' });
    expect(error({ task: 'x', deadlineMs: '30m' })).toMatchObject({ field: 'deadlineMs', message: 'deadlineMs must be a number of milliseconds (got "30m")' });
    expect(error({ task: 'x', id: 'has space' })).toMatchObject({ field: 'id' });
    expect(error([])).toMatchObject({ message: 'the body must be a JSON object: { "task": "..." }' });
  });

  it('takes no field that is not a setting (taskFile, config), nor one the library alone sets (searchAttributes)', () => {
    for (const field of ['taskFile', 'config', 'json', 'searchAttributes']) {
      expect(error({ task: 'x', [field]: '/etc/passwd' })).toMatchObject({ field, status: 400, message: expect.stringMatching(/^unknown field/) });
    }
    expect(error({ task: 'x', maxStep: 3 }).message).toBe('unknown field "maxStep" (did you mean "maxSteps"?)');
    // prices and an output schema are JSON in the body, never a file of the server's.
    expect(error({ task: 'x', prices: '/etc/passwd' })).toMatchObject({ field: 'prices', message: 'prices must be an object (got "/etc/passwd")' });
  });

  it('refuses a task over one payload with 413', () => {
    expect(error({ task: 'x'.repeat(1_900_000) })).toMatchObject({ field: 'task', status: 413 });
  });
});
