// A tool with a side effect, written to be safe under retries. Temporal runs each tool call at least once:
// a worker that dies after the effect but before reporting it makes Temporal run the call again. The tool
// receives a stable idempotency key (workflow id + tool_use id, the same on every attempt) and records its
// effect under that key, so a retry finds the effect already done and returns the same answer.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { defineTool, ToolError } from '../src/index.js';

interface Entry {
  key: string;
  payee: string;
  amountCents: number;
}

/** `record_payment`: appends a payment to a JSON-lines ledger file, once per tool call. */
export function ledgerTool(ledgerFile: string) {
  return defineTool<{ payee: string; amount: number }>({
    name: 'record_payment',
    description: 'Records a payment to a payee in the ledger. Amount in dollars.',
    inputSchema: {
      type: 'object',
      properties: { payee: { type: 'string', minLength: 1 }, amount: { type: 'number', exclusiveMinimum: 0 } },
      required: ['payee', 'amount'],
      additionalProperties: false,
    },
    async execute({ payee, amount }, { idempotencyKey }) {
      const done = readLedger(ledgerFile).find((e) => e.key === idempotencyKey);
      if (done) return receipt(done);
      if (amount > 10_000) throw new ToolError(`Payments over $10,000 need a human: ${payee} was not paid`);
      const entry: Entry = { key: idempotencyKey, payee, amountCents: Math.round(amount * 100) };
      // A real tool would pass the key to the payment provider (most take an Idempotency-Key header).
      appendFileSync(ledgerFile, `${JSON.stringify(entry)}\n`);
      return receipt(entry);
    },
  });
}

export function readLedger(file: string): Entry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry);
}

function receipt(e: Entry): string {
  return `Recorded payment of $${(e.amountCents / 100).toFixed(2)} to ${e.payee} (ref ${e.key}).`;
}
