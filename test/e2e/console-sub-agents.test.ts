// A run that delegates, in the console: the runs table says which run each child run belongs to (a parent column,
// linked), and the run page labels its two totals, the header's (sub-agents' calls included) and the chart's (the
// run's own calls), so that they no longer disagree without a word. Issue 42, item 8 (b, c).
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAgentResult, getStatus } from '../../src/client/index.js';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { serve } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console-sub-agents.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const TOKEN = 'console-sub-agents-token';

let browser: Browser | undefined;
beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
});

const number = (s: string) => Number(s.replace(/,/g, ''));

describe('the console on a run with a sub-agent', () => {
  it.skipIf(!CHROMIUM)('shows each child run\'s parent in the runs table, and labels the own and the with-sub-agents totals', async () => {
    const agents = { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'] } };
    const script = (req: MessagesRequestBody, turn: number) => {
      if (typeof req.system === 'string' && req.system.includes('researcher')) return reply([text('42')]);
      return turn === 0 ? reply([toolUse('agent__researcher', { task: 'what is 6*7?' }, 'toolu_kid')]) : reply([text('The researcher says 42.')]);
    };
    await withAgent(env, { script, agents }, async (h) => {
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100, log: () => {} });
      try {
        const id = await h.start('ask the researcher', { tools: ['agent__researcher'] });
        expect((await getAgentResult(env.client, id)).status).toBe('completed');
        const child = `${id}/toolu_kid`;
        const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
        const problems: string[] = [];
        page.on('pageerror', (err) => problems.push(err.message));
        await page.goto(`${api.url}/#/?limit=50`);
        await page.getByLabel('API token').fill(TOKEN);
        await page.getByLabel('API token').press('Enter');

        // The runs table: a parent column; the child's row links to its parent, the parent's has none.
        const headers = await page.locator('thead th').allTextContents();
        expect(headers).toContain('parent');
        const column = headers.indexOf('parent');
        const childRow = page.locator('tbody tr').filter({ has: page.locator('td:first-child a', { hasText: child }) });
        await childRow.waitFor({ timeout: 15_000 });
        const parentCell = childRow.locator('td').nth(column);
        expect(await parentCell.getByRole('link').textContent()).toBe(id);
        const parentRow = page.locator('tbody tr').filter({ has: page.locator('td:first-child a', { hasText: new RegExp(`^${id}$`) }) });
        expect(await parentRow.locator('td').nth(column).getByRole('link').count()).toBe(0);
        expect(await parentRow.count()).toBe(1);
        // The link leads to the parent's page.
        await parentCell.getByRole('link').click();
        await page.getByRole('heading', { name: id, exact: true }).waitFor({ timeout: 15_000 });

        // The run page: the header's totals say they include the sub-agents, the chart's that they are the run's own.
        const totals = page.locator('#run-totals');
        await totals.getByText('with its sub-agents').waitFor({ timeout: 15_000 });
        const caption = page.locator('#usage-chart figcaption');
        await caption.waitFor();
        const captionText = (await caption.textContent()) ?? '';
        expect(captionText).toMatch(/own: 2 model calls, [\d,]+ tokens, \$[\d.]+ \(its sub-agents' calls not included\)$/);
        const own = number(/own: 2 model calls, ([\d,]+) tokens/.exec(captionText)![1]);
        const all = number(/^([\d,]+) tokens/.exec((await totals.textContent()) ?? '')![1]);
        // What the two totals are: the run's own calls, and those plus its child's.
        const status = await getStatus(env.client, id);
        const childTokens = status.children!.reduce((n, c) => n + c.usage.input_tokens + c.usage.output_tokens + (c.usage.cache_read_input_tokens ?? 0) + (c.usage.cache_creation_input_tokens ?? 0), 0);
        expect(all).toBe(own + childTokens);
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });
});
