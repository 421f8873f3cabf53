// The CLI's entry point called in the test process: `main(argv)` (src/cli/main.ts) returns the exit code, and what a
// process would have of its own is given to it per call through an AsyncLocalStorage, so concurrent calls do not
// mix: its environment (process.env), its standard input (process.stdin) and its stdout and stderr (process.stdout
// and process.stderr writes, captured). What the CLI would install once per process is not installed again: the
// Temporal runtime (the test process has one: test/setup-runtime.ts), and signal or exit listeners a command adds
// are removed when it returns. A spawned process costs about a second of CPU; this, a few milliseconds after the
// first call has loaded the modules.
//
// A command that runs until stopped (`worker`) runs here too (startCliInProcess): SIGINT and SIGTERM listeners it adds
// are its own, and kill() calls them and shuts down the Temporal workers it created (the SDK's runtime would, on a
// real signal, for every worker of the process). What needs a real process (SIGKILL, a pid) uses a spawned one.
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Exit } from './cli.js';

interface Io {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: string;
  stderr: string;
  /** Called after each write (waitForStdout/waitForStderr). */
  wrote: () => void;
  /** SIGINT/SIGTERM listeners the command added. */
  signals: EventEmitter;
  /** The Temporal workers the command created. */
  workers: Array<{ shutdown(): void }>;
  /** Called by process.exit inside the command (exitWhenFlushed: a detach on SIGINT, a wait stopped by SIGTERM):
   * the command ends with that code, the test process goes on. */
  exit: (code: number) => void;
}

const io = new AsyncLocalStorage<Io>();
let temporalHooked: Promise<void> | undefined;

type Write = (chunk: unknown, encoding?: unknown, cb?: unknown) => boolean;

// What is the process's own (process.env, the stdout/stderr writes, process.stdin, the signal listeners) is given to
// each command through `io`. A test file may replace one of them between two commands (one saved process.env and
// assigned the copy back, which left every later command of its test process reading the test process's own
// environment: no TEMPORAL_ADDRESS), so each command checks that the hooks are in place and puts back what is not.
const HOOKED = Symbol('durable-agent in-process CLI hook');
const isHooked = (f: unknown) => typeof f === 'function' && (f as unknown as Record<symbol, unknown>)[HOOKED] === true;
const mark = <T extends object>(f: T): T => Object.assign(f, { [HOOKED]: true });
let envProxy: NodeJS.ProcessEnv | undefined;

function hookProcessState(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = process[name];
    if (isHooked(stream.write)) continue;
    const original = stream.write.bind(stream) as Write;
    stream.write = mark((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      const store = io.getStore();
      if (!store) return original(chunk, encoding, cb);
      store[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      store.wrote();
      const callback = typeof encoding === 'function' ? encoding : cb;
      if (typeof callback === 'function') process.nextTick(callback as () => void);
      return true;
    }) as typeof stream.write;
  }

  if (!envProxy || process.env !== envProxy) {
    const real = process.env;
    const target = () => io.getStore()?.env ?? real;
    process.env = envProxy = new Proxy(real, {
      get: (_t, key) => (typeof key === 'string' ? target()[key] : undefined),
      set: (_t, key, value) => ((target()[key as string] = String(value)), true),
      has: (_t, key) => key in target(),
      deleteProperty: (_t, key) => delete target()[key as string],
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_t, key) => {
        const env = target();
        return typeof key === 'string' && Object.hasOwn(env, key) ? { value: env[key], writable: true, enumerable: true, configurable: true } : undefined;
      },
    });
  }

  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  if (!isHooked(stdin.get)) {
    Object.defineProperty(process, 'stdin', {
      configurable: true,
      enumerable: stdin.enumerable,
      get: mark(() => io.getStore()?.stdin ?? (stdin.get ? stdin.get.call(process) : stdin.value)),
    });
  }

  // A command's SIGINT/SIGTERM listeners are its own (kill() calls them), never the process's.
  const SIGNALS = new Set(['SIGINT', 'SIGTERM']);
  for (const method of ['on', 'addListener', 'once', 'removeListener', 'off'] as const) {
    if (isHooked(process[method])) continue;
    const original = process[method].bind(process) as (event: string, listener: (...a: unknown[]) => void) => NodeJS.Process;
    (process as unknown as Record<string, unknown>)[method] = mark((event: string, listener: (...a: unknown[]) => void) => {
      const store = io.getStore();
      if (!store || !SIGNALS.has(event)) return original(event, listener);
      store.signals[method](event, listener);
      return process;
    });
  }
}

const TEST_PROCESS_HOLDS_THE_RUNTIME = Symbol('the test process holds the Temporal runtime');

/** Hooks into Temporal's SDK, once per process (its modules are never loaded again). */
async function hookTemporal(): Promise<void> {
  // The CLI installs its runtime (its logger on stderr) when a command replays a run; the test process has one.
  const { Runtime, Worker } = await import('@temporalio/worker');
  const install = Runtime.install.bind(Runtime);
  Runtime.install = ((options: Parameters<typeof Runtime.install>[0]) => (io.getStore() ? Runtime.instance() : install(options))) as typeof Runtime.install;
  // The runtime is the test process's, never a command's. The SDK shuts it down once its last worker and connection
  // are gone and creates it again at the next use, and a new runtime listens for SIGINT/SIGTERM (process.on): created
  // inside a command, those listeners were the command's, so stopping that command (kill: its signals) put the
  // process's runtime into its shutdown state, which shuts down every worker of every test after it at once ("Worker
  // was shutdown": the runs of the next files waited for a worker that never took them).
  const instance = Runtime.instance.bind(Runtime);
  Runtime.instance = (() => io.exit(instance)) as typeof Runtime.instance;
  // And it is never shut down while the test process lives. The SDK (1.24, runtime.js) shuts a runtime down the moment
  // its last worker or connection is gone: one command's worker stopping could do that while another command was
  // between Runtime.instance() and creating its replay worker on it, which then failed ("failed to downcast any to
  // JsBox<…Runtime>": `transcript`, `fork`). A separate process per command never shares its runtime, so this is the
  // test process's alone: it holds one reference of its own, which nothing releases.
  (instance() as unknown as { backRefs: Set<unknown> }).backRefs.add(TEST_PROCESS_HOLDS_THE_RUNTIME);
  const create = Worker.create.bind(Worker);
  Worker.create = (async (options: Parameters<typeof Worker.create>[0]) => {
    const worker = await create(options);
    io.getStore()?.workers.push(worker);
    return worker;
  }) as typeof Worker.create;
}

// process.exit inside a command ends the command, not the test process (vitest would report its fork as crashed).
// Put back before each command: vitest sets a process.exit of its own for each test file a process runs.
let exitBefore: typeof process.exit = process.exit;
const commandExit = ((code?: number | string | null) => {
  const store = io.getStore();
  if (!store) return exitBefore(code as number);
  store.exit(Number(code ?? 0));
  return undefined as never;
}) as typeof process.exit;
function hookExit(): void {
  if (process.exit === commandExit) return;
  exitBefore = process.exit;
  process.exit = commandExit;
}

const PROCESS_EVENTS = ['SIGINT', 'SIGTERM', 'exit', 'beforeExit', 'unhandledRejection', 'uncaughtException'];
const listenersOf = (event: string) => (process.listeners as (e: string) => Array<(...a: unknown[]) => void>)(event);

export interface InProcessOptions {
  env: NodeJS.ProcessEnv;
  /** Standard input, then closed; none (at its end at once) when undefined, as a process given 'ignore'. */
  input?: string;
  timeoutMs: number;
  /** Where the process would have run: must be the test process's own (it is not changed). */
  cwd: string;
}

/** `durable-agent <args>` in this process: its exit code and output, as a spawned process's Exit. */
export function runCliInProcess(args: string[], options: InProcessOptions): Promise<Exit> {
  return startCliInProcess(args, options).exited;
}

/** A command running in this process, with what the tests use of a spawned one (test/helpers/cli.ts CliProcess). */
export class InProcessCli {
  readonly exited: Promise<Exit>;
  private readonly store: Io;
  private readonly waiters = new Set<() => void>();
  private code: number | null = null;
  private ended = false;
  private exitCalled: (code: number) => void = () => {};
  /** What stopWorker and the tests read of a child process. */
  readonly child: { pid: undefined; exitCode: number | null; signalCode: null; stdout: null; stderr: null; kill: (signal?: NodeJS.Signals) => boolean };

  constructor(
    readonly args: string[],
    options: InProcessOptions,
  ) {
    if (path.resolve(process.cwd()) !== path.resolve(options.cwd)) throw new Error(`the CLI in process runs in ${process.cwd()}, not ${options.cwd}`);
    const notify = () => this.waiters.forEach((w) => w());
    this.store = {
      env: { ...options.env },
      stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
      stdout: '',
      stderr: '',
      wrote: notify,
      signals: new EventEmitter(),
      workers: [],
      exit: (code) => this.exitCalled(code),
    };
    const self = this;
    this.child = {
      pid: undefined,
      get exitCode() {
        return self.code;
      },
      signalCode: null,
      stdout: null,
      stderr: null,
      kill: (signal: NodeJS.Signals = 'SIGTERM') => (this.kill(signal), true),
    };
    running.add(this);
    this.exited = this.run(options).finally(() => {
      running.delete(this);
      notify();
    });
    this.exited.catch(() => {}); // reported when awaited
  }

  get stdout(): string {
    return this.store.stdout;
  }

  get stderr(): string {
    return this.store.stderr;
  }

  private async run(options: InProcessOptions): Promise<Exit> {
    temporalHooked ??= hookTemporal();
    await temporalHooked;
    hookProcessState();
    hookExit();
    const { main } = await import('../../src/cli/main.js');
    const listeners = new Map(PROCESS_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          this.kill('SIGTERM');
          reject(new Error(`${this.describe()} did not end within ${options.timeoutMs} ms\n${this.store.stderr.slice(-3000)}`));
        }, options.timeoutMs);
      });
      const exitCalled = new Promise<number>((resolve) => (this.exitCalled = resolve));
      const code = await Promise.race([io.run(this.store, () => main(this.args)), exitCalled, timedOut]);
      this.code = code;
      return { code, signal: null, stdout: this.store.stdout, stderr: this.store.stderr, ms: Date.now() - started };
    } finally {
      this.ended = true;
      clearTimeout(timer);
      for (const [event, before] of listeners) {
        for (const listener of listenersOf(event)) if (!before.has(listener)) process.removeListener(event, listener);
      }
    }
  }

  describe(): string {
    return `durable-agent ${this.args.map((a) => JSON.stringify(a)).join(' ')} (in process)`;
  }

  /** SIGINT or SIGTERM: the command's own listeners, and its workers shut down, as the signal would in its process.
   * SIGKILL has no in-process equivalent (nothing can be killed without running its shutdown): a test that kills a
   * process needs a spawned one; here it stops the command as SIGTERM does. */
  kill(signal: NodeJS.Signals): void {
    const name = signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
    // In the command's context: what its listeners do (process.exit, writes) is the command's.
    io.run(this.store, () => this.store.signals.emit(name, name));
    for (const worker of this.store.workers) {
      try {
        worker.shutdown();
      } catch {
        // not running (yet, or any more)
      }
    }
  }

  waitForStderr(pattern: RegExp, timeoutMs = 45_000): Promise<RegExpMatchArray> {
    return this.waitFor('stderr', pattern, timeoutMs);
  }

  waitForStdout(pattern: RegExp, timeoutMs = 45_000): Promise<RegExpMatchArray> {
    return this.waitFor('stdout', pattern, timeoutMs);
  }

  private waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`timed out waiting for ${pattern} on ${stream} of ${this.describe()}\n${this.store.stderr.slice(-3000)}`)), timeoutMs);
      const check = () => {
        const m = this.store[stream].match(pattern);
        if (m) return done(null, m);
        if (this.ended) done(new Error(`${this.describe()} ended before ${pattern} appeared on ${stream}\n${this.store.stderr.slice(-3000)}`));
      };
      const done = (err: Error | null, m?: RegExpMatchArray) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (err) reject(err);
        else resolve(m!);
      };
      this.waiters.add(check);
      check();
    });
  }
}

const running = new Set<InProcessCli>();

/** Stops the commands still running in this process (SIGTERM: a worker shuts down), as a file's end kills the
 * processes it spawned: the next file of the test process finds none of them polling or holding its runtime. */
export async function stopCommandsInProcess(): Promise<void> {
  const left = [...running];
  for (const command of left) command.kill('SIGTERM');
  await Promise.all(left.map((command) => command.exited.catch(() => undefined)));
}

/** Starts `durable-agent <args>` in this process; `exited` resolves when main() returns. */
export function startCliInProcess(args: string[], options: InProcessOptions): InProcessCli {
  return new InProcessCli(args, options);
}
