// The pure helpers behind the CLI's robustness: neutralising terminal control sequences, recognising a server
// that cannot be reached (as opposed to one that answered with an error).
import { describe, expect, it } from 'vitest';
import { insideOutageLoop, isServerUnreachable, throughOutage } from '../../src/cli/outage.js';
import { terminalSafe } from '../../src/cli/terminal-text.js';

describe('terminalSafe', () => {
  it('shows ESC, BEL, CR, DEL and C1 controls as visible escapes, keeping newlines, tabs and ordinary Unicode', () => {
    expect(terminalSafe('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(terminalSafe('\u001b]0;title\u0007')).toBe('\\x1b]0;title\\x07');
    expect(terminalSafe('x\u009b31my\u007f')).toBe('x\\x9b31my\\x7f');
    expect(terminalSafe('over\rwrite')).toBe('over\\x0dwrite');
    expect(terminalSafe('line 1\r\nline 2\n\tindented · é ✓ 🙂')).toBe('line 1\nline 2\n\tindented · é ✓ 🙂');
  });
});

describe('isServerUnreachable', () => {
  const grpc = (code: number, message = 'x') => Object.assign(new Error(message), { code });

  it('is true for UNAVAILABLE and DEADLINE_EXCEEDED, also as the cause of a wrapping error, and for refused connections', () => {
    expect(isServerUnreachable(grpc(14))).toBe(true);
    expect(isServerUnreachable(grpc(4))).toBe(true);
    expect(isServerUnreachable(new Error('Failed to get history', { cause: grpc(14) }))).toBe(true);
    expect(isServerUnreachable(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
  });

  it('is false for answers: not found, invalid argument, a failed run, a non-error', () => {
    expect(isServerUnreachable(grpc(5, 'workflow not found'))).toBe(false);
    expect(isServerUnreachable(grpc(3, 'bad request'))).toBe(false);
    expect(isServerUnreachable(new Error('the run failed'))).toBe(false);
    expect(isServerUnreachable('UNAVAILABLE')).toBe(false);
  });
});

describe('throughOutage', () => {
  it('marks the calls it makes (also after an await and on a retry) so the CLI client gives up sooner on a down server; nothing else', async () => {
    expect(insideOutageLoop()).toBe(false);
    const seen: boolean[] = [];
    const value = await throughOutage({ what: 'waiting', address: 'nowhere:1' }, async () => {
      seen.push(insideOutageLoop());
      await Promise.resolve();
      seen.push(insideOutageLoop());
      if (seen.length < 3) throw Object.assign(new Error('down'), { code: 14 });
      return 'answer';
    });
    expect(value).toBe('answer');
    expect(seen).toEqual([true, true, true, true]);
    expect(insideOutageLoop()).toBe(false);
  });
});
