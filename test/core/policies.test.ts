// The task queues of runs: a run encrypted with a key has its key's queue (`<queue>@<keyId>`), and the key id reads
// back from it.
import { describe, expect, it } from 'vitest';
import { encryptedTaskQueue, keyIdOfTaskQueue } from '../../src/core/policies.js';

describe('task queues of encrypted runs', () => {
  it('are the queue and the key id', () => {
    expect(encryptedTaskQueue('durable-agent', 'k2026')).toBe('durable-agent@k2026');
  });

  it('give their key id back, and nothing for the plain queue, another queue or a malformed id', () => {
    expect(keyIdOfTaskQueue('durable-agent', 'durable-agent@k2026')).toBe('k2026');
    expect(keyIdOfTaskQueue('durable-agent', 'durable-agent')).toBeUndefined();
    expect(keyIdOfTaskQueue('durable-agent', 'other@k2026')).toBeUndefined();
    expect(keyIdOfTaskQueue('durable-agent', 'durable-agent@')).toBeUndefined();
    expect(keyIdOfTaskQueue('durable-agent', 'durable-agent@a b')).toBeUndefined();
  });
});
