// The console offers steering only while a run runs: a finished run's page has no follow-up box, no "Cancel run",
// no Approve or Deny (the API would answer 409), and a run that ends while its page is open loses them live.
// Issue 42, item 4.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { serve, type ApiServer } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { startRun, useTestEnv, withAgent } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console-finished-runs.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const TOKEN = 'console-finished-token';

let browser: Browser | undefined;
beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
});

async function open(api: ApiServer, hash: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${api.url}/${hash}`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByLabel('API token').press('Enter');
  return { page, problems };
}

const steering = (page: Page) => ({
  followUp: page.getByRole('textbox', { name: 'follow-up message' }),
  send: page.getByRole('button', { name: 'Send' }),
  cancel: page.getByRole('button', { name: 'Cancel run' }),
  approve: page.getByRole('button', { name: 'Approve' }),
  deny: page.getByRole('button', { name: 'Deny' }),
});

describe('the console on a finished run', () => {
  it.skipIf(!CHROMIUM)('shows no follow-up box, Cancel, Approve or Deny once the run has ended, and drops them when it ends', async () => {
    const script = [reply([toolUse('calculator', { expression: '2 + 2' }, 'toolu_fin')]), reply([text('It is 4.')])];
    await withAgent(env, { script }, async (h) => {
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100, log: () => {} });
      try {
        // A run waiting for approval: every control is there.
        const waiting = await startRun(h, 'two plus two, with approval', { tools: ['calculator'], approve: ['calculator'] });
        const live = await open(api, `#/runs/${waiting}`);
        const before = steering(live.page);
        await before.approve.waitFor({ timeout: 15_000 });
        for (const control of [before.followUp, before.send, before.cancel, before.deny]) expect(await control.isVisible()).toBe(true);
        // It ends while the page is open: the controls go without a reload.
        await before.approve.click();
        await live.page.locator('#run-status').getByText('completed').waitFor({ timeout: 15_000 });
        await before.followUp.waitFor({ state: 'hidden', timeout: 15_000 });
        for (const control of Object.values(before)) expect(await control.isVisible()).toBe(false);
        expect(live.problems).toEqual([]);

        // A finished run opened afresh: none of them.
        await getAgentResult(env.client, waiting);
        const { page, problems } = await open(api, `#/runs/${waiting}`);
        await page.getByText('It is 4.').first().waitFor({ timeout: 15_000 });
        await page.locator('#run-status').getByText('completed').waitFor();
        for (const control of Object.values(steering(page))) expect(await control.count()).toBe(0);
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });
});
