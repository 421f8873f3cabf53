// connectClient's one workaround of an SDK default (src/client/connection.ts): @temporalio/client 1.24 sets its
// 128 MB receive limit under a name gRPC does not read, so gRPC's 4 MB applied to every answer. These tests read a
// history page larger than 4 MB: through connectClient it comes in one answer; through the SDK's own defaults it does
// not. When the second test fails, the SDK has fixed its default, and the workaround can go.
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, resolveTemporalTarget, withAddress } from '../../src/client/connection.js';
import { useTestEnv } from '../helpers/harness.js';
import { testServerAddress } from '../helpers/test-server.js';

const env = useTestEnv();
const SIGNALS = 10;
const SIGNAL_CHARS = 460_000; // under the server's 512 KB payload warning; ten of them are over gRPC's 4 MB

let workflowId: string;
beforeAll(async () => {
  workflowId = `large-history-${randomUUID()}`;
  // No worker serves this queue: the run stays open, with its signals in its history.
  const handle = await env.client.workflow.start('noWorkerServesThis', { taskQueue: `none-${randomUUID()}`, workflowId });
  for (let i = 0; i < SIGNALS; i++) await handle.signal('big', `${i}`.padEnd(SIGNAL_CHARS, 'x'));
});
afterAll(async () => {
  await env.client.workflow.getHandle(workflowId).terminate('test over');
});

/** One history page of the whole run (the server's default page of up to 1,000 events). */
function firstPage(connection: Pick<Connection, 'workflowService'>) {
  return connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
}

describe('connectClient: answers larger than gRPC 4 MB default', () => {
  it('reads a history page of more than 4 MB in one answer', async () => {
    const client = await connectClient(withAddress(resolveTemporalTarget({}), testServerAddress()));
    try {
      const page = await firstPage(client.connection);
      const signalled = page.history?.events?.filter((e) => e.workflowExecutionSignaledEventAttributes) ?? [];
      expect(signalled).toHaveLength(SIGNALS);
    } finally {
      await client.connection.close();
    }
  });

  it("still needs the workaround: the Temporal client's own defaults refuse the same page (RESOURCE_EXHAUSTED)", async () => {
    // No retry interceptor: the refusal comes back at once instead of being retried.
    const connection = await Connection.connect({ address: testServerAddress(), interceptors: [] });
    try {
      await expect(firstPage(connection)).rejects.toMatchObject({ code: 8 /* RESOURCE_EXHAUSTED */ });
    } finally {
      await connection.close();
    }
  });
});
