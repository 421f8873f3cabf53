// The web console of `serve`, in a real headless Chromium: it asks for the token, lists a completed run, and a
// run waiting for approval shows Approve, which, clicked, lets the run complete.
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { serve } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { startRun, useTestEnv, withAgent } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const TOKEN = 'console-test-token';

describe('the web console', () => {
  it.skipIf(!CHROMIUM)('asks for the token, lists a completed run, and its Approve button lets a waiting run complete', async () => {
    const script = [reply([text('Let me compute.'), toolUse('calculator', { expression: '2 + 2' }, 'toolu_web')]), reply([text('It is 4.')])];
    await withAgent(env, { script }, async (h) => {
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100 });
      let browser: Browser | undefined;
      try {
        const done = await startRun(h, 'two plus two, no questions', { tools: ['calculator'] });
        await getAgentResult(env.client, done);
        const waiting = await startRun(h, 'two plus two, with approval', { tools: ['calculator'], approve: ['calculator'] });
        browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const problems: string[] = [];
        page.on('pageerror', (err) => problems.push(err.message));
        await page.goto(`${api.url}/`);
        await page.getByLabel('API token').fill(TOKEN);
        await page.getByRole('button', { name: 'Use token' }).click();
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: done }) });
        await row.getByText('completed').waitFor({ timeout: 15_000 });
        await page.getByRole('link', { name: waiting }).click();
        await page.getByRole('button', { name: 'Approve' }).click({ timeout: 15_000 });
        await page.locator('#run-status').getByText('completed').waitFor({ timeout: 15_000 });
        await page.getByText('It is 4.').first().waitFor();
        expect(problems).toEqual([]);
        expect(await getAgentResult(env.client, waiting)).toMatchObject({ status: 'completed', toolCalls: 1 });
      } finally {
        await browser?.close();
        await api.close();
      }
    });
  });
});
