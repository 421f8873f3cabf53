// `serve` says where its console is and which token signs in to it, naming the variable, never printing the token.
// Issue 42, item 8 (a).
import { describe, expect, it } from 'vitest';
import { useCli } from '../helpers/cli.js';

const cli = useCli();
const TOKEN = 'cli-serve-console-token';

describe('durable-agent serve', () => {
  it('prints the console address and the variable whose value signs in, not the token', async () => {
    const s = cli.session({ DURABLE_AGENT_API_TOKEN: TOKEN });
    const server = s.spawn(['serve', '--port', '0']);
    try {
      const [, url] = await server.waitForStderr(/serving the HTTP API on (http:\/\/\S+) /);
      const [line] = await server.waitForStderr(/^console: .*$/m, 10_000);
      expect(line).toBe(`console: ${url}/ (sign in with the value of DURABLE_AGENT_API_TOKEN, or DURABLE_AGENT_API_READ_TOKEN to only read)`);
      expect(server.stderr).not.toContain(TOKEN);
    } finally {
      server.kill('SIGKILL');
      await server.exited;
    }
  });
});
