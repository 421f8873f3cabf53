// Locates the official `temporal` CLI (it embeds the dev server and the Web UI). Every step that fails leaves
// a reason behind, so the final error tells the user exactly what was tried and what to install.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, constants as fsc, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { downloadTemporalCli } from './download-cli.js';

export { TEMPORAL_CLI_VERSION } from './download-cli.js';
import { TEMPORAL_CLI_BIN as BIN, TEMPORAL_CLI_VERSION } from './download-cli.js';

/** The modernc.org/sqlite a Go build of the CLI links instead of the v1.34.1 that v1.5.1's go.mod names. Under load,
 * v1.34.1 can leave the dev server's in-memory database interrupted for good: after one cancelled query every
 * query fails with SQLITE_INTERRUPT ("interrupted (9)") until the server restarts. Temporal moved its server to
 * v1.44.3 for the same errors (temporalio/temporal#9198); the CLI, its server and UI are otherwise v1.5.1's. */
export const TEMPORAL_CLI_SQLITE_VERSION = 'v1.44.3';
const INSTALL_HINT =
  'Install the Temporal CLI (https://docs.temporal.io/cli#install) and put it on PATH, ' +
  'or set TEMPORAL_CLI_PATH to its path, or install Go >= 1.23 so it can be built from source';

type Env = Record<string, string | undefined>;
type Log = (msg: string) => void;

export interface FindTemporalOptions {
  log?: Log;
  /** Step (d): download the release archive of TEMPORAL_CLI_VERSION (its checksum verified). Default true. */
  allowDownload?: boolean;
  /** Step (e): build the CLI with Go (TEMPORAL_CLI_SQLITE_VERSION linked) into its own cache folder. Default true. */
  allowGoBuild?: boolean;
  /** Environment to read (tests pass their own; defaults to process.env). */
  env?: Env;
  /** Replaces the download step (tests use this so they never touch the network). */
  download?: (cacheDir: string, log: Log) => Promise<string>;
  /** Replaces the Go build step (tests use this so they never build). */
  goBuild?: (cacheDir: string, goPath: string, log: Log) => Promise<string>;
}

const nonEmpty = (v: string | undefined) => (v && v.length > 0 ? v : undefined);

function cacheBase(env: Env): string {
  return nonEmpty(env.DURABLE_AGENT_CACHE_DIR) ?? path.join(nonEmpty(env.XDG_CACHE_HOME) ?? path.join(os.homedir(), '.cache'), 'durable-agent');
}

/** Where the release download goes: `<DURABLE_AGENT_CACHE_DIR | (XDG_CACHE_HOME | ~/.cache)/durable-agent>/temporal-cli-v1.5.1` */
export function temporalCliCacheDir(env: Env = process.env): string {
  return path.resolve(cacheBase(env), `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

/** Where a Go build goes, named after what it links (it is not the release's binary): `…/temporal-cli-v1.5.1-sqlite-v1.44.3` */
export function temporalCliBuildDir(env: Env = process.env): string {
  return path.resolve(cacheBase(env), `temporal-cli-${TEMPORAL_CLI_VERSION}-sqlite-${TEMPORAL_CLI_SQLITE_VERSION}`);
}

/** Why `file` is not a usable executable, or null when it is. */
async function whyNotExecutable(file: string): Promise<string | null> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return `${file} is not a regular file`;
    await fs.access(file, fsc.X_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} does not exist` : `${file} is not executable (${code ?? String(err)})`;
  }
}

/** Runs `<file> --version`: catches truncated downloads and unrelated programs that happen to be called temporal. */
function whyNotTemporalCli(file: string): string | null {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  if (r.error) return `${file} --version failed: ${r.error.message}`;
  if (r.status === 0 && /^temporal version /m.test(r.stdout)) return null;
  return `${file} --version did not print "temporal version ..." (exit ${r.status}): ${(r.stdout + r.stderr).trim().slice(0, 200)}`;
}

async function check(file: string): Promise<string | null> {
  return (await whyNotExecutable(file)) ?? whyNotTemporalCli(file);
}

async function findOnPath(name: string, env: Env): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(dir, name);
    if ((await whyNotExecutable(candidate)) === null) return candidate;
  }
  return null;
}

export async function findTemporalCli(options: FindTemporalOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log: Log = options.log ?? (() => {});
  const failures: string[] = [];

  // (a) An explicit setting that is wrong is a configuration error, not something to silently route around.
  const explicit = nonEmpty(env.TEMPORAL_CLI_PATH);
  if (explicit) {
    const abs = path.resolve(explicit);
    const why = await check(abs);
    if (why) throw new Error(`TEMPORAL_CLI_PATH is set but unusable: ${why}. Fix or unset TEMPORAL_CLI_PATH.`);
    return abs;
  }
  failures.push('(a) TEMPORAL_CLI_PATH: not set');

  // (b) PATH
  const onPath = await findOnPath(BIN, env);
  if (onPath) {
    const why = whyNotTemporalCli(onPath);
    if (!why) return onPath;
    failures.push(`(b) PATH: ${why}`);
  } else failures.push(`(b) PATH: no executable "${BIN}" on PATH`);

  // (c) A binary built or downloaded earlier; a build first, since it has the SQLite fix.
  const cacheDir = temporalCliCacheDir(env);
  const buildDir = temporalCliBuildDir(env);
  for (const dir of [buildDir, cacheDir]) {
    const why = await check(path.join(dir, BIN));
    if (!why) return path.join(dir, BIN);
    failures.push(`(c) cache: ${why}`);
  }

  // (d) and (e) each write into their cache folder under its lock: a second process waits, then reuses.
  const fromLockedStep = async (label: string, dir: string, produce: () => Promise<string>): Promise<string | null> => {
    const cached = path.join(dir, BIN);
    try {
      const file = await withCacheLock(dir, log, async () => ((await check(cached)) ? produce() : cached));
      const why = await check(file);
      if (!why) return file;
      failures.push(`${label}: produced an unusable binary: ${why}`);
    } catch (err) {
      failures.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return null;
  };

  if (options.allowDownload === false) failures.push('(d) download: disabled');
  else {
    const dl = options.download ?? downloadTemporalCli;
    const got = await fromLockedStep('(d) download', cacheDir, () => dl(cacheDir, log));
    if (got) return got;
  }

  const goPath = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go', env);
  if (options.allowGoBuild === false) failures.push('(e) go build: disabled');
  else if (!goPath) failures.push('(e) go build: no "go" on PATH');
  else {
    const build = options.goBuild ?? goBuildTemporalCli;
    const got = await fromLockedStep('(e) go build', buildDir, () => build(buildDir, goPath, log));
    if (got) return got;
  }

  throw new Error(`Temporal CLI not found. Tried:\n  ${failures.join('\n  ')}\n${INSTALL_HINT}.`);
}

/**
 * Exclusive lock via O_EXCL on `<dir>/.lock`. A lock whose owner pid is dead is taken over; an hour-old one too
 * (a Go build takes minutes, never an hour).
 */
export async function withCacheLock<T>(dir: string, log: Log, fn: () => Promise<T>, what = 'the Temporal CLI'): Promise<T> {
  await fs.mkdir(dir, { recursive: true });
  const lock = path.join(dir, '.lock');
  let announced = false;
  for (;;) {
    try {
      const fh = await fs.open(lock, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [owner, st] = await Promise.all([fs.readFile(lock, 'utf8').catch(() => ''), fs.stat(lock).catch(() => null)]);
      const pid = Number(owner);
      const age = st ? Date.now() - st.mtimeMs : Infinity;
      // Stale: owner died, or never wrote its pid (crashed right after creating it), or absurdly old.
      if ((pid > 0 && !isAlive(pid)) || (!owner && age > 10_000) || age > 3_600_000) {
        await fs.rm(lock, { force: true });
        continue;
      }
      if (!announced) log(`waiting for another process (pid ${owner || '?'}) that is installing ${what} into ${dir}`);
      announced = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Builds the CLI with Go in a throwaway module of its own that requires the CLI and the SQLite driver
 * (TEMPORAL_CLI_SQLITE_VERSION: Go's version selection then links that one), so nothing but the driver differs
 * from `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`. It compiles the whole Temporal server; Go's
 * module and build caches make later builds faster. */
export async function goBuildTemporalCli(cacheDir: string, goPath: string, log: Log): Promise<string> {
  // Go prints a line per module it downloads (about 160): they go to a log file, and only a failure shows its tail.
  mkdirSync(cacheDir, { recursive: true });
  const logFile = path.join(cacheDir, 'go-build.log');
  log(
    `building the Temporal CLI ${TEMPORAL_CLI_VERSION} (with modernc.org/sqlite ${TEMPORAL_CLI_SQLITE_VERSION}) from source with Go; ` +
      `this takes several minutes the first time and is cached in ${cacheDir} (the build's output: ${logFile})`,
  );
  const started = Date.now();
  const moduleDir = await fs.mkdtemp(path.join(cacheDir, '.module-'));
  const output = createWriteStream(logFile);
  // Compilation itself prints nothing for minutes; a heartbeat shows the process is not stuck.
  const beat = setInterval(() => log(`still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  try {
    await fs.writeFile(path.join(moduleDir, 'go.mod'), 'module durable-agent.local/temporal-cli-build\n\ngo 1.23\n');
    await runGo(goPath, ['get', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`, `modernc.org/sqlite@${TEMPORAL_CLI_SQLITE_VERSION}`], moduleDir, { output, logFile }, log);
    await runGo(goPath, ['build', '-o', path.join(cacheDir, BIN), 'github.com/temporalio/cli/cmd/temporal'], moduleDir, { output, logFile }, log);
  } finally {
    clearInterval(beat);
    output.end();
    await fs.rm(moduleDir, { recursive: true, force: true });
  }
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s`);
  return path.join(cacheDir, BIN);
}

/** Runs `go <args>` in `cwd`, its output into `output`; a failure is an Error with the output's last lines. */
export async function runGo(goPath: string, args: string[], cwd: string, build: { output: WriteStream; logFile: string }, log: Log): Promise<void> {
  const child = spawn(goPath, args, { cwd, env: { ...process.env, GOFLAGS: '-mod=mod' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const onData = (buf: Buffer) => {
    build.output.write(buf);
    tail = (tail + buf.toString()).slice(-4000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    const lines = tail.trim().split('\n').slice(-15);
    for (const line of lines) log(`go: ${line}`);
    throw new Error(`go ${args[0]} exited with ${code} (its output: ${build.logFile}): ${lines.slice(-3).join(' | ')}`);
  }
}
