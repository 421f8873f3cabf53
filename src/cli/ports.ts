// Whether a TCP port can be listened on, asked before starting a server on it: a server that fails to bind says
// so only in its own log, and a check that something answers on the port would find the OTHER server there.
export { isPortFree } from '../devserver/ports.js';
