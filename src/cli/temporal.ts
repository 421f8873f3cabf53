// Finding the Temporal server for a CLI command, and starting the embedded one when `run` has none.
import path from 'node:path';
// Types only: Temporal's packages load when a command connects, so `--help`, a bad flag or a bad value answers
// without them (0.1 s of CPU instead of 0.8 s), and Temporal's worker package (and the dev server's) only when a
// command needs them, so `start`, `status` and the like do not spend a second of CPU loading them.
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { TemporalTarget } from '../client/connection.js';
import { keyRingFromEnv } from '../codec/keys.js';
import type { DevServer } from '../devserver/index.js';
import { UsageError } from '../core/args.js';
import { commandLine } from './invocation.js';
import { logLine } from './log.js';
import { isPortFree } from '../devserver/ports.js';
import { profileMark } from './profile.js';
import { insideOutageLoop } from './outage.js';
import { probeServer } from './reachability.js';

/** Where `run` keeps the embedded server's data, so a job outlives the command and can be resumed. */
export const EMBEDDED_DB = path.join('.durable-agent', 'temporal.db');

export interface TemporalSession {
  target: TemporalTarget;
  client: Client;
  /** The embedded server this command started, if it did. */
  embedded?: DevServer;
  /** A NativeConnection for a worker, opened on first use. */
  workerConnection(): Promise<NativeConnection>;
  close(): Promise<void>;
}

/** Connects to the configured server. With `allowEmbedded`, and when no address is configured and nothing
 * answers on the default one, starts the embedded dev server for the duration of the command. */
export async function openTemporal(options: { allowEmbedded: boolean }): Promise<TemporalSession> {
  keyRingFromEnv(); // malformed encryption keys are exit 2 before anything starts
  const { connectClient, resolveTemporalTarget, withAddress } = await import('../client/connection.js');
  let target = targetFromEnvironment(resolveTemporalTarget);
  let embedded: DevServer | undefined;
  const { tls, apiKey, metadata } = target.connectionOptions;
  const reachable = await probeServer(target.address, { tls, apiKey, metadata });
  profileMark('probed');
  if (!reachable) {
    if (target.explicit) {
      throw new UsageError(
        `the Temporal server at ${target.address} (TEMPORAL_ADDRESS or the config profile) does not answer. ` +
          'Start it, fix the address, or unset TEMPORAL_ADDRESS to let `run` start an embedded server.',
      );
    }
    if (!options.allowEmbedded) {
      throw new UsageError(
        `no Temporal server answers at ${target.address}. Start one with \`${commandLine('server')}\` ` +
          '(or set TEMPORAL_ADDRESS), or use `run`, which starts an embedded server by itself.',
      );
    }
    const port = Number(target.address.split(':').pop()) || 7233;
    if (!(await isPortFree(port))) {
      throw new UsageError(
        `something listens on port ${port} but does not answer as a Temporal server: stop it, ` +
          'or set TEMPORAL_ADDRESS to your Temporal server',
      );
    }
    // The UI's usual port may be taken (another tool, a second project): then any free one will do.
    const uiPort = (await isPortFree(port + 1000)) ? port + 1000 : undefined;
    logLine(`no Temporal server at ${target.address}: starting the embedded dev server (data in ${EMBEDDED_DB})…`);
    const { startDevServer } = await import('../devserver/index.js');
    embedded = await startDevServer({ port, uiPort, dbFile: EMBEDDED_DB, namespace: target.namespace, log: logLine });
    logLine(`embedded Temporal server on ${embedded.address}; Web UI ${embedded.uiUrl} (stops when this command ends)`);
    target = withAddress(target, embedded.address);
  }
  const client = await connectClient(target, { callerRidesOutages: insideOutageLoop });
  await requireNamespace(client, target).catch(async (err) => {
    await client.connection.close().catch(() => {});
    await embedded?.stop();
    throw err;
  });
  profileMark('connected');
  let native: NativeConnection | undefined;
  return {
    target,
    client,
    embedded,
    async workerConnection() {
      const { NativeConnection } = await import('@temporalio/worker');
      native ??= await NativeConnection.connect(target.connectionOptions);
      return native;
    },
    async close() {
      await native?.close().catch(() => {});
      await client.connection.close().catch(() => {});
      await embedded?.stop();
    },
  };
}

const GRPC_NOT_FOUND = 5;

/** A namespace that does not exist would otherwise surface later as a raw gRPC `Status{…}` dump. */
async function requireNamespace(client: Client, target: TemporalTarget): Promise<void> {
  try {
    await client.workflowService.describeNamespace({ namespace: target.namespace });
  } catch (err) {
    const { isGrpcServiceError } = await import('@temporalio/client');
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) {
      throw new UsageError(
        `namespace "${target.namespace}" does not exist on the Temporal server at ${target.address}: ` +
          `set TEMPORAL_NAMESPACE to one that does, or create it (temporal operator namespace create --namespace ${target.namespace})`,
      );
    }
    throw err;
  }
}

/** The configured target; a broken profile or config file is a configuration error (exit 2), not a crash. */
function targetFromEnvironment(resolve: () => TemporalTarget): TemporalTarget {
  try {
    return resolve();
  } catch (err) {
    throw new UsageError(
      `the Temporal connection settings cannot be read (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, TEMPORAL_*): ${(err as Error).message}`,
    );
  }
}

/** Runs `fn` with a session on the configured server (never the embedded one) and closes it after. `replays: false`
 * (`start`) for a command that reads no run from its history: it then does not load Temporal's worker runtime. */
export async function withTemporal<T>(fn: (temporal: TemporalSession) => Promise<T>, options: { replays?: boolean } = {}): Promise<T> {
  // Reading a run from its history replays it on a worker inside this process: its lines go to stderr, and
  // only warnings.
  if (options.replays !== false) (await import('./runtime.js')).installCliRuntime('WARN');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    return await fn(temporal);
  } finally {
    await temporal.close();
  }
}
