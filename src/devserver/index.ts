// The embedded Temporal dev server as the CLI, the tests and the benchmarks start it.
export { startDevServer, EMBEDDED_SERVER_DYNAMIC_CONFIG, isServerReachable, findFreePort, type DevServer } from './dev-server.js';
