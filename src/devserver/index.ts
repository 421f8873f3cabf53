export {
  findTemporalCli,
  temporalCliCacheDir,
  temporalCliBuildDir,
  TEMPORAL_CLI_SQLITE_VERSION,
  goBuildTemporalCli,
  TEMPORAL_CLI_VERSION,
  type FindTemporalOptions,
} from './find-temporal.js';
export { downloadTemporalCli, TEMPORAL_CLI_SHA256, temporalCliArchiveName } from './download-cli.js';
export {
  startDevServer,
  EMBEDDED_SERVER_DYNAMIC_CONFIG,
  isServerReachable,
  findFreePort,
  searchAttributeArgs,
  type DevServer,
  type DevServerOptions,
  type ReachOptions,
} from './dev-server.js';
