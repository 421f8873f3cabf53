// The web console of `serve`, in a real headless Chromium: it asks for the token, lists a completed run, and a
// run waiting for approval shows Approve, which, clicked, lets the run complete; the words the model streams
// appear on the run page before its call ends.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { serve } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { startRun, useSharedAgent, useTestEnv } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const agents = useSharedAgent(env);
const TOKEN = 'console-test-token';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots of the two pages in test-output/; with UPDATE_README_SCREENSHOT=1, also the ones docs/http-api.md shows. */
async function screenshot(page: import('playwright-core').Page, name: string): Promise<void> {
  const file = path.join(ROOT, 'test-output', name);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.UPDATE_README_SCREENSHOT === '1') await fs.copyFile(file, path.join(ROOT, 'docs', name));
}

describe('the web console', () => {
  it.skipIf(!CHROMIUM)('asks for the token, lists a completed run, and its Approve button lets a waiting run complete', async () => {
    const script = [reply([text('Let me compute.'), toolUse('calculator', { expression: '2 + 2' }, 'toolu_web')]), reply([text('It is 4.')])];
    await agents.with({ script }, async (h) => {
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100, temporalUi: 'http://localhost:8233' });
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
        await screenshot(page, 'console-runs.png');
        await page.getByRole('link', { name: waiting }).click();
        await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
        await screenshot(page, 'console-run.png');
        await page.getByRole('button', { name: 'Approve' }).click();
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

  it.skipIf(!CHROMIUM)('shows the words the model streams on the run page before the call ends', async () => {
    const words = 'The answer is coming word by word, and it keeps going for quite a while before it ends.';
    await agents.with({ script: [{ ...reply([text(words)]), holdAfterEvents: 8 }] }, async (h) => {
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100 });
      let browser: Browser | undefined;
      try {
        const id = await startRun(h, 'say it slowly', { tools: ['calculator'] });
        browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } }); // a phone
        await page.goto(`${api.url}/#/runs/${id}`);
        await page.getByLabel('API token').fill(TOKEN);
        await page.getByRole('button', { name: 'Use token' }).click();
        await page.locator('#streaming').getByText(/^The answer is/).waitFor({ timeout: 20_000 });
        expect(await page.locator('#run-status').textContent()).toBe('running');
        h.model.release();
        await page.locator('#run-status').getByText('completed').waitFor({ timeout: 15_000 });
      } finally {
        await browser?.close();
        await api.close();
      }
    });
  });
});
