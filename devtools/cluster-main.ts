// `npm run cluster`: the full Temporal stack (server 1.29.1 on PostgreSQL) in the foreground, on free ports,
// until Ctrl-C. `npm run cluster -- --build` only builds (or finds) the server binaries, for CI's set-up step.
import { ensureClusterBinaries, startCluster } from './cluster.js';

const log = (m: string) => console.error(`[cluster] ${m}`);
try {
  if (process.argv.includes('--build')) {
    const bins = await ensureClusterBinaries(log);
    log(`server binaries ready: ${bins.server}, ${bins.sqlTool}`);
  } else {
    const cluster = await startCluster({ log });
    process.stdout.write(`TEMPORAL_ADDRESS=${cluster.address}\n`);
    log(`ready: export TEMPORAL_ADDRESS=${cluster.address} (namespace ${cluster.namespace}); Ctrl-C stops it and removes its data`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    log('stopping');
    await cluster.stop();
  }
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
}
