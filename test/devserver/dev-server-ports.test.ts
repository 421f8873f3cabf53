// The port race of starting a server on a port found free a moment before: when another process takes a port we
// chose, the dev server dies with "bind: address already in use" and the start is retried on fresh ports; a
// port the caller gave that is in use is an error at once. Real `temporal` processes; the taken port is held
// by a listening socket of this test, handed to the server through the injectable port chooser.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../src/devserver/find-temporal.js';
import { findFreePort, isServerReachable, startDevServer, type DevServer } from '../../src/devserver/dev-server.js';
import { testServerAddress } from '../helpers/test-server.js';

let cliPath: string;
let blocker: net.Server;
let taken: number;
const servers: DevServer[] = [];

beforeAll(async () => {
  cliPath = await findTemporalCli({ allowDownload: false, allowGoBuild: false });
  blocker = net.createServer((sock) => sock.destroy());
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  taken = (blocker.address() as net.AddressInfo).port;
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
afterAll(() => blocker.close());

/** Hands out the taken port first (`times` times), then free ones; records every port it handed out. */
function chooserTakenFirst(times = 1) {
  const handedOut: number[] = [];
  let left = times;
  const choose = async () => {
    const port = left-- > 0 ? taken : await findFreePort();
    handedOut.push(port);
    return port;
  };
  return { choose, handedOut };
}

const retryLine = (port: number | null) =>
  new RegExp(`temporal server start-dev: ${port === null ? 'a port' : `port ${port}`} was taken by another process .*retrying on fresh ports`);

describe('startDevServer when a port it chose is taken before the server binds it', { timeout: 120_000 }, () => {
  it('retries on fresh ports when the gRPC port it chose is taken, logs one line, and comes up on another port', async () => {
    const lines: string[] = [];
    const { choose, handedOut } = chooserTakenFirst();
    const server = await startDevServer({ cliPath, uiPort: false, choosePort: choose, log: (m) => lines.push(m) });
    servers.push(server);
    expect(handedOut[0]).toBe(taken); // the first port chosen was the gRPC port, the taken one
    expect(server.port).not.toBe(taken);
    expect(await isServerReachable(server.address)).toBe(true);
    const retries = lines.filter((l) => /retrying on fresh ports/.test(l));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatch(retryLine(taken));
    expect(retries[0]).toMatch(/\(2\/4\)/);
  });

  it('retries when the HTTP API or metrics port it chose is taken (the caller gave the gRPC port), and the HTTP API answers', async () => {
    const lines: string[] = [];
    const { choose, handedOut } = chooserTakenFirst();
    const port = await findFreePort();
    const server = await startDevServer({ cliPath, port, uiPort: false, choosePort: choose, log: (m) => lines.push(m) });
    servers.push(server);
    expect(handedOut[0]).toBe(taken);
    expect(server.port).toBe(port); // a given port is kept across the retry
    expect(server.httpPort).not.toBeNull();
    expect(server.httpPort).not.toBe(taken);
    expect(lines.filter((l) => retryLine(taken).test(l))).toHaveLength(1);
    const res = await fetch(`http://127.0.0.1:${server.httpPort}/api/v1/namespaces/default`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { namespaceInfo?: { name?: string } }).namespaceInfo?.name).toBe('default');
  });

  it('retries when the gRPC port it chose is held by ANOTHER Temporal server, and comes up on a port of its own', async () => {
    const other = Number(testServerAddress().split(':').pop()); // the test run's server
    const lines: string[] = [];
    let first = true;
    const choose = async () => (first ? ((first = false), other) : findFreePort());
    const server = await startDevServer({ cliPath, uiPort: false, choosePort: choose, log: (m) => lines.push(m) });
    servers.push(server);
    expect(server.port).not.toBe(other);
    expect(server.process.exitCode).toBeNull();
    expect(lines.filter((l) => retryLine(other).test(l))).toHaveLength(1);
  });

  it('gives up after 3 retries with the bind error when every port it chooses is taken', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    const err = await startDevServer({ cliPath, uiPort: false, choosePort: async () => taken, log: (m) => lines.push(m) }).catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`exited with code \\d+ before becoming ready[\\s\\S]*127\\.0\\.0\\.1:${taken}: bind: address already in use`));
    expect(lines.filter((l) => retryLine(taken).test(l)).map((l) => /\((\d)\/4\)/.exec(l)?.[1])).toEqual(['2', '3', '4']);
    console.log(`4 starts on a taken port failed in ${Date.now() - t0} ms`);
  });
});

describe('startDevServer when a port the caller gave is in use', { timeout: 60_000 }, () => {
  it('fails at once with one line naming the gRPC port and the fix, without retrying or starting a server', async () => {
    const lines: string[] = [];
    const err = await startDevServer({ cliPath, port: taken, uiPort: false, log: (m) => lines.push(m) }).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `the Temporal dev server's gRPC port ${taken} is in use (another Temporal server?): stop what uses it, or choose another port`,
    );
    expect(lines).toEqual([]);
  });

  it('names the Web UI port when that is the one in use', async () => {
    const err = await startDevServer({ cliPath, uiPort: taken }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(new RegExp(`^the Temporal dev server's Web UI port ${taken} is in use .*choose another port$`));
  });
});
