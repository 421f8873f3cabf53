// The CLI as a user runs it, for integration tests, against the dev server that global-setup started. A command that
// runs to its end (`cli(...)`) runs in the test process by default: the CLI's entry point (src/cli/main.ts `main`)
// with its own environment, standard input, stdout and stderr captured (test/helpers/cli-in-process.ts), the exit
// code main returns; a command followed while it runs (`watch`, a waiting `result`, a `worker`) runs there too
// (`background(...)`, `worker(...)`). A process (`node bin/durable-agent.js`, the BUILT output) where a process is
// what is tested (a real signal, a pid, the CLI runtime's own log lines, a tracer provider from OTEL_*): `spawn(...)`,
// `cliProcess(...)`, `workerProcess(...)`, and `server` (SPAWNED_COMMANDS). Every session gets its own task queue
// (AGENT_TASK_QUEUE), so workers in concurrent tests never take each other's runs; ANTHROPIC_* / AGENT_* /
// TEMPORAL_* variables of the outer environment never leak into a child.
//
// Call `useCli()` once at the top of a test file: it registers the beforeAll/afterAll hooks.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { findFreePort } from '../../src/devserver/ports.js';
import { countCliProcess } from './cli-count.js';
import { runCliInProcess, startCliInProcess, stopCommandsInProcess, type InProcessCli } from './cli-in-process.js';
import { testServerAddress } from './test-server.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'durable-agent.js');

/** How long one CLI process may take before the test gives up on it. */
const PROCESS_TIMEOUT_MS = 60_000;
/** At most this many short-lived CLI processes at once (each start costs ~1 s of CPU). */
const MAX_PARALLEL_PROCESSES = 4;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const live = new Set<ChildProcess>();

/** A running command: a spawned process (SpawnedCli), or one in the test process (InProcessCli: a worker). */
export type CliProcess = SpawnedCli | InProcessCli;

/** A spawned `node bin/durable-agent.js` process. */
export class SpawnedCli {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private readonly started = Date.now();
  private waiters: Array<() => void> = [];

  constructor(
    readonly args: string[],
    env: NodeJS.ProcessEnv,
    timeoutMs = PROCESS_TIMEOUT_MS,
    /** Written to the child's standard input, which is then closed (no stdin at all when undefined). */
    input?: string,
  ) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    countCliProcess(args);
    if (input !== undefined) this.child.stdin!.end(input);
    live.add(this.child);
    const notify = () => {
      for (const w of this.waiters) w();
    };
    this.child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      this.stdout += s;
      notify();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderr += s;
      notify();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.child.kill('SIGKILL');
    }, timeoutMs);
    this.exited = new Promise<Exit>((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code, signal) => {
        clearTimeout(timer);
        live.delete(this.child);
        notify();
        const exit = { code, signal, stdout: this.stdout, stderr: this.stderr, ms: Date.now() - this.started };
        if (timedOut) reject(new Error(`${this.describe()} did not end within ${timeoutMs} ms\n${tail(this.stderr)}`));
        else resolve(exit);
      });
    });
    this.exited.catch(() => {}); // reported when awaited
  }

  describe(): string {
    return `durable-agent ${this.args.map((a) => JSON.stringify(a)).join(' ')}`;
  }

  /** Resolves with the match once stderr matches `pattern`; rejects if the process ends first. */
  waitForStderr(pattern: RegExp, timeoutMs = 45_000): Promise<RegExpMatchArray> {
    return this.waitFor('stderr', pattern, timeoutMs);
  }

  /** Resolves with the match once stdout matches `pattern`; rejects if the process ends first. */
  waitForStdout(pattern: RegExp, timeoutMs = 45_000): Promise<RegExpMatchArray> {
    return this.waitFor('stdout', pattern, timeoutMs);
  }

  private waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`timed out waiting for ${pattern} on ${stream} of ${this.describe()}\n${tail(this[stream])}`)),
        timeoutMs,
      );
      const check = () => {
        const m = this[stream].match(pattern);
        if (m) return done(null, m);
        if (this.child.exitCode !== null || this.child.signalCode !== null) {
          done(new Error(`${this.describe()} ended before ${pattern} appeared on ${stream}\n${tail(this.stderr)}`));
        }
      };
      const done = (err: Error | null, m?: RegExpMatchArray) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        if (err) reject(err);
        else resolve(m!);
      };
      this.waiters.push(check);
      check();
    });
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

// `new CliProcess(...)` spawns, as it always did.
export const CliProcess = SpawnedCli;

/** Commands run as a process even through `cli(...)`: `server` owns a Temporal server process and installs exit hooks
 * for it once per process. `serve` and `codec-server` run in process like the rest: a test gives them to cli() only
 * to see them refuse to start, and one that served instead would be stopped by its time limit or at the file's end
 * (stopCommandsInProcess). `run`, `worker` and the rest run to their end in process: a test that needs their process
 * (a signal, the CLI runtime's own log lines) uses spawn() or cliProcess(). */
const SPAWNED_COMMANDS = new Set(['server']);

/** Whether `cli(args)` with `env` runs in the test process: a command that runs to its end and sets nothing global to
 * a process (OTEL_* installs a tracer provider; DURABLE_AGENT_PROFILE prints a process's timings). */
function inProcess(args: string[], env: NodeJS.ProcessEnv): boolean {
  // DURABLE_AGENT_TEST_CLI_IN_PROCESS=0 runs every command as a process, as the suite did before (to tell a failure of
  // the seam from one of the CLI).
  if (process.env.DURABLE_AGENT_TEST_CLI_IN_PROCESS === '0') return false;
  if (Object.keys(env).some((k) => k.startsWith('OTEL_') || k === 'DURABLE_AGENT_PROFILE')) return false;
  const [command] = args;
  return command === undefined || !SPAWNED_COMMANDS.has(command) || args.includes('--help') || args.includes('-h');
}

/** A command run to its end: in the test process when it can be (inProcess), else as a process. */
function runToEnd(args: string[], env: NodeJS.ProcessEnv, input?: string, timeoutMs = PROCESS_TIMEOUT_MS): Promise<Exit> {
  if (!inProcess(args, env)) return new SpawnedCli(args, env, timeoutMs, input).exited;
  const run = () => runCliInProcess(args, { env, input, timeoutMs, cwd: ROOT });
  // Loading a config file sets process.exit aside while the file runs (src/config/load.ts): two loads at once in one
  // process would put back each other's. Commands given --config run one at a time here.
  return givesConfig(args) ? oneConfigAtATime(run) : run();
}

const givesConfig = (args: string[]) => args.some((a) => a === '--config' || a.startsWith('--config='));

let configTail: Promise<unknown> = Promise.resolve();
function oneConfigAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const result = configTail.then(fn, fn);
  configTail = result.catch(() => undefined);
  return result;
}

/** One CLI command against the shared dev server, with none of the outer ANTHROPIC_* / AGENT_* / TEMPORAL_* variables. */
export function cliCommand(args: string[]): Promise<Exit> {
  const vars: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(vars)) if (/^(ANTHROPIC_|AGENT_|TEMPORAL_)/.test(key)) delete vars[key];
  return withSlot(() => runToEnd(args, { ...vars, TEMPORAL_ADDRESS: testServerAddress(), NO_COLOR: '1' }));
}

export const tail = (s: string, lines = 30) => s.trim().split('\n').slice(-lines).join('\n');

// A small semaphore, so a test that fans out many processes does not starve the others of CPU.
let running = 0;
const queued: Array<() => void> = [];
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL_PROCESSES) await new Promise<void>((resolve) => queued.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    queued.shift()?.();
  }
}

type EnvOverrides = Record<string, string | undefined>;

export interface CliSession {
  taskQueue: string;
  /** Runs a command to its end (`input`: its standard input): in the test process unless it must have a process of
   * its own (inProcess, SPAWNED_COMMANDS). */
  cli(args: string[], extra?: EnvOverrides, input?: string): Promise<Exit>;
  /** Runs a command to its end as a process: where the process is what is tested (its exit, its streams). */
  cliProcess(args: string[], extra?: EnvOverrides, input?: string): Promise<Exit>;
  /** Starts a long-lived command as a process (a worker to SIGKILL, a run to interrupt with a real signal); the caller
   * ends it. */
  spawn(args: string[], extra?: EnvOverrides, timeoutMs?: number): SpawnedCli;
  /** Starts a command the test follows while it runs (its output as it comes, then its end: `watch`, a `result`
   * waiting for a worker): in the test process when it can be (not given --config, whose loading is one at a time),
   * else as a process. */
  background(args: string[], extra?: EnvOverrides): CliProcess;
  /** Starts `worker --scripted` answering from `script` and resolves once it polls its task queue: in the test
   * process (stopWorker and kill('SIGTERM'/'SIGINT') stop it; it has no pid). */
  worker(script: unknown[]): Promise<CliProcess>;
  /** The same worker as a process: for a test that SIGKILLs it or needs its pid. */
  workerProcess(script: unknown[]): Promise<CliProcess>;
  /** Runs `start <args>`, expects exit 0, and returns the workflow id it printed. */
  startedId(args: string[]): Promise<string>;
}

export interface CliEnv {
  /** A client on the test server (valid inside tests). */
  client(): Client;
  /** One test's world: its own task queue. */
  session(base?: EnvOverrides): CliSession;
  /** Writes a JSON script file (for AGENT_SCRIPT) and returns its path. */
  /** Writes JSON (a script, a schema) to a temporary file and returns its path. */
  scriptFile(json: unknown): Promise<string>;
}

export function useCli(): CliEnv {
  let address: string;
  let client: Client | undefined;
  let scriptDir: string | undefined;

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
      throw new Error('dist/cli/main.js is missing: run `npm run build` before these tests (they run the built CLI)');
    }
    address = testServerAddress();
    client = new Client({ connection: await Connection.connect({ address }) });
    scriptDir = await mkdtemp(path.join(tmpdir(), 'durable-agent-cli-test-'));
  });

  afterAll(async () => {
    for (const child of live) child.kill('SIGKILL');
    await stopCommandsInProcess();
    await client?.connection.close();
    if (scriptDir) await rm(scriptDir, { recursive: true, force: true });
  });

  const scriptFile = async (json: unknown) => {
    const file = path.join(scriptDir!, `script-${randomUUID()}.json`);
    await writeFile(file, JSON.stringify(json));
    return file;
  };

  const session = (base: EnvOverrides = {}): CliSession => {
    const taskQueue = `cli-test-${randomUUID()}`;
    const envFor = (extra: EnvOverrides = {}): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env)) if (/^(ANTHROPIC_|AGENT_|TEMPORAL_)/.test(key)) delete env[key];
      Object.assign(env, { TEMPORAL_ADDRESS: address, AGENT_TASK_QUEUE: taskQueue, NO_COLOR: '1' });
      for (const [key, value] of Object.entries({ ...base, ...extra })) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
      return env;
    };
    const spawnCli = (args: string[], extra?: EnvOverrides, timeoutMs?: number) => new SpawnedCli(args, envFor(extra), timeoutMs);
    const background = (args: string[], extra?: EnvOverrides): CliProcess => {
      const env = envFor(extra);
      return inProcess(args, env) && !givesConfig(args) ? startCliInProcess(args, { env, timeoutMs: PROCESS_TIMEOUT_MS, cwd: ROOT }) : new SpawnedCli(args, env);
    };
    const cli = (args: string[], extra?: EnvOverrides, input?: string) => withSlot(() => runToEnd(args, envFor(extra), input));
    const cliProcess = (args: string[], extra?: EnvOverrides, input?: string) =>
      withSlot(() => new SpawnedCli(args, envFor(extra), PROCESS_TIMEOUT_MS, input).exited);
    return {
      taskQueue,
      cli,
      cliProcess,
      spawn: spawnCli,
      background,
      async worker(script) {
        const worker = background(['worker', '--scripted'], { AGENT_SCRIPT: await scriptFile(script) });
        await worker.waitForStderr(new RegExp(`worker polling task queue "${taskQueue}"`));
        return worker;
      },
      async workerProcess(script) {
        const worker = spawnCli(['worker', '--scripted'], { AGENT_SCRIPT: await scriptFile(script) });
        await worker.waitForStderr(new RegExp(`worker polling task queue "${taskQueue}"`));
        return worker;
      },
      async startedId(args) {
        const exit = await cli(['start', ...args]);
        expectExit(exit, 0);
        return exit.stdout.trim();
      },
    };
  };

  return {
    client: () => {
      if (!client) throw new Error('useCli(): the client exists only inside tests');
      return client;
    },
    session,
    scriptFile,
  };
}

/** The exit code, with the process output in the failure message when it is not the expected one. */
export function expectExit(exit: Exit, code: number): void {
  expect(exit.code, `exit code (signal ${exit.signal})\n--- stdout:\n${exit.stdout}\n--- stderr:\n${tail(exit.stderr)}`).toBe(code);
}

/** A usage / configuration error: exit 2, nothing at all on stdout, an `error:` line on stderr. */
export function expectUsageError(exit: Exit, message: RegExp): void {
  expectExit(exit, 2);
  expect(exit.stdout).toBe('');
  expect(exit.stderr).toMatch(/^error: /m);
  expect(exit.stderr).toMatch(message);
}

/** stdout parsed as exactly one JSON document. */
export function jsonOf<T = unknown>(exit: Exit): T {
  try {
    return JSON.parse(exit.stdout) as T;
  } catch (err) {
    throw new Error(`stdout is not exactly one JSON document (${(err as Error).message}):\n${exit.stdout}\n--- stderr:\n${tail(exit.stderr)}`);
  }
}

/** Polls `condition` every 100 ms until it holds. (vi.waitFor, not expect.poll: the global expect cannot poll
 * inside a concurrent test.) */
export async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`timed out waiting until ${what}`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

/** Stops a worker started by a test (SIGTERM, then waits for it to end). */
export async function stopWorker(worker: CliProcess | undefined): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.kill('SIGTERM');
  await worker.exited.catch(() => {});
}

/**
 * `server` on a gRPC and a Web UI port found free, once it has printed its Web UI. Another process can take one
 * of them before the server binds it (the server then exits 2, "port N is in use"): then it is started again on
 * fresh ports, up to 3 more times.
 */
export async function startServerOnFreePorts(
  session: CliSession,
  args: string[],
  extra?: EnvOverrides,
  timeoutMs = 90_000,
): Promise<{ server: CliProcess; port: number; uiPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const [port, uiPort] = [await findFreePort(), await findFreePort()];
    const server = session.spawn(['server', '--port', String(port), '--ui-port', String(uiPort), ...args], extra);
    try {
      await server.waitForStdout(/Web UI: \S+\n/, timeoutMs);
      return { server, port, uiPort };
    } catch (err) {
      server.kill('SIGKILL');
      const exit = await server.exited.catch(() => null);
      if (attempt > 3 || exit?.code !== 2 || !/ is in use/.test(exit.stderr)) throw err;
      console.error(`server: a port was taken before it could bind it (${exit.stderr.trim()}); starting it again on fresh ports`);
    }
  }
}

// Script turns.
export const toolTurn = (expression: string, text = `computing ${expression}`) => ({
  content: [
    { type: 'text', text },
    { type: 'tool_use', name: 'calculator', input: { expression } },
  ],
  stop_reason: 'tool_use',
});
export const endTurn = (text: string, delayMs?: number) => ({
  ...(delayMs !== undefined ? { delayMs } : {}),
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
});
