// Choosing ports for the servers we start: findFreePort keeps its port away from whoever asks the OS next, and
// portClash reads the "address already in use" of the processes we start (messages as they print them).
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort, isPortFree, portClash } from '../../src/devserver/ports.js';

/** What a plain "listen on :0, close" picker gets: the OS's next ephemeral port. */
async function osPick(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('findFreePort', () => {
  it('hands out ports the OS does not give the next processes asking for one, yet a server can bind', async () => {
    const picked = new Set<number>();
    for (let i = 0; i < 20; i++) picked.add(await findFreePort());
    expect(picked.size).toBe(20);
    // A plain pick released like this comes back within a few thousand asks (measured: all 20 of 20 did);
    // ours must not.
    const control = new Set<number>();
    for (let i = 0; i < 20; i++) control.add(await osPick());
    let ours = 0;
    let plain = 0;
    for (let i = 0; i < 5000; i++) {
      const p = await osPick();
      if (picked.has(p)) ours++;
      if (control.has(p)) plain++;
    }
    expect(ours).toBe(0);
    expect(plain, 'the plain picks are handed out again (else this test proves nothing)').toBeGreaterThan(0);
    for (const port of picked) expect(await isPortFree(port)).toBe(true);
  });

  it('isPortFree is false while something listens on the port', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      expect(await isPortFree(port)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('portClash', () => {
  it('names the port of a Go bind failure (the Temporal CLI and server)', () => {
    const cli = `level=ERROR msg="can't set frontend HTTP port 39539: listen tcp 127.0.0.1:39539: bind: address already in use"`;
    expect(portClash(cli)).toBe(39539);
    expect(portClash('listen tcp [::1]:7233: bind: address already in use')).toBe(7233);
  });

  it('is null for a clash that names no port (PostgreSQL) and undefined for any other failure', () => {
    const pg = 'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use\nWARNING:  could not create listen socket';
    expect(portClash(pg)).toBeNull();
    expect(portClash('unknown flag: --no-such-flag')).toBeUndefined();
  });
});
