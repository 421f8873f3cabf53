// The embedded server's `level=ERROR … context canceled` lines (a worker stopped while its long poll was open, a
// command ended) say nothing is wrong: they are not forwarded to the user's stderr. Other errors are.
import { describe, expect, it } from 'vitest';
import { isServerLogNoise } from '../../src/devserver/dev-server.js';

describe('the embedded server’s log lines', () => {
  it('drops "context canceled" errors of callers that went away, keeps the rest', () => {
    expect(
      isServerLogNoise(
        'time=2026-12-06T04:50:54.302 level=ERROR msg="Operation failed with internal error." error="GetTaskQueue operation failed. Failed to check if task queue q of type Activity existed. Error: context canceled" error-type=serviceerror.Unavailable operation=GetTaskQueue',
      ),
    ).toBe(true);
    expect(isServerLogNoise('time=2026-12-06T04:50:54.302 level=ERROR msg="Unable to open database" error="disk full"')).toBe(false);
    expect(isServerLogNoise('level=WARN msg="history size exceeds warn limit"')).toBe(false);
  });
});
