// The step cap is a safety net: it must stop a run that never ends on its own, say so in the worker log, and
// still give the user something useful.
import { describe, expect, it } from 'vitest';
import type { MessagesRequestBody } from '../../src/scripted/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { scheduledActivities, useSharedAgent, useTestEnv } from '../helpers/harness.js';
import { workerLogs } from '../setup-runtime.js';


const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);

/** Every turn asks for another calculation, so the model never ends on its own; asked to sum up with tools
 * disabled, it does. */
const neverEnding = (req: MessagesRequestBody, turn: number) =>
  req.tool_choice?.type === 'none'
    ? reply([text('Partial answer: I counted to 4 and was still going.')])
    : reply([text(`step ${turn + 1}: computing`), toolUse('calculator', { expression: `${turn} + 1` })]);

describe('step cap', () => {
  it('stops a run after max_steps model calls with guard max_steps, a warning, and a summary call', async () => {
    await agents.with({ script: neverEnding }, async ({ run, model, env }) => {
      const result = await run('count forever', { maxSteps: 4 });
      expect(result.status).toBe('stopped');
      expect(result.guard).toBe('max_steps');
      expect(result.partial).toBe(true);
      expect(result.toolCalls).toBe(4);
      // Four loop calls, then the summary call with tools disabled but still defined.
      expect(result.steps).toBe(5);
      expect(result.text).toBe('Partial answer: I counted to 4 and was still going.');
      const answered = model.requests.filter((r) => r.status === 200);
      expect(answered).toHaveLength(5);
      const summary = answered[4].body as MessagesRequestBody;
      expect(summary.tool_choice).toEqual({ type: 'none' });
      expect(summary.tools?.length).toBeGreaterThan(0);
      expect((await scheduledActivities(env.client, result.workflowId)).filter((a) => a === 'callModel')).toHaveLength(5);
      const warning = workerLogs().find((l) => l.level === 'WARN' && /max_steps/.test(l.message) && l.meta?.workflowId === result.workflowId);
      expect(warning?.message).toMatch(/step cap reached: 4 model calls/);
    });
  });

  it('without a summary call, the partial answer is the last assistant text', async () => {
    await agents.with({ script: neverEnding }, async ({ run, model }) => {
      const result = await run('count forever', { maxSteps: 3, summaryOn: [] });
      expect(result).toMatchObject({ status: 'stopped', guard: 'max_steps', steps: 3, text: 'step 3: computing' });
      expect(model.requests.filter((r) => r.status === 200)).toHaveLength(3);
    });
  });
});
