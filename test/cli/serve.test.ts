// `serve` as a user runs it (the built CLI): it refuses to start without a token, and with one it starts a run
// that a `worker` takes, reads its result, and stops cleanly on SIGTERM.
import { describe, expect, it } from 'vitest';
import { endTurn, expectExit, expectUsageError, toolTurn, useCli, type CliProcess } from '../helpers/cli.js';

const cli = useCli();
const TOKEN = 'cli-serve-test-token';

describe('durable-agent serve', { timeout: 120_000 }, () => {
  it('refuses to start without a token, or without auth on another host than 127.0.0.1 (exit 2, before connecting)', async () => {
    const s = cli.session({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expectUsageError(await s.cli(['serve', '--port', '0']), /no API token: set DURABLE_AGENT_API_TOKEN/);
    expectUsageError(await s.cli(['serve', '--insecure-no-auth', '--host', '0.0.0.0']), /--insecure-no-auth is only allowed with --host 127\.0\.0\.1/);
  });

  it('serves the API: a run started over HTTP is taken by the worker and its result read back; SIGTERM stops it with exit 0', async () => {
    const s = cli.session({ DURABLE_AGENT_API_TOKEN: TOKEN });
    let worker: CliProcess | undefined;
    const server = s.spawn(['serve', '--port', '0']);
    try {
      worker = await s.worker([toolTurn('6*7'), endTurn('42 it is')]);
      const [, url] = await server.waitForStderr(/serving the HTTP API on (http:\/\/\S+) /);
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const started = await fetch(`${url}/v1/runs`, { method: 'POST', headers, body: JSON.stringify({ task: 'six times seven', tools: ['calculator'] }) });
      expect(started.status).toBe(201);
      const { workflowId } = (await started.json()) as { workflowId: string };
      const result = await fetch(`${url}/v1/runs/${workflowId}/result?wait=60s`, { headers });
      expect(await result.json()).toMatchObject({ status: 'completed', text: '42 it is', toolCalls: 1 });
      expect(server.stderr).not.toContain(TOKEN);
      server.kill('SIGTERM');
      expectExit(await server.exited, 0);
    } finally {
      server.kill('SIGKILL');
      worker?.kill('SIGINT');
      await worker?.exited;
    }
  });
});
