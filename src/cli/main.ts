// durable-agent: the command line. stdout carries only each command's output; logs go to stderr.
import { UsageError } from './args.js';
import { logLine } from './log.js';
import { EXIT } from './output.js';

type Command = (argv: string[]) => Promise<number>;

// Loaded on use: `--help` and usage errors answer at once, without loading Temporal's worker.
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  demo: async () => (await import('./commands/run.js')).demoCommand,
  start: async () => (await import('./commands/run.js')).startCommand,
  result: async () => (await import('./commands/run.js')).resultCommand,
  status: async () => (await import('./commands/inspect.js')).statusCommand,
  transcript: async () => (await import('./commands/inspect.js')).transcriptCommand,
  watch: async () => (await import('./commands/watch.js')).watchCommand,
  list: async () => (await import('./commands/inspect.js')).listCommand,
  approve: async () => (await import('./commands/steer.js')).approveCommand,
  deny: async () => (await import('./commands/steer.js')).denyCommand,
  send: async () => (await import('./commands/steer.js')).sendCommand,
  close: async () => (await import('./commands/steer.js')).closeCommand,
  cancel: async () => (await import('./commands/steer.js')).cancelCommand,
  resume: async () => (await import('./commands/steer.js')).resumeCommand,
  worker: async () => (await import('./commands/worker.js')).workerCommand,
  server: async () => (await import('./commands/server.js')).serverCommand,
  'codec-server': async () => (await import('./commands/codec-server.js')).codecServerCommand,
};

export const HELP = `durable-agent: durable Claude tool-use agent runs on Temporal

usage: durable-agent <command> [options]   (from the project: npm run --silent agent -- <command>)

commands:
  run "<task>"            start a run and wait for it, with a worker in this process; starts an embedded
                          Temporal server when none is configured or running (Ctrl-C detaches)
  demo                    the seed example (France population, 15%) end to end; uses Claude when
                          ANTHROPIC_API_KEY is set, else says so and uses the scripted model
  start "<task>"          start a run and print its workflow id (a worker elsewhere runs it)
  result <workflowId>     wait for a run and print its result
  status <workflowId>     live state: steps, tokens, cost, guard, tools in flight, pending approvals, time left,
                          last text (--json); without a worker, the server's record, saying live details are missing
  transcript <workflowId> the whole conversation, one block per message (--json: the array of messages)
  watch <workflowId>      follow a run step by step until it ends, then print its result (exit code as result)
  list                    recent runs: --status S (running, awaiting_approval, completed, stopped, failed,
                          cancelled), --limit N (20), --json
  approve <workflowId> [<toolUseId>]
                          approve a tool call waiting for a decision (the toolUseId may be left out when only
                          one is waiting)
  deny <workflowId> [<toolUseId>] [--reason TEXT]
                          deny it: the model gets an error result carrying the reason
  send <workflowId> "<text>"  a follow-up message, taken at the next turn (or by a chat run waiting for one)
  close <workflowId>      end a chat run once it waits for its next message
  cancel <workflowId>     cancel a run: it ends with status cancelled and its partial answer
  resume <workflowId>     go on with a stopped, failed or cancelled run, with a worker in this process (like run):
                          --max-steps N and --budget-tokens N add to what it used, --deadline D from now,
                          --scripted, --json
  worker                  run a worker until interrupted
  server                  run the embedded Temporal dev server with its Web UI (and, with
                          AGENT_ENCRYPTION_KEYS set, a codec server the UI decrypts through)
  codec-server            decrypt payloads for the Web UI with AGENT_ENCRYPTION_KEYS (Temporal's codec-server
                          protocol): --port N (8888), --host ADDRESS (127.0.0.1), --allow-origin URL,...
                          (default: the UI on http://localhost:8233)

options of run and start:
  --json                  print one JSON document
  --model ID              model id (default: $AGENT_MODEL or claude-sonnet-5-5)
  --max-steps N           step cap: model calls before the run stops (default 20); a final summary
                          call may follow (see --summary-on)
  --max-output-tokens N   max_tokens of each model call (default 4096)
  --system TEXT           system prompt
  --tools a,b             tools the model may use (default: all: built-ins, the config's tools, each MCP
                          server's as <server>__*); a typo gets the nearest name suggested
  --config FILE           (also worker, resume) an ES module whose default export is defineConfig({ tools,
                          mcpServers }); default: durable-agent.config.js or .mjs in the working directory
  --id ID                 workflow id; when a run with it exists, attach to it instead of starting another
  --scripted              (run, worker) use the offline scripted model instead of Claude
  --budget-tokens N       stop when input+output+cache tokens reach N
  --budget-usd X          stop when the cost reaches X dollars (price table; see --prices)
  --prices FILE           JSON prices (USD per million tokens) overriding the built-in table
  --deadline D            wall-clock limit of the job: 90s, 10m, 2h, 1h30m
  --summary-on LIST       guards after which a last tool-less call sums up progress
                          (default max_steps,repetition,error_streak; or none)
  --output-schema FILE    JSON Schema of the final answer: adds a submit_answer tool; result.output
  --effort LEVEL          low, medium, high, xhigh or max (output_config.effort)
  --thinking N            extended thinking budget in tokens (>= 1024, < --max-output-tokens)
  --no-prompt-cache       do not mark the conversation prefix for prompt caching
  --approve a,b           tools whose every call waits for \`approve\` or \`deny\`
  --chat                  keep the run open after its answer for follow-ups (\`send\`), until \`close\`
  --idle-timeout D        with --chat: end the run after D without a message (default 1h)
  --heartbeat-timeout D   how soon a worker that died mid-call is noticed and the call retried (default 30s)
  --continue-as-new-after N  continue-as-new after N model calls in one run (default: when the server suggests)
  --max-tool-output N     truncate tool output above N characters, with a note to the model (default 100000)
  --context-clear-at N    clear old tool results from requests once a prompt reaches N tokens (default 150000)

options of worker: --scripted, --max-model-calls N (concurrent model calls on this worker), --config FILE

options of server: --port N (7233), --ui-port N (8233), --db FILE (.durable-agent/temporal.db),
  --codec-port N (8888, with AGENT_ENCRYPTION_KEYS)

exit codes: 0 completed, 1 failed, 2 usage or configuration error, 3 stopped, 4 cancelled, 130 detached
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    (command ? process.stdout : process.stderr).write(HELP);
    return command ? 0 : EXIT.usage;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    logLine(`error: unknown command "${command}" (commands: ${Object.keys(COMMANDS).join(', ')}; see --help)`);
    return EXIT.usage;
  }
  try {
    return await (await handler())(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      logLine(`error: ${err.message}`);
      return EXIT.usage;
    }
    // By name: the error classes live in modules this file does not load up front.
    if (err instanceof Error && err.name === 'WorkflowNotFoundError') {
      logLine(`error: no run with id "${(err as Error & { workflowId?: string }).workflowId}" on this Temporal server`);
      return EXIT.usage;
    }
    if (err instanceof Error && (err.name === 'RunNotResumableError' || err.name === 'EncryptionKeyError')) {
      logLine(`error: ${err.message}`);
      return EXIT.usage;
    }
    logLine(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT.failed;
  }
}
