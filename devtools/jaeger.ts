// A real Jaeger (v2, cmd/jaeger at v1.76.0: the OpenTelemetry collector with Jaeger's storage and query service),
// built from the Go module proxy once per machine like the Temporal CLI, and started on free loopback ports with
// in-memory storage: where a test or a developer sends a run's trace to see it as a backend shows it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGo, withCacheLock } from '../src/devserver/find-temporal.js';
import { jaegerConfig, type JaegerPorts } from './jaeger-config.js';
import { findFreePort, portClash, PortClashError, retryOnPortClash } from '../src/devserver/ports.js';

export const JAEGER_VERSION = 'v1.76.0';
const JAEGER_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';
/** The command that builds it up front (CI runs it before the tests). */
export const JAEGER_BUILD_COMMAND = 'npm run jaeger -- --build';

type Log = (msg: string) => void;
type Env = Record<string, string | undefined>;

/** `<DURABLE_AGENT_CACHE_DIR | (XDG_CACHE_HOME | ~/.cache)/durable-agent>/jaeger-v1.76.0` */
export function jaegerCacheDir(env: Env = process.env): string {
  const base = env.DURABLE_AGENT_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'durable-agent');
  return path.resolve(base, `jaeger-${JAEGER_VERSION}`);
}

/** The cached binary's path, or null when it has not been built. */
export function findJaeger(env: Env = process.env): string | null {
  const bin = path.join(jaegerCacheDir(env), 'jaeger');
  return existsSync(bin) ? bin : null;
}

/** The binary, built the first time (minutes on 2 cores; Go's caches make a rebuild fast) under a lock, so a second
 * process waits for the first one's build instead of starting its own. */
export async function ensureJaeger(log: Log = () => {}, options: EnsureJaegerOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const dir = jaegerCacheDir(env);
  const found = findJaeger(env);
  if (found) return found;
  let build = options.build;
  if (!build) {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.error || go.status !== 0) throw new Error(`Jaeger is not built yet (${dir}) and Go is not installed to build it: install Go >= 1.24`);
    build = (cacheDir) => goBuildJaeger(cacheDir, 'go', log);
  }
  const produce = build;
  return withCacheLock(dir, log, async () => findJaeger(env) ?? produce(dir), 'Jaeger');
}

export interface EnsureJaegerOptions {
  /** Environment to read the cache folder from (default process.env). */
  env?: Env;
  /** Replaces the Go build (tests use this so they never build): makes `<cacheDir>/jaeger`, returns its path. */
  build?: (cacheDir: string) => Promise<string>;
}

/** `go build` of cmd/jaeger in a throwaway module that requires it as a tool (`go get -tool`), so the build uses
 * exactly the versions Jaeger's own go.mod selects; the output goes to `<cache>/go-build.log`. */
async function goBuildJaeger(dir: string, goPath: string, log: Log): Promise<string> {
  const logFile = path.join(dir, 'go-build.log');
  log(`building Jaeger ${JAEGER_VERSION} with Go (minutes, once; cached in ${dir}; the build's output: ${logFile})`);
  const started = Date.now();
  const moduleDir = await fs.mkdtemp(path.join(dir, '.module-'));
  const output = createWriteStream(logFile);
  const beat = setInterval(() => log(`still building Jaeger (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  const bin = path.join(dir, 'jaeger');
  try {
    await fs.writeFile(path.join(moduleDir, 'go.mod'), 'module durable-agent.local/jaeger-build\n\ngo 1.24\n');
    const build = { output, logFile };
    await runGo(goPath, ['get', '-tool', `${JAEGER_PACKAGE}@${JAEGER_VERSION}`], moduleDir, build, log);
    // Built under a temporary name and renamed: a process that finds the binary never finds half of one.
    await runGo(goPath, ['build', '-o', `${bin}.partial`, JAEGER_PACKAGE], moduleDir, build, log);
    await fs.rename(`${bin}.partial`, bin);
  } finally {
    clearInterval(beat);
    output.end();
    await fs.rm(moduleDir, { recursive: true, force: true });
  }
  log(`Jaeger built in ${Math.round((Date.now() - started) / 1000)} s`);
  return bin;
}

export interface JaegerOptions {
  log?: Log;
  /** A built jaeger-ui to serve instead of the module's placeholder page (see docs/observability.md). */
  uiAssets?: string;
  /** Default: the cached build (findJaeger). */
  binary?: string;
}

export interface Jaeger {
  /** Give this to OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` is added by the exporter). */
  otlpEndpoint: string;
  /** The query service: the UI at `/`, the HTTP API at `/api/traces/{traceId}`, `/api/v3/...`. */
  queryUrl: string;
  stop(): Promise<void>;
}

/** Starts Jaeger on fresh loopback ports, and resolves when both the OTLP receiver and the query API answer. */
export async function startJaeger(options: JaegerOptions = {}): Promise<Jaeger> {
  const log = options.log ?? (() => {});
  const binary = options.binary ?? path.join(jaegerCacheDir(), 'jaeger');
  if (!existsSync(binary)) throw new Error(`Jaeger ${JAEGER_VERSION} is not built (no ${binary}): run \`${JAEGER_BUILD_COMMAND}\` first`);
  return retryOnPortClash(
    'Jaeger',
    async () => {
      const ports: JaegerPorts = { otlpHttp: await findFreePort(), queryHttp: await findFreePort(), queryGrpc: await findFreePort() };
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jaeger-'));
      const configFile = path.join(dir, 'config.yaml');
      await fs.writeFile(configFile, jaegerConfig(ports, { uiAssets: options.uiAssets }));
      const child = spawn(binary, ['--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
      let tail = '';
      const keep = (b: Buffer) => void (tail = (tail + b.toString()).slice(-4000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      const stop = async () => {
        await stopChild(child);
        await fs.rm(dir, { recursive: true, force: true });
      };
      const jaeger = { otlpEndpoint: `http://127.0.0.1:${ports.otlpHttp}`, queryUrl: `http://127.0.0.1:${ports.queryHttp}`, stop };
      try {
        await waitUntilUp(jaeger, child, () => tail);
      } catch (err) {
        await stop();
        const clash = portClash(tail);
        if (clash !== undefined) throw new PortClashError(`Jaeger could not bind a port: ${(err as Error).message}`, clash);
        throw err;
      }
      log(`Jaeger ${JAEGER_VERSION}: OTLP/HTTP ${jaeger.otlpEndpoint}, UI and query API ${jaeger.queryUrl}`);
      return jaeger;
    },
    { log },
  );
}

async function waitUntilUp(jaeger: Omit<Jaeger, 'stop'>, child: ChildProcess, tail: () => string, timeoutMs = 30_000): Promise<void> {
  let exited: string | null = null;
  child.once('exit', (code, sig) => (exited = `exited with ${sig ?? code}`));
  child.once('error', (err) => (exited = `could not run: ${err.message}`));
  // Any HTTP answer means the listener is up (the receiver answers a GET on /v1/traces with 405).
  const answers = (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => (void r.body?.cancel(), true),
      () => false,
    );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`Jaeger ${exited}:\n${tail().trim().split('\n').slice(-15).join('\n')}`);
    if ((await answers(`${jaeger.otlpEndpoint}/v1/traces`)) && (await answers(`${jaeger.queryUrl}/api/services`))) return;
    if (Date.now() > deadline) throw new Error(`Jaeger was not up after ${timeoutMs} ms:\n${tail().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(timer);
}
