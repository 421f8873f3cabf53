// Whether a TCP port can be listened on, asked before starting a server on it: a server that fails to bind says
// so only in its own log, and a check that something answers on the port would find the OTHER server there.
import net from 'node:net';

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
