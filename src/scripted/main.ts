// Standalone scripted model: `node dist/scripted/main.js [--port 4010] [--host 127.0.0.1] [--script FILE]`.
// Prints the base URL on stdout (for ANTHROPIC_BASE_URL) and serves until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { franceDemoScript, loadScriptFile } from './demo.js';
import { startScriptedModel } from './server.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '4010' }, host: { type: 'string' }, script: { type: 'string' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${values.port}`);
  const file = values.script ?? process.env.AGENT_SCRIPT;
  const script = file ? await loadScriptFile(file) : franceDemoScript;
  const server = await startScriptedModel({ script, port, host: values.host });
  process.stdout.write(`${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`scripted model: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
