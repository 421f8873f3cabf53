import { describe, expect, it } from 'vitest';
import { LastAssistantText, lastAssistantText } from '../../src/core/transcript.js';
import type { MessageParam } from '../../src/core/types.js';

const assistant = (text: string): MessageParam => ({ role: 'assistant', content: text ? [{ type: 'text', text }] : [{ type: 'tool_use', id: 't', name: 'calculator', input: {} }] } as MessageParam);
const user = (text: string): MessageParam => ({ role: 'user', content: text });

/** A transcript that counts how often its messages are read. */
function counted(messages: MessageParam[]) {
  const reads = { n: 0 };
  const proxy = new Proxy(messages, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) reads.n++;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { proxy, reads };
}

describe('LastAssistantText', () => {
  it('gives what lastAssistantText gives after every append, text-less replies and user messages included', () => {
    const messages: MessageParam[] = [user('task')];
    const kept = new LastAssistantText();
    const turns = [assistant('first'), user('r1'), assistant(''), user('r2'), assistant('second'), assistant(''), user('r3')];
    expect(kept.of(messages)).toBe('');
    for (const m of turns) {
      messages.push(m);
      expect(kept.of(messages)).toBe(lastAssistantText(messages));
    }
    expect(kept.of(messages)).toBe('second');
  });

  it('reads each message once however often it is asked: the live view asks at every step (linear, not quadratic)', () => {
    const { proxy, reads } = counted([user('task')]);
    const kept = new LastAssistantText();
    for (let i = 0; i < 200; i++) {
      proxy.push(assistant(i % 2 ? `text ${i}` : ''), user(`result ${i}`));
      kept.of(proxy);
      kept.of(proxy);
    }
    expect(kept.of(proxy)).toBe('text 199');
    expect(reads.n).toBeLessThanOrEqual(401);
  });

  it('reads a transcript it has not seen (or a shorter one) from the start', () => {
    const kept = new LastAssistantText();
    expect(kept.of([user('a'), assistant('one'), assistant('')])).toBe('one');
    expect(kept.of([user('b')])).toBe('');
    expect(kept.of([user('c'), assistant('two')])).toBe('two');
  });
});
