// What an operator sees of a run in Temporal's own tools, on a default agent worker (no option, no flag): the
// stack-trace query (`temporal workflow stack`, the Web UI's "Stack Trace" tab) shows where the loop waits, and a
// failed run's failure reads in clear in `temporal workflow describe` when payloads are not encrypted. Real dev
// server, the real Temporal CLI, the scripted model through the real SDK.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { findTemporalCli } from '../../src/devserver/find-temporal.js';
import { apiError, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { testServerAddress } from '../helpers/test-server.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);
const run = promisify(execFile);

/** The Temporal CLI, as an operator runs it against the test's server. */
async function temporal(...args: string[]): Promise<string> {
  const cli = await findTemporalCli();
  const { stdout } = await run(cli, [...args, '--address', testServerAddress()], { encoding: 'utf8' });
  return stdout;
}

describe('a default agent worker in Temporal tools', () => {
  it('answers the stack-trace query: `temporal workflow stack` shows the loop waiting in its model call', async () => {
    // One calculator turn, then a model call the script holds until the test releases it.
    const script: Script = [reply([toolUse('calculator', { expression: '6*7' })]), { ...reply([text('42')]), hold: true }];
    await agents.with({ script }, async (h) => {
      const workflowId = await h.start('what is 6*7?');
      await vi.waitFor(() => expect(h.model.requests.length).toBe(2), { timeout: 15_000, interval: 50 });
      const stack = await temporal('workflow', 'stack', '--workflow-id', workflowId);
      expect(stack).toMatch(/at callModelOrFail \(.*workflows\/agent\.ts/);
      h.model.release();
      expect(await getAgentResult(env.client, workflowId)).toMatchObject({ status: 'completed', text: '42', steps: 2, toolCalls: 1 });
    });
  });

  it('a failed run without encryption: `temporal workflow describe` shows the failure message in clear', async () => {
    // A 400 is not retried: the run fails with the API's message.
    const script: Script = [apiError(400, 'invalid_request_error', 'messages: the first message must use the "user" role')];
    await agents.with({ script }, async (h) => {
      const workflowId = await h.start('hello');
      expect(await getAgentResult(env.client, workflowId)).toMatchObject({ status: 'failed' });
      const described = await temporal('workflow', 'describe', '--workflow-id', workflowId);
      expect(described).toContain('the first message must use the "user" role');
      expect(described).not.toContain('Encoded failure');
    });
  });
});
