// The side-effecting example tool records its effect once even when its activity is retried.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerTool, readLedger } from '../../examples/ledger-tool.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { definitionOf, useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// The file's worker has the tool's definition; each test brings the tool, on a ledger file of its own.
const agents = useSharedAgent(env, { tools: [definitionOf(ledgerTool('ledger.jsonl'))] });
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ledger example tool', () => {
  it('records a payment once when the activity fails after the effect and Temporal retries it', async () => {
    const file = join(dir, 'ledger.jsonl');
    const ledger = ledgerTool(file);
    let attempts = 0;
    // The first attempt dies after the effect, before its result is reported: an infrastructure failure.
    const flaky = defineTool<{ payee: string; amount: number }>({
      ...ledger,
      async execute(input, ctx) {
        const answer = await ledger.execute(input, ctx);
        if (++attempts === 1) throw new Error('connection reset while reporting the result');
        return answer;
      },
    });
    const script = [reply([toolUse('record_payment', { payee: 'ACME', amount: 12.5 })]), reply([text('Paid.')])];
    await agents.with({ script, tools: [flaky] }, async ({ run, model }) => {
      const result = await run('pay ACME $12.50', { tools: ['record_payment'] });
      expect(result.status).toBe('completed');
      expect(attempts).toBe(2);
      const entries = readLedger(file);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ payee: 'ACME', amountCents: 1250 });
      expect(entries[0].key).toMatch(/\/toolu_0_0$/);
      const results = (model.requests.filter((r) => r.status === 200)[1].body as { messages: Array<{ content: unknown }> })
        .messages[2].content as Array<{ content: string; is_error?: boolean }>;
      expect(results[0].is_error).toBeUndefined();
      expect(results[0].content).toContain(`ref ${entries[0].key}`);
    });
  });

  it('refuses a payment over the limit with an error result the model can act on', async () => {
    const script = [reply([toolUse('record_payment', { payee: 'ACME', amount: 20_000 })]), reply([text('I could not pay.')])];
    const file = join(dir, 'refused.jsonl');
    await agents.with({ script, tools: [ledgerTool(file)] }, async ({ run, model }) => {
      await run('pay ACME $20,000', { tools: ['record_payment'] });
      const results = (model.requests.filter((r) => r.status === 200)[1].body as { messages: Array<{ content: unknown }> })
        .messages[2].content as Array<{ content: string; is_error?: boolean }>;
      expect(results[0]).toMatchObject({ is_error: true });
      expect(results[0].content).toMatch(/need a human/);
      expect(readLedger(file)).toHaveLength(0);
    });
  });
});
