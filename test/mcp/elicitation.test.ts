// MCP elicitation policies through a real worker: `accept-defaults` and `decline` answer at once (no question),
// `ask` holds a question the run shows, and `elicitationTimeout` answers it `cancel` when nobody does.
import { describe, expect, it } from 'vitest';
import { getAgentResult, getStatus } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { eventually, lastToolResults, startRun, useTestEnv, withAgent } from '../helpers/harness.js';
import { stdioFixture } from '../helpers/mcp.js';

const env = useTestEnv();

describe('MCP elicitation policies', () => {
  it('accepts with the schema defaults, declines, or asks and cancels after elicitationTimeout, per server', { timeout: 60_000 }, async () => {
    const script: Script = [
      reply([toolUse('fx__ask_defaults', {}), toolUse('fx__ask', { job: 'a' }), toolUse('dx__ask', { job: 'b' }), toolUse('tx__ask', { job: 'c' })]),
      reply([text('done')]),
    ];
    const fixture = stdioFixture({ args: ['--elicit'] });
    const mcpServers = {
      fx: { ...fixture, elicitation: 'accept-defaults' as const },
      dx: { ...fixture, elicitation: 'decline' as const },
      tx: { ...fixture, elicitationTimeout: '1500ms' },
    };
    await withAgent(env, { script, mcpServers }, async (h) => {
      const id = await startRun(h, 'ask around', { tools: ['fx__*', 'dx__*', 'tx__*'] });
      const waiting = await eventually(() => getStatus(env.client, id), (s) => (s.view?.pendingQuestions?.length ?? 0) > 0, 20_000);
      expect(waiting.view!.pendingQuestions).toEqual([
        expect.objectContaining({ server: 'tx', message: 'Which region should c run in?', timeoutMs: 1500 }),
      ]);
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done' });
      const [defaults, noDefaults, declined, timedOut] = lastToolResults(h.model.requests);
      // SEP-1034: every field the server gave a default comes back filled.
      expect(JSON.parse(defaults.content as string)).toEqual({
        action: 'accept',
        content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
      });
      // Its defaults do not fill the required region: declined, not accepted half-filled.
      expect(noDefaults.content).toBe('not run: the user chose decline');
      expect(declined.content).toBe('not run: the user chose decline');
      expect(timedOut.content).toBe('not run: the user chose cancel');
    });
  });

  it('ends a question nobody answers with the run, at its deadline, and shows nothing pending afterwards', { timeout: 60_000 }, async () => {
    const script: Script = (req) =>
      req.tool_choice?.type === 'none' ? reply([text('no answer came')]) : reply([toolUse('fx__ask', { job: 'late' })]);
    await withAgent(env, { script, mcpServers: { fx: stdioFixture({ args: ['--elicit'] }) } }, async (h) => {
      const id = await startRun(h, 'ask and wait', { tools: ['fx__*'], deadlineMs: 4000 });
      await eventually(() => getStatus(env.client, id), (s) => (s.view?.pendingQuestions?.length ?? 0) === 1, 20_000);
      const result = await getAgentResult(env.client, id);
      expect(result).toMatchObject({ status: 'stopped', guard: 'deadline' });
      const after = await getStatus(env.client, id);
      expect(after.view?.pendingQuestions).toBeUndefined();
    });
  });
});
