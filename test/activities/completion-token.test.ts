import { describe, expect, it } from 'vitest';
import { decodeCompletionToken, encodeCompletionToken } from '../../src/activities/completion-token.js';

describe('completion tokens', () => {
  const target = { workflowId: 'wf-1', runId: 'run-1', activityId: '4', toolUseId: 'toolu_1', taskToken: new Uint8Array([1, 2, 250, 0, 7]) };

  it('carry the task token and the call they complete, and read back the same', () => {
    const token = encodeCompletionToken({ ...target, maxOutputChars: 500, namespace: 'agents' });
    expect(token).toMatch(/^dact1\.[A-Za-z0-9_-]+$/); // one shell word, no quoting needed
    expect(decodeCompletionToken(token)).toEqual({ ...target, maxOutputChars: 500, namespace: 'agents' });
    expect(decodeCompletionToken(` ${token}\n`)).toEqual({ ...target, maxOutputChars: 500, namespace: 'agents' });
    expect(decodeCompletionToken(encodeCompletionToken(target))).toEqual(target); // a token from before the namespace
  });

  it('read nothing from text that is not a whole token', () => {
    const token = encodeCompletionToken(target);
    expect(decodeCompletionToken(token.slice(0, -10))).toBeNull();
    expect(decodeCompletionToken('hello')).toBeNull();
    expect(decodeCompletionToken(`dact1.${Buffer.from('{"workflowId":"x"}').toString('base64url')}`)).toBeNull();
  });
});
