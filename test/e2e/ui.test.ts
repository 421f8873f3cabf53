// The Temporal Web UI, driven by a real headless Chromium: a finished France run must be readable there (the
// task as the run's summary, the model and tools in its details, a summary on every activity in the event
// history and its timeline). This test changes server settings (the UI is on), so it starts its own server.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { findFreePort, startDevServer, type DevServer } from '../../src/devserver/index.js';
import { franceDemoScript, startScriptedModel, type ScriptedModel } from '../../src/scripted/index.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { builtinTools } from '../../src/tools/registry.js';

const CHROMIUM = findChromium();
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const FRANCE = 'Search for the population of France and calculate what 15% of that number is';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENSHOT = path.join(ROOT, 'test-output', 'ui-run.png');
const METADATA_SCREENSHOT = path.join(ROOT, 'test-output', 'ui-run-metadata.png');
const README_SCREENSHOT = path.join(ROOT, 'docs', 'ui-run.png');

const haveChromium = CHROMIUM !== null;
if (!haveChromium) {
  console.warn(`test/e2e/ui.test.ts: ${NO_CHROMIUM}`);
}

describe('Temporal Web UI', () => {
  it.skipIf(!haveChromium)(
    'shows a finished run readably: the task as its summary, model and tools in its details, a summary on every activity',
    async () => {
      let server: DevServer | undefined;
      let model: ScriptedModel | undefined;
      let browser: Browser | undefined;
      let connection: NativeConnection | undefined;
      let client: Client | undefined;
      try {
        server = await startDevServer({ uiPort: await findFreePort() });
        expect(server.uiUrl).not.toBeNull();
        const uiUrl = server.uiUrl!;
        connection = await NativeConnection.connect({ address: server.address });
        client = new Client({ connection: await Connection.connect({ address: server.address }) });
        model = await startScriptedModel({ script: franceDemoScript });
        const taskQueue = 'ui-test';
        const agent = await createAgentWorker({
          tools: builtinTools,
          connection,
          client,
          taskQueue,
          model: { apiKey: 'test-key', baseURL: model.url },
        });
        const c = client;
        // The worker stays up while the browser looks, so the UI's queries (current details) are answered.
        await agent.worker.runUntil(async () => {
          const started = await startAgent(c, {
            task: FRANCE,
            settings: defaultSettings({ tools: ['calculator', 'web_search'] }),
            taskQueue,
          });
          const result = await getAgentResult(c, started.workflowId);
          expect(result.status).toBe('completed');

          browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
          const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
          // UI 2.42: a workflow id without a run id opens the latest run's event history.
          await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(result.workflowId)}`);
          await page.waitForURL(new RegExp(`/workflows/${result.workflowId}/${result.runId}/history`), { timeout: 30_000 });
          await page.getByText('Event History').first().waitFor({ timeout: 30_000 });
          // The timeline labels each activity "<type> • <summary>".
          for (const label of [
            'callModel • model #1 · 1 message',
            'runTool • web_search("population of France")',
            'callModel • model #2 · 3 messages',
            'runTool • calculator("68606000 * 0.15")',
            'callModel • model #3 · 5 messages',
          ]) {
            await expect(page.getByText(label, { exact: true }).first().waitFor({ timeout: 30_000 })).resolves.toBeUndefined();
          }
          // The event list shows the summary on each ActivityTaskScheduled event.
          const body = await page.innerText('body');
          expect(body).toMatch(/Activity Task Scheduled\s+Activity Type\s+runTool\s+Summary\s+web_search\("population of France"\)/);
          await fs.mkdir(path.dirname(SCREENSHOT), { recursive: true });
          await page.screenshot({ path: SCREENSHOT });
          // The README's screenshot is refreshed on request only, so a test run leaves the work tree clean.
          if (process.env.UPDATE_README_SCREENSHOT === '1') await fs.copyFile(SCREENSHOT, README_SCREENSHOT);

          // The User Metadata tab: the static summary (the task), the static details, every activity summary.
          await page.getByText('User Metadata', { exact: true }).click();
          await page.waitForURL(/\/user-metadata$/, { timeout: 30_000 });
          // Summary, details and current details are markdown, rendered by the UI in three iframes (in that order).
          const [summary, details, current] = [0, 1, 2].map((i) => page.locator('iframe[title="output"]').nth(i).contentFrame());
          await summary.getByText(FRANCE, { exact: true }).waitFor({ timeout: 30_000 });
          await details.getByText('claude-sonnet-5-5').waitFor({ timeout: 30_000 });
          expect(await details.locator('body').innerText()).toMatch(/model claude-sonnet-5-5\s+tools calculator, web_search/);
          // Current details come from the worker (a query), so they show the run's last published progress.
          await current.getByText(/completed · step 3 · 2 tool calls/).waitFor({ timeout: 30_000 });
          expect(await current.locator('body').innerText()).toContain('last stop reason: end_turn');
          const metadata = await page.innerText('body');
          expect(metadata).toMatch(/Events with Metadata[\s\S]*Activity\s+web_search\("population of France"\)\s+Completed/);
          expect(metadata).toMatch(/Activity\s+calculator\("68606000 \* 0\.15"\)\s+Completed/);
          await page.screenshot({ path: METADATA_SCREENSHOT });
        });
      } finally {
        await browser?.close();
        await model?.close();
        await client?.connection.close();
        await connection?.close();
        await server?.stop();
      }
    },
    120_000,
  );
});
