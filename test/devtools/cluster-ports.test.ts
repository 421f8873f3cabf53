// The full stack's port race (cluster.ts): PostgreSQL and the Temporal server each start on ports found free a
// moment before; when another process has taken one, that start is retried on fresh ports. Real PostgreSQL and
// a real Temporal server 1.29.1 (built once by `npm run cluster -- --build`); the taken port is held by a
// listening socket of this test, handed out through the injectable port chooser.
import net from 'node:net';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTERED_SEARCH_ATTRIBUTES } from '../../src/core/search-attributes.js';
import { startCluster, type Cluster } from '../../devtools/cluster.js';
import { isPortFree } from '../../src/devserver/ports.js';

let blocker: net.Server;
let taken: number;
let cluster: Cluster | undefined;

beforeAll(async () => {
  blocker = net.createServer((sock) => sock.destroy());
  // Below 32768, like the ports the cluster chooses.
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const bound = await new Promise<boolean>((resolve) => {
      blocker.once('error', () => resolve(false));
      blocker.listen(candidate, '127.0.0.1', () => resolve(true));
    });
    if (bound) break;
  }
  taken = (blocker.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await cluster?.stop();
  blocker.close();
}, 60_000);

describe('startCluster when a port it chose is taken before PostgreSQL or the server binds it', () => {
  it('retries PostgreSQL and then the Temporal server on fresh ports, a log line each, and the cluster works', async () => {
    // Call 1 is PostgreSQL's port, call 2 its retry; call 3 is the Temporal server's frontend port.
    let calls = 0;
    const choose = async () => {
      calls++;
      if (calls === 1 || calls === 3) return taken;
      for (;;) {
        const candidate = 20_000 + Math.floor(Math.random() * 12_000);
        if (await isPortFree(candidate)) return candidate;
      }
    };
    const lines: string[] = [];
    const t0 = Date.now();
    cluster = await startCluster({ choosePort: choose, log: (m) => lines.push(m) });
    console.log(`cluster up in ${Date.now() - t0} ms after two port clashes\n${lines.join('\n')}`);

    expect(lines.filter((l) => /retrying on fresh ports/.test(l))).toEqual([
      expect.stringMatching(new RegExp(`^PostgreSQL: port ${taken} was taken by another process .*\\(2/4\\)$`)),
      expect.stringMatching(new RegExp(`^Temporal server: port ${taken} was taken by another process .*\\(2/4\\)$`)),
    ]);
    expect(cluster.address).not.toBe(`127.0.0.1:${taken}`);
    const connection = await Connection.connect({ address: cluster.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const key of REGISTERED_SEARCH_ATTRIBUTES) expect(customAttributes?.[key.name], key.name).toBeDefined();
    } finally {
      await connection.close();
    }
  }, 20 * 60_000); // from a cold cache, startCluster builds the server first (minutes)
});
