// The CLI's entry point called in the test process: `main(argv)` (src/cli/main.ts) returns the exit code, and what a
// process would have of its own is given to it per call through an AsyncLocalStorage, so concurrent calls do not
// mix: its environment (process.env), its standard input (process.stdin) and its stdout and stderr (process.stdout
// and process.stderr writes, captured). What the CLI would install once per process is not installed again: the
// Temporal runtime (the test process has one: test/setup-runtime.ts), and signal or exit listeners a command adds
// are removed when it returns. A spawned process costs about a second of CPU; this, a few milliseconds after the
// first call has loaded the modules.
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Exit } from './cli.js';

interface Io {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: string;
  stderr: string;
}

const io = new AsyncLocalStorage<Io>();
let hooked: Promise<void> | undefined;

type Write = (chunk: unknown, encoding?: unknown, cb?: unknown) => boolean;

async function hookProcess(): Promise<void> {
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = process[name];
    const original = stream.write.bind(stream) as Write;
    stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      const store = io.getStore();
      if (!store) return original(chunk, encoding, cb);
      store[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      const callback = typeof encoding === 'function' ? encoding : cb;
      if (typeof callback === 'function') process.nextTick(callback as () => void);
      return true;
    }) as typeof stream.write;
  }

  const real = process.env;
  const target = () => io.getStore()?.env ?? real;
  process.env = new Proxy(real, {
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

  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: stdin.enumerable,
    get: () => io.getStore()?.stdin ?? (stdin.get ? stdin.get.call(process) : stdin.value),
  });

  // The CLI installs its runtime (its logger on stderr) when a command replays a run; the test process has one.
  const { Runtime } = await import('@temporalio/worker');
  const install = Runtime.install.bind(Runtime);
  Runtime.install = ((options: Parameters<typeof Runtime.install>[0]) => (io.getStore() ? Runtime.instance() : install(options))) as typeof Runtime.install;
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
export async function runCliInProcess(args: string[], options: InProcessOptions): Promise<Exit> {
  if (path.resolve(process.cwd()) !== path.resolve(options.cwd)) throw new Error(`the CLI in process runs in ${process.cwd()}, not ${options.cwd}`);
  hooked ??= hookProcess();
  await hooked;
  const { main } = await import('../../src/cli/main.js');
  const store: Io = { env: { ...options.env }, stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]), stdout: '', stderr: '' };
  const listeners = new Map(PROCESS_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`durable-agent ${args.map((a) => JSON.stringify(a)).join(' ')} (in process) did not end within ${options.timeoutMs} ms\n${store.stderr.slice(-3000)}`)),
        options.timeoutMs,
      );
    });
    const code = await Promise.race([io.run(store, () => main(args)), timedOut]);
    return { code, signal: null, stdout: store.stdout, stderr: store.stderr, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
    for (const [event, before] of listeners) {
      for (const listener of listenersOf(event)) if (!before.has(listener)) process.removeListener(event, listener);
    }
  }
}
