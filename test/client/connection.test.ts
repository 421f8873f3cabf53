// connectClient's two workarounds of @temporalio/client 1.24 (src/client/connection.ts), each with a test that it works
// and a test that the SDK still needs it (when that one fails, the SDK has fixed its side, and the workaround can go):
// - the SDK sets its 128 MB receive limit under a name gRPC does not read, so gRPC's 4 MB applied to every answer.
//   These tests read a history page larger than 4 MB: through connectClient it comes in one answer; through the SDK's
//   own defaults it does not;
// - the SDK's retry timer outlives Connection.close(), and its next attempt throws where no caller can catch it.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { InterceptingCall, ListenerBuilder, RequesterBuilder, type Interceptor } from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectClient, connectionInterceptors, resolveTemporalTarget, withAddress } from '../../src/client/connection.js';
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

/** An address where no server listens: each attempt of a call fails with UNAVAILABLE, which the client retries. */
const NO_SERVER = '127.0.0.1:1';

/** Records each attempt's status code as it reaches the retry interceptor. */
function attemptRecorder(codes: number[]): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(
      nextCall(options),
      new RequesterBuilder()
        .withStart((metadata, listener, next) =>
          next(metadata, new ListenerBuilder().withOnReceiveStatus((status, nextStatus) => (codes.push(status.code), nextStatus(status))).build()),
        )
        .build(),
    );
}

describe('connectClient: a connection closed while a call waits to retry', () => {
  it('fails the call with CANCELLED, saying why, instead of throwing from the retry timer (an uncaught exception)', async () => {
    let onUncaught = (_err: unknown) => {};
    const uncaught = new Promise<never>((_, reject) => (onUncaught = reject));
    process.on('uncaughtException', onUncaught);
    const codes: number[] = [];
    const connection = Connection.lazy({ address: NO_SERVER, interceptors: [...connectionInterceptors(), attemptRecorder(codes)] });
    try {
      const call = connection.workflowService.getSystemInfo({});
      await vi.waitFor(() => expect(codes).toContain(14 /* UNAVAILABLE: retried after a back-off */));
      await connection.close();
      // Without the guard the call never settles: the retry's throw ends up here instead.
      await expect(Promise.race([call, uncaught])).rejects.toMatchObject({
        code: 1 /* CANCELLED */,
        details: expect.stringContaining('the connection was closed before this call, or its next attempt, could be made'),
      });
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it("still needs the guard: with the Temporal client's own interceptors the retry throws, uncaught, after the close", async () => {
    // In a process of its own: the uncaught exception would end this one.
    const script = `
      import { InterceptingCall, ListenerBuilder, RequesterBuilder } from '@grpc/grpc-js';
      import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
      process.on('uncaughtException', (err) => { console.log('uncaught: ' + err.message); process.exit(0); });
      let failed;
      const firstFailure = new Promise((resolve) => (failed = resolve));
      const recorder = (options, nextCall) => new InterceptingCall(nextCall(options), new RequesterBuilder()
        .withStart((metadata, listener, next) => next(metadata, new ListenerBuilder().withOnReceiveStatus((status, nextStatus) => (failed(), nextStatus(status))).build()))
        .build());
      // The SDK's default interceptor (what Connection uses when given none), and the recorder after it, as in the test above.
      const connection = Connection.lazy({ address: '${NO_SERVER}', interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), recorder] });
      connection.workflowService.getSystemInfo({}).then(() => console.log('answered'), (err) => console.log('rejected: ' + err.code));
      await firstFailure;
      await connection.close();
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd() });
    expect(stdout.trim()).toBe('uncaught: Channel has been shut down');
  });
});
