// Standalone scripted model: `node dist/scripted/main.js [--port 4010] [--host 127.0.0.1] [--script FILE]`.
// Prints the base URL on stdout (for ANTHROPIC_BASE_URL) and serves until SIGINT/SIGTERM. Its flags go through the
// CLI's own parser, so a mistyped one is named, with a suggestion, the way `durable-agent` names it.
import { parseArgs, UsageError } from '../core/args.js';
import { franceDemoScript, loadScriptFile } from './demo.js';
import { startScriptedModel } from './server.js';

const FLAGS = {
  port: { type: 'int', min: 0, max: 65535, help: 'port to listen on (default 4010; 0: any free port)' },
  host: { type: 'string', help: 'address to listen on (default 127.0.0.1)' },
  script: { type: 'string', value: 'FILE', help: 'a JSON script of turns (default: $AGENT_SCRIPT, else the France demo)' },
} as const;

async function main(): Promise<void> {
  const { flags, positionals } = parseArgs(process.argv.slice(2), FLAGS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (flags: --port, --host, --script)`);
  const file = flags.script ?? process.env.AGENT_SCRIPT;
  const script = file ? await loadScriptFile(file) : franceDemoScript;
  const name = file ? `the script ${file}` : 'the built-in France demo script';
  const server = await startScriptedModel({ script, name, port: flags.port ?? 4010, host: flags.host });
  process.stdout.write(`${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`scripted model: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
