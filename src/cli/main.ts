// durable-agent: the command line. stdout carries only each command's output; logs go to stderr.
import { readFileSync } from 'node:fs';
import { parseArgs, UsageError } from '../core/args.js';
import { tracingConfigFromEnv } from '../core/otel-config.js';
import { asksForHelp, commandHelp, type CommandDef } from './command.js';
import { reportError } from './errors.js';
import { EXIT, exitWhenFlushed } from './output.js';
import { nearestName as nearest } from '../core/suggest.js';
import { profileMark } from './profile.js';

export interface CommandEntry {
  /** One line for the command list of `--help`; the command's own help is in its module, next to its flags. */
  summary: string;
  /** Loaded on use: `--help` and usage errors answer at once, without loading Temporal's worker. */
  load(): Promise<CommandDef>;
}

// To add a command: one entry here, and a `defineCommand({ usage, description, flags, examples, run })` in its
// module under commands/.
export const COMMANDS: Record<string, CommandEntry> = {
  run: {
    summary: 'start a run and wait for it, with a worker in this process (embedded server when none runs)',
    load: async () => (await import('./commands/run.js')).run,
  },
  demo: {
    summary: 'the seed example (France population, 15%) end to end; scripted model without ANTHROPIC_API_KEY',
    load: async () => (await import('./commands/run.js')).demo,
  },
  start: { summary: 'start a run and print its workflow id (a worker elsewhere runs it)', load: async () => (await import('./commands/start.js')).start },
  result: { summary: 'wait for a run and print its result', load: async () => (await import('./commands/start.js')).result },
  status: { summary: 'live state of a run: steps, tokens, cost, guard, tools in flight, approvals', load: async () => (await import('./commands/status.js')).status },
  transcript: { summary: 'the whole conversation of a run', load: async () => (await import('./commands/transcript.js')).transcript },
  watch: { summary: 'follow a run step by step until it ends, then print its result', load: async () => (await import('./commands/watch.js')).watch },
  list: { summary: 'recent runs, with their status, steps, tokens and cost', load: async () => (await import('./commands/list.js')).list },
  schedule: {
    summary: 'recurring runs on Temporal Schedules: create (--cron or --every), list, describe, pause, unpause, trigger, delete',
    load: async () => (await import('./commands/schedule.js')).schedule,
  },
  approve: { summary: 'approve a tool call waiting for a decision', load: async () => (await import('./commands/steer.js')).approve },
  deny: { summary: 'deny a tool call waiting for a decision (the model gets the reason)', load: async () => (await import('./commands/steer.js')).deny },
  answer: { summary: "answer an MCP server's question (elicitation) a run waits on", load: async () => (await import('./commands/answer.js')).answer },
  send: { summary: 'a follow-up message for a running or chat run', load: async () => (await import('./commands/steer.js')).send },
  close: { summary: 'end a chat run', load: async () => (await import('./commands/steer.js')).close },
  cancel: { summary: 'cancel a run: it ends as cancelled with its partial answer', load: async () => (await import('./commands/steer.js')).cancel },
  'complete-tool': {
    summary: 'give a tool call waiting for an outside completion its result (the token its tool handed out)',
    load: async () => (await import('./commands/complete-tool.js')).completeTool,
  },
  resume: { summary: 'go on with a stopped, failed or cancelled run (worker in this process)', load: async () => (await import('./commands/resume.js')).resume },
  replay: {
    summary: 'replay recorded runs with the current tools (and model): where they first diverge; exit 1 when one does',
    load: async () => (await import('./commands/replay.js')).replay,
  },
  fork: { summary: "a new run that reuses a run's recorded steps 1 to N-1 and goes on live from step N (worker in this process)", load: async () => (await import('./commands/fork.js')).fork },
  serve: {
    summary: 'the HTTP API: start, read, follow (Server-Sent Events) and steer runs over HTTP, with bearer tokens',
    load: async () => (await import('./commands/serve.js')).serve,
  },
  mcp: { summary: 'OAuth for MCP servers: login <server> (once, in a browser), logout <server>, status', load: async () => (await import('./commands/mcp.js')).mcp },
  worker: { summary: 'run a worker until interrupted', load: async () => (await import('./commands/worker.js')).worker },
  server: { summary: 'the embedded Temporal dev server with its Web UI, in the foreground', load: async () => (await import('./commands/server.js')).server },
  'codec-server': {
    summary: "decrypt payloads for the Web UI with AGENT_ENCRYPTION_KEYS (Temporal's codec-server protocol)",
    load: async () => (await import('./commands/codec-server.js')).codecServer,
  },
};

export function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length)) + 2;
  const commands = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`);
  return `durable-agent: durable Claude tool-use agent runs on Temporal

usage: durable-agent <command> [options]   (from the project: npm run --silent agent -- <command>)

commands:
${commands.join('\n')}

durable-agent <command> --help (or: help <command>) shows a command's options and an example.
durable-agent --version prints the version.

exit codes: 0 completed, 1 failed, 2 usage or configuration error, 3 stopped, 4 cancelled, 130 detached
DEBUG=durable-agent prints the stack trace of an unexpected error (for a bug report).
`;
}

/** The package's version, from the package.json next to dist/ (or src/). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  profileMark('cli-loaded');
  const [command, ...rest] = argv;
  try {
    if (!command) {
      process.stderr.write(overview());
      return EXIT.usage;
    }
    if (command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
      process.stdout.write(overview());
      return 0;
    }
    if (command === '--version' || command === '-V' || command === 'version') {
      process.stdout.write(`${version()}\n`);
      return 0;
    }
    if (command === 'help') {
      process.stdout.write(commandHelp(await find(rest[0]).load()));
      return 0;
    }
    const def = await find(command).load();
    profileMark('command-loaded');
    if (asksForHelp(rest)) {
      process.stdout.write(commandHelp(def));
      return 0;
    }
    const parsed = parseArgs(rest, def.flags);
    // Traced (docs/observability.md) only when an OTEL_* variable asks: the OpenTelemetry SDK is not loaded otherwise.
    if (!tracingConfigFromEnv(process.env)) return await def.run(parsed);
    const { withCallerTrace } = await import('../observability/caller-trace.js');
    return await withCallerTrace(() => def.run(parsed));
  } catch (err) {
    return reportError(err);
  }
}

function find(name: string): CommandEntry {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry) return entry;
  const guess = nearest(name, Object.keys(COMMANDS));
  throw new UsageError(
    `unknown command "${name}"${guess ? ` (did you mean ${guess}?)` : ''} (commands: ${Object.keys(COMMANDS).join(', ')}; see --help)`,
  );
}

/** The process entry point (bin/durable-agent.js): runs the command, then exits once all output is written. */
export async function runCli(argv: string[]): Promise<never> {
  // A reader that closed early (`| head`) is not an error of the command: stop writing, keep the exit code.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  // Whatever escapes a command still ends as one line (the stack only with DEBUG=durable-agent).
  const crash = (err: unknown) => void exitWhenFlushed(reportError(err));
  process.on('unhandledRejection', crash);
  process.on('uncaughtException', crash);
  const code = await main(argv);
  profileMark('done');
  return exitWhenFlushed(code);
}
