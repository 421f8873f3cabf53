export {
  findTemporalCli,
  temporalCliCacheDir,
  downloadTemporalCli,
  goBuildTemporalCli,
  TEMPORAL_CLI_VERSION,
  type FindTemporalOptions,
} from './find-temporal.js';
export {
  startDevServer,
  isServerReachable,
  findFreePort,
  searchAttributeArgs,
  type DevServer,
  type DevServerOptions,
  type ReachOptions,
} from './dev-server.js';
