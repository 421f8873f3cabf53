// The full Temporal stack without Docker: Temporal server 1.29.1 (built from the Go module proxy, cached once
// per machine like the CLI) on PostgreSQL persistence and visibility (Debian's PostgreSQL), on free ports.
// The same parts docker-compose.yml runs, so a test can run agents across several workers on a real cluster.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SearchAttributeType } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { AGENT_SEARCH_ATTRIBUTES } from '../core/search-attributes.js';
import { findFreePort, isServerReachable } from './dev-server.js';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';

type Log = (msg: string) => void;

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  /** The module's `schema/postgresql/v12`, copied next to the binaries so later runs need no module cache. */
  schemaDir: string;
}

/** `<DURABLE_AGENT_CACHE_DIR | (XDG_CACHE_HOME | ~/.cache)/durable-agent>/temporal-server-v1.29.1` */
export function clusterCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.DURABLE_AGENT_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'durable-agent');
  return path.resolve(base, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/** The server and temporal-sql-tool binaries, built with `go install` the first time (minutes on 2 cores). */
export async function ensureClusterBinaries(log: Log = () => {}): Promise<ClusterBinaries> {
  const dir = clusterCacheDir();
  const bins: ClusterBinaries = {
    server: path.join(dir, 'server'),
    sqlTool: path.join(dir, 'sql'),
    schemaDir: path.join(dir, 'schema', 'postgresql', 'v12'),
  };
  if (existsSync(bins.server) && existsSync(bins.sqlTool) && existsSync(bins.schemaDir)) return bins;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) {
    throw new Error(
      `the Temporal server is not built yet (${dir}) and Go is not installed to build it: install Go >= 1.23, ` +
        'or use Docker (docker-compose.yml), or the embedded dev server (`npm run agent -- server`)',
    );
  }
  await fs.mkdir(dir, { recursive: true });
  log(`building Temporal server ${TEMPORAL_SERVER_VERSION} with Go (several minutes, once; cached in ${dir})`);
  const pkgs = ['cmd/server', 'cmd/tools/sql'].map((p) => `${SERVER_MODULE}/${p}@${TEMPORAL_SERVER_VERSION}`);
  await run('go', ['install', ...pkgs], { env: { ...process.env, GOBIN: dir } });
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const schemaSrc = path.join(modCache, `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
  await fs.cp(schemaSrc, bins.schemaDir, { recursive: true });
  // The module cache is read-only; the copy must be writable so the cache can be cleaned.
  await run('chmod', ['-R', 'u+w', path.join(dir, 'schema')]);
  return bins;
}

/** The newest PostgreSQL of Debian's layout (/usr/lib/postgresql/<major>/bin), or one on PATH. */
export function findPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const major of majors) if (existsSync(path.join(root, major, 'bin', 'initdb'))) return path.join(root, major, 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return path.dirname(which.stdout.trim());
  throw new Error('PostgreSQL is not installed (no initdb found): install it, e.g. `apt-get install -y postgresql`');
}

export interface ClusterOptions {
  log?: Log;
  /** Where the database and the server's config live; default a fresh temporary directory, removed at stop. */
  dir?: string;
  namespace?: string;
}

export interface Cluster {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  /** Stops the server and PostgreSQL, and removes the data unless `dir` was given. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const namespace = options.namespace ?? 'default';
  const bins = await ensureClusterBinaries(log);
  const pgBin = findPostgresBin();
  const dir = options.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-cluster-')));
  const children: ChildProcess[] = [];
  let pgStarted = false;
  const pg = await postgresCommands(pgBin, dir);

  const stop = async () => {
    for (const child of children) await stopChild(child);
    if (pgStarted) await run(...pg.ctl(['stop', '-m', 'fast'])).catch((err) => log(`pg_ctl stop: ${err.message}`));
    if (!options.dir) await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    const pgPort = await findFreePort();
    log(`PostgreSQL (${pgBin}) on 127.0.0.1:${pgPort}`);
    await run(...pg.initdb());
    await run(...pg.ctl(['start', '-w', '-l', path.join(pg.dataDir, 'server.log'), '-o', `-p ${pgPort} -k ${pg.dataDir} -c listen_addresses=127.0.0.1`]));
    pgStarted = true;

    const sql = (db: string, ...args: string[]) =>
      run(bins.sqlTool, ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', 'temporal', '--pw', 'temporal', '--db', db, ...args]);
    for (const [db, schema] of [['temporal', 'temporal'], ['temporal_visibility', 'visibility']] as const) {
      await sql(db, 'create-database');
      await sql(db, 'setup-schema', '-v', '0.0');
      await sql(db, 'update-schema', '-d', path.join(bins.schemaDir, schema, 'versioned'));
    }

    const ports = await freePorts(9);
    const frontendPort = ports[0];
    await fs.mkdir(path.join(dir, 'config', 'dynamicconfig'), { recursive: true });
    await fs.writeFile(path.join(dir, 'config', 'development-postgres12.yaml'), serverConfig(pgPort, ports));
    await fs.copyFile(DYNAMIC_CONFIG, path.join(dir, 'config', 'dynamicconfig', 'development-sql.yaml'));

    const address = `127.0.0.1:${frontendPort}`;
    log(`Temporal server ${TEMPORAL_SERVER_VERSION} on ${address}`);
    // cwd: the dynamic config's path in the static config is relative to the working directory.
    const server = spawn(bins.server, ['--root', dir, '--config', 'config', '--env', 'development-postgres12', '--allow-no-auth', 'start'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(server);
    // Both pipes drained (a full pipe would block the server); the tail explains a failed start.
    let tail = '';
    const keep = (b: Buffer) => void (tail = (tail + b.toString()).slice(-4000));
    server.stdout!.on('data', keep);
    server.stderr!.on('data', keep);
    const exited = new Promise<string>((resolve) => server.once('exit', (code, sig) => resolve(`exited with ${sig ?? code}`)));
    await waitFor(async () => isServerReachable(address, 2000), 90_000, exited, () => tail);

    await registerNamespace(address, namespace, exited, () => tail);
    log(`namespace "${namespace}" and the agent's search attributes registered`);
    return { address, namespace, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const DYNAMIC_CONFIG = fileURLToPath(new URL('../../docker/dynamicconfig/development-sql.yaml', import.meta.url));

/** initdb and pg_ctl, run as the `postgres` user when we are root (PostgreSQL refuses to run as root). */
async function postgresCommands(pgBin: string, dir: string) {
  const dataDir = path.join(dir, 'pg');
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await fs.chmod(dir, 0o755);
    await run('chown', ['-R', 'postgres:postgres', dataDir]);
  }
  const cmd = (bin: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(pgBin, bin), ...args]] : [path.join(pgBin, bin), args];
  const pwFile = path.join(dataDir, '..', 'pgpass');
  return {
    dataDir,
    initdb: (): [string, string[]] => {
      // A throwaway local cluster: the superuser is temporal/temporal, as Temporal's own setup expects.
      spawnSync('sh', ['-c', `printf temporal > ${pwFile} && chmod 644 ${pwFile}`]);
      return cmd('initdb', ['-D', dataDir, '-U', 'temporal', `--pwfile=${pwFile}`, '--auth=md5', '-E', 'UTF8']);
    },
    ctl: (args: string[]): [string, string[]] => cmd('pg_ctl', ['-D', dataDir, ...args]),
  };
}

/** The server's static config: every service on a free loopback port; the archival block the server
 * insists on (it refuses to start without one), with archival off. */
function serverConfig(pgPort: number, p: number[]): string {
  const store = (db: string, conns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "127.0.0.1:${pgPort}"
        connectProtocol: "tcp"
        user: "temporal"
        password: "temporal"
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number, extra = '') => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store('temporal', 20)}
    postgres-visibility:${store('temporal_visibility', 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:${service(p[0], p[1], `\n      httpPort: ${p[8]}`)}
  matching:${service(p[2], p[3])}
  history:${service(p[4], p[5])}
  worker:${service(p[6], p[7])}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${p[0]}"
dcRedirectionPolicy:
  policy: "noop"
archival:
  history:
    state: "disabled"
  visibility:
    state: "disabled"
namespaceDefaults:
  archival:
    history:
      state: "disabled"
    visibility:
      state: "disabled"
dynamicConfigClient:
  filepath: "config/dynamicconfig/development-sql.yaml"
  pollInterval: "10s"
`;
}

// temporal.api.enums.v1.IndexedValueType (the proto package is CommonJS, so its enum objects cannot be
// imported by name from ESM; the numbers are the wire values).
const INDEXED_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  [SearchAttributeType.KEYWORD]: 2, // INDEXED_VALUE_TYPE_KEYWORD
  [SearchAttributeType.INT]: 3, // INDEXED_VALUE_TYPE_INT
  [SearchAttributeType.DOUBLE]: 4, // INDEXED_VALUE_TYPE_DOUBLE
};

/** The server does not create the namespace (the dev server and Docker's auto-setup do); nor the agent's
 * search attributes. Both take a moment to be seen by every service, so this waits until they are. */
async function registerNamespace(address: string, namespace: string, exited: Promise<string>, tail: () => string): Promise<void> {
  const conn = await Connection.connect({ address });
  try {
    await conn.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') })
      .catch((err: { code?: number }) => {
        if (err.code !== 6 /* ALREADY_EXISTS */) throw err;
      });
    const searchAttributes = Object.fromEntries(AGENT_SEARCH_ATTRIBUTES.map((k) => [k.name, INDEXED_TYPE[k.type]]));
    await waitFor(
      async () => {
        try {
          await conn.operatorService.addSearchAttributes({ namespace, searchAttributes });
          return true;
        } catch (err) {
          // ALREADY_EXISTS once a previous attempt went through; NOT_FOUND while the namespace propagates.
          return (err as { code?: number }).code === 6;
        }
      },
      60_000,
      exited,
      tail,
    );
    await waitFor(
      async () => {
        const listed = await conn.operatorService.listSearchAttributes({ namespace }).catch(() => null);
        return AGENT_SEARCH_ATTRIBUTES.every((k) => listed?.customAttributes?.[k.name] !== undefined);
      },
      60_000,
      exited,
      tail,
    );
  } finally {
    await conn.close();
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, exited: Promise<string>, tail: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitReason: string | null = null;
  void exited.then((r) => (exitReason = r));
  for (;;) {
    if (exitReason) throw new Error(`the Temporal server ${exitReason}:\n${tail().trim().split('\n').slice(-15).join('\n')}`);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`the Temporal cluster was not ready after ${timeoutMs} ms:\n${tail().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Free ports below 32768: the server stores membership ports in a PostgreSQL smallint, so the OS's
 * ephemeral range (32768 and up) fails at start ("value out of range for type smallint"). */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.has(candidate) && (await portFree(candidate))) ports.add(candidate);
  }
  return [...ports];
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

function run(cmd: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => void (out = (out + b.toString()).slice(-4000)));
    child.stderr!.on('data', (b: Buffer) => void (out = (out + b.toString()).slice(-4000)));
    child.once('error', (err) => reject(new Error(`${cmd}: ${err.message}`)));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out.trim().split('\n').slice(-10).join('\n')}`)),
    );
  });
}
