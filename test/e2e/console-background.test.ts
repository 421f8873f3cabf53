// The console's runs table says where a run came from: the schedule that started it or the task batch it belongs to
// (a "from" column), each a link to that schedule's or batch's runs alone.
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgentSchedule, triggerAgentSchedule } from '../../src/client/schedules.js';
import { startTasks } from '../../src/client/task-file.js';
import { getAgentResult, listRuns } from '../../src/client/index.js';
import { defaultSettings } from '../../src/core/settings.js';
import { reply, text } from '../../src/scripted/index.js';
import { serve } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console-background.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const TOKEN = 'console-background-token';

let browser: Browser | undefined;
beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
});

describe('the console on scheduled and batch runs', () => {
  it.skipIf(!CHROMIUM)("shows the schedule or batch each run came from, and its link lists that schedule's runs alone", async () => {
    await withAgent(env, { script: [reply([text('done')])] }, async (h) => {
      const name = `console-${randomUUID().slice(0, 8)}`;
      const batch = `console-batch-${randomUUID().slice(0, 8)}`;
      const settings = defaultSettings({ tools: ['calculator'] });
      const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100, log: () => {} });
      try {
        await createAgentSchedule(env.client, { name, cron: '0 9 1 1 *', paused: true, task: 'the scheduled task', settings, taskQueue: h.taskQueue });
        await triggerAgentSchedule(env.client, name);
        const [started] = await startTasks(env.client, { batch, tasks: [{ task: 'the batch task', settings }], taskQueue: h.taskQueue });
        expect((await getAgentResult(env.client, started.workflowId)).status).toBe('completed');
        let scheduled = '';
        await vi.waitFor(
          async () => {
            const runs = await listRuns(env.client, { schedule: name });
            expect(runs.map((r) => r.attributes.status)).toEqual(['completed']);
            scheduled = runs[0].workflowId;
          },
          { timeout: 60_000, interval: 500 },
        );

        const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
        const problems: string[] = [];
        page.on('pageerror', (err) => problems.push(err.message));
        await page.goto(`${api.url}/#/?limit=50`);
        await page.getByLabel('API token').fill(TOKEN);
        await page.getByLabel('API token').press('Enter');
        const headers = await page.locator('thead th').allTextContents();
        const from = headers.indexOf('from');
        expect(from).toBeGreaterThan(0);
        const rowOf = (id: string) => page.locator('tbody tr').filter({ has: page.locator('td:first-child a', { hasText: new RegExp(`^${id}$`) }) });
        await rowOf(started.workflowId).waitFor({ timeout: 15_000 });
        expect(await rowOf(started.workflowId).locator('td').nth(from).textContent()).toBe(`batch ${batch}`);
        const scheduleCell = rowOf(scheduled).locator('td').nth(from);
        expect(await scheduleCell.textContent()).toBe(`schedule ${name}`);

        // The link: the schedule's runs alone, the filter in the address and the caption.
        await scheduleCell.getByRole('link').click();
        await page.locator('caption', { hasText: `schedule ${name}` }).waitFor({ timeout: 15_000 });
        expect(page.url()).toContain(`#/?schedule=${name}`);
        await rowOf(scheduled).waitFor({ timeout: 15_000 });
        expect(await page.locator('tbody tr').count()).toBe(1);
        expect(problems).toEqual([]);
      } finally {
        await env.client.schedule.getHandle(name).delete().catch(() => undefined);
        await api.close();
      }
    });
  });
});
