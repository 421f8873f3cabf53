// The full Temporal stack without Docker: Temporal server 1.29.1 (built from the Go module proxy, cached once
// per machine like the CLI) on PostgreSQL persistence and visibility (Debian's PostgreSQL), on free ports.
// The same parts docker-compose.yml runs, so a test can run agents across several workers on a real cluster.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { msToTs, SearchAttributeType } from '@temporalio/common';
import { REGISTERED_SEARCH_ATTRIBUTES } from '../src/core/search-attributes.js';
import { serverConfig } from './cluster-config.js';
import { repoPath } from './repo-path.js';
import { isServerReachable } from '../src/devserver/dev-server.js';
import { isPortFree, portClash, PortClashError, retryOnPortClash } from '../src/devserver/ports.js';

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
  /** Picks each port (PostgreSQL's, then the server's nine). Default: a free one below 32768; a seam for tests. */
  choosePort?: () => Promise<number>;
}

export interface Cluster {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  /** Stops the server and PostgreSQL, and removes the data unless `dir` was given. */
  stop(): Promise<void>;
  /** The last 4,000 characters the running server wrote (its warnings and errors: it logs at `warn`). */
  serverLog(): string;
}

/**
 * PostgreSQL, then the Temporal server, on ports chosen here. Either start that dies because another process took
 * one of its ports before it bound it is retried on fresh ports (retryOnPortClash).
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const namespace = options.namespace ?? 'default';
  const choose = options.choosePort ?? freeLowPort;
  const bins = await ensureClusterBinaries(log);
  const pgBin = findPostgresBin();
  const dir = options.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-cluster-')));
  const children: ChildProcess[] = [];
  let running: ReturnType<typeof startServer> | undefined;
  let pgStarted = false;
  const pg = await postgresCommands(pgBin, dir);

  const stop = async () => {
    for (const child of children) await stopChild(child);
    if (pgStarted) await run(...pg.ctl(['stop', '-m', 'fast'])).catch((err) => log(`pg_ctl stop: ${err.message}`));
    if (!options.dir) await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await run(...pg.initdb());
    const pgLog = path.join(pg.dataDir, 'server.log');
    const pgPort = await retryOnPortClash(
      'PostgreSQL',
      async () => {
        const port = await choose();
        log(`PostgreSQL (${pgBin}) on 127.0.0.1:${port}`);
        await fs.rm(pgLog, { force: true }); // this attempt's log only
        const opts = `-p ${port} -k ${pg.dataDir} -c listen_addresses=127.0.0.1`;
        await run(...pg.ctl(['start', '-w', '-l', pgLog, '-o', opts])).catch(async (err: Error) => {
          // pg_ctl says only "could not start server"; the reason is in PostgreSQL's own log.
          const pgOutput = await fs.readFile(pgLog, 'utf8').catch(() => '');
          const message = `${err.message}\n${pgOutput.trim().split('\n').slice(-10).join('\n')}`;
          throw portClash(pgOutput) === undefined ? new Error(message) : new PortClashError(message, port);
        });
        return port;
      },
      { log },
    );
    pgStarted = true;

    const sql = (db: string, ...args: string[]) =>
      run(bins.sqlTool, ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', 'temporal', '--pw', 'temporal', '--db', db, ...args]);
    for (const [db, schema] of [['temporal', 'temporal'], ['temporal_visibility', 'visibility']] as const) {
      await sql(db, 'create-database');
      await sql(db, 'setup-schema', '-v', '0.0');
      await sql(db, 'update-schema', '-d', path.join(bins.schemaDir, schema, 'versioned'));
    }

    await fs.mkdir(path.join(dir, 'config', 'dynamicconfig'), { recursive: true });
    await fs.copyFile(DYNAMIC_CONFIG, path.join(dir, 'config', 'dynamicconfig', 'development-sql.yaml'));
    const address = await retryOnPortClash(
      'Temporal server',
      async () => {
        const ports = await distinctPorts(9, choose);
        await fs.writeFile(path.join(dir, 'config', 'development-postgres12.yaml'), serverConfig(pgPort, ports));
        const address = `127.0.0.1:${ports[0]}`;
        log(`Temporal server ${TEMPORAL_SERVER_VERSION} on ${address}`);
        const server = startServer(bins.server, dir);
        running = server;
        children.push(server.child);
        try {
          await waitFor(async () => isServerReachable(address, 2000), 90_000, server.exited, server.tail);
          await registerNamespace(address, namespace, server.exited, server.tail);
        } catch (err) {
          const clash = server.clash();
          await stopChild(server.child);
          if (clash === undefined) throw err;
          const which = clash === null ? 'a port' : `port ${clash}`;
          throw new PortClashError(`the Temporal server could not bind ${which}: address already in use\n${(err as Error).message}`, clash);
        }
        return address;
      },
      { log },
    );
    log(`namespace "${namespace}" and the agent's search attributes registered`);
    return { address, namespace, stop, serverLog: () => running?.tail() ?? '' };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The server process, both pipes drained (a full pipe would block it), with the tail that explains a failed start. */
function startServer(bin: string, dir: string) {
  // cwd: the dynamic config's path in the static config is relative to the working directory.
  const child = spawn(bin, ['--root', dir, '--config', 'config', '--env', 'development-postgres12', '--allow-no-auth', 'start'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  // A failed bind is one line before a long stack trace, so it is looked for as the output goes by.
  let clash: number | null | undefined;
  const keep = (b: Buffer) => {
    const text = b.toString();
    clash ??= portClash(tail.slice(-300) + text);
    tail = (tail + text).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let died = false;
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, sig) => {
      died = true;
      resolve(`exited with ${sig ?? code}`);
    }),
  );
  return { child, exited, tail: () => tail, clash: () => (died ? clash : undefined) };
}

const DYNAMIC_CONFIG = repoPath('docker', 'dynamicconfig', 'development-sql.yaml');

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
    const searchAttributes = Object.fromEntries(REGISTERED_SEARCH_ATTRIBUTES.map((k) => [k.name, INDEXED_TYPE[k.type]]));
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
        return REGISTERED_SEARCH_ATTRIBUTES.every((k) => listed?.customAttributes?.[k.name] !== undefined);
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

/** A free port below 32768: the server stores membership ports in a PostgreSQL smallint, so the OS's ephemeral
 * range (32768 and up) fails at start ("value out of range for type smallint"). Nor does the OS hand out a port
 * from this range to anyone asking for a free one, so only a process choosing the same way can take it. */
async function freeLowPort(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree(candidate)) return candidate;
  }
}

async function distinctPorts(n: number, choose: () => Promise<number>): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await choose());
  return [...ports];
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
