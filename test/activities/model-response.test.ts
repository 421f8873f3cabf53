// What counts as a Messages API reply: the check the model activity runs on every 200 answer.
import { describe, expect, it } from 'vitest';
import { messageShapeProblem, notMessagesApiFailure, streamResponseProblem } from '../../src/activities/model-response.js';

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'hi' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 3, output_tokens: 1 },
};

describe('messageShapeProblem', () => {
  it('accepts a message with content, usage and stop_reason', () => {
    expect(messageShapeProblem(MESSAGE)).toBeNull();
    expect(messageShapeProblem({ ...MESSAGE, stop_reason: null })).toBeNull();
  });

  it('names an HTML page, other text, a non-object and each missing field', () => {
    expect(messageShapeProblem('<!DOCTYPE html><html>…')).toBe('an HTML page');
    expect(messageShapeProblem('  <html><body>')).toBe('an HTML page');
    expect(messageShapeProblem('OK')).toBe('text, not JSON ("OK…")');
    expect(messageShapeProblem([])).toBe('a JSON array, not a message object');
    expect(messageShapeProblem(null)).toBe('a JSON null, not a message object');
    expect(messageShapeProblem({})).toBe('a JSON object without content, usage, stop_reason (its keys: none)');
    expect(messageShapeProblem({ ...MESSAGE, usage: { input_tokens: 1 } })).toMatch(/^a JSON object without usage \(its keys: id, type/);
    expect(messageShapeProblem({ ...MESSAGE, content: 'hi' })).toMatch(/without content/);
  });

  it('makes a non-retryable failure naming the endpoint and ANTHROPIC_BASE_URL', () => {
    const failure = notMessagesApiFailure('an HTML page', 'http://proxy.local');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/^the endpoint http:\/\/proxy\.local did not answer like the Messages API: it sent an HTML page/);
    expect(failure.message).toContain('ANTHROPIC_BASE_URL');
    expect(notMessagesApiFailure('x').message).toContain('https://api.anthropic.com');
  });
});

describe('streamResponseProblem (a streamed call answered with 200)', () => {
  it('accepts an event stream, whatever its charset', () => {
    expect(streamResponseProblem('text/event-stream; charset=utf-8', 'event: message_start\n')).toBeNull();
  });

  it('names an HTML page, an empty JSON object, invalid JSON, and a whole message from an endpoint that does not stream', () => {
    expect(streamResponseProblem('text/html', '<!DOCTYPE html><html>')).toBe('an HTML page');
    expect(streamResponseProblem('application/json', '{}')).toBe('a JSON object without content, usage, stop_reason (its keys: none)');
    expect(streamResponseProblem('application/json', '{"a":')).toBe('invalid JSON ("{"a":…")');
    expect(streamResponseProblem('application/json', JSON.stringify(MESSAGE))).toBe(
      'a whole JSON message instead of an event stream (it does not stream)',
    );
    expect(streamResponseProblem(null, 'hello')).toBe('text, not JSON ("hello…")');
  });
});
