// The reachability probe a command asks before it connects: a server that is slow to answer (a busy machine: 100
// `start`s at once on 2 cores) is not called down after one 3 s round trip, while nothing listening is "down" at once.
// The slow server is the real dev server behind a proxy that leaves the first connection unanswered.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isServerReachable } from '../../src/devserver/dev-server.js';
import { findFreePort } from '../../src/devserver/ports.js';
import { probeServer } from '../../src/cli/reachability.js';
import { testServerAddress } from '../helpers/test-server.js';

interface Proxy {
  address: string;
  /** Connections that sent something so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP proxy to `target` that leaves the first `silent` connections that send something (gRPC round trips, not
 * the probe's bare TCP check) unanswered. */
async function slowProxy(target: string, silent: number): Promise<Proxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  let talking = 0;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.once('data', (first) => {
      if (talking++ < silent) return; // read, never answered: the round trip times out
      const upstream = net.connect({ host, port });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      upstream.write(first);
      client.pipe(upstream).pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${own}`,
    connections: () => talking,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

describe('probeServer', () => {
  it('finds a server that answers only after its first attempt timed out (one fixed round trip calls it down)', async () => {
    proxy = await slowProxy(testServerAddress(), 1);
    // What the CLI did: one round trip with a fixed deadline.
    expect(await isServerReachable(proxy.address, 500)).toBe(false);
    await proxy.close();

    proxy = await slowProxy(testServerAddress(), 1);
    const started = Date.now();
    expect(await probeServer(proxy.address, { attemptMs: 500, budgetMs: 10_000 })).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(proxy.connections()).toBeGreaterThanOrEqual(2);
  });

  // A budget far beyond the test's timeout: waiting it out (or one attempt's timeout) would fail the test.
  const LONG = { attemptMs: 10 * 60_000, budgetMs: 60 * 60_000 };

  it('calls an address where nothing listens down at once, without waiting out the budget', async () => {
    const port = await findFreePort();
    expect(await probeServer(`127.0.0.1:${port}`, LONG)).toBe(false);
  });

  it('gives up at once on something that answers, but not as a Temporal server', async () => {
    const sockets = new Set<net.Socket>();
    const http = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    let connections = 0;
    http.on('connection', () => connections++);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as net.AddressInfo;
      expect(await probeServer(`127.0.0.1:${port}`, LONG)).toBe(false);
      // One look was enough: no second attempt.
      expect(connections).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('gives up on something that accepts connections but never answers once the budget is spent', async () => {
    proxy = await slowProxy(testServerAddress(), Number.POSITIVE_INFINITY);
    const started = Date.now();
    expect(await probeServer(proxy.address, { attemptMs: 300, budgetMs: 1_500 })).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(proxy.connections()).toBeGreaterThanOrEqual(2);
  });
});
