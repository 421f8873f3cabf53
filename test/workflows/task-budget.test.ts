// A budget the model can see: with a token budget, each request carries output_config.task_budget (total and
// what is left), so the model can finish within it; an endpoint that refuses it gets requests without it.
import { describe, expect, it } from 'vitest';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests (each scripts the model, and says whether it takes a task budget).
const agents = useSharedAgent(env);

const threeTurns = [
  reply([text('First.'), toolUse('calculator', { expression: '6 * 7' })]),
  reply([text('Second.'), toolUse('calculator', { expression: '7 * 6' })]),
  reply([text('42')]),
];
type Budget = { type: string; total: number; remaining: number };
const budgetOf = (body: unknown) => (body as MessagesRequestBody & { output_config?: { task_budget?: Budget } }).output_config?.task_budget;

describe('task budget', () => {
  it('with --budget-tokens every request carries the budget and what is left of it, with the beta', async () => {
    await agents.with({ script: threeTurns }, async ({ run, model }) => {
      const result = await run('compute', { budgetTokens: 50_000, effort: 'low' });
      expect(result.status).toBe('completed');
      const budgets = model.requests.map((r) => budgetOf(r.body));
      expect(budgets.map((b) => b?.total)).toEqual([50_000, 50_000, 50_000]);
      expect(budgets[0]?.remaining).toBe(50_000);
      // What is left shrinks by what each call spent.
      expect(budgets[1]!.remaining).toBeLessThan(budgets[0]!.remaining);
      expect(budgets[2]!.remaining).toBeLessThan(budgets[1]!.remaining);
      expect(model.requests.every((r) => String(r.headers['anthropic-beta']).includes('task-budgets-2026-03-13'))).toBe(true);
      // Effort is kept next to it.
      expect((model.requests[0].body as { output_config: unknown }).output_config).toMatchObject({ effort: 'low', task_budget: { type: 'tokens' } });
    });
  });

  it('without --budget-tokens no request carries one', async () => {
    await agents.with({ script: threeTurns }, async ({ run, model }) => {
      expect((await run('compute')).status).toBe('completed');
      expect(model.requests.map((r) => budgetOf(r.body))).toEqual([undefined, undefined, undefined]);
    });
  });

  it('an endpoint that refuses it: one 400, then the run goes on without it (the budget guard still stops it)', async () => {
    await agents.with({ script: threeTurns, modelOptions: { taskBudget: false } }, async ({ run, model }) => {
      const result = await run('compute', { budgetTokens: 50_000 });
      expect(result).toMatchObject({ status: 'completed', steps: 3 });
      expect(model.requests.map((r) => r.status)).toEqual([400, 200, 200, 200]);
      expect(model.requests.slice(1).map((r) => budgetOf(r.body))).toEqual([undefined, undefined, undefined]);
    });
  });
});
