// An encrypted run seen as a person sees it: `server` (the CLI command) with AGENT_ENCRYPTION_KEYS starts the
// dev server, its Web UI and a codec server the UI decrypts through; a real headless Chromium shows the run's
// task and tool calls in clear, while the history the server stores has none of it.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { findFreePort } from '../../src/devserver/index.js';
import { franceDemoScript, startScriptedModel, type ScriptedModel } from '../../src/scripted/index.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { CliProcess, ROOT } from '../helpers/cli.js';
import { findPlainText, rawHistory } from '../helpers/plaintext.js';
import { builtinTools } from '../../src/tools/registry.js';

const CHROMIUM = findChromium();
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOT = path.join(ROOT, 'test-output', 'ui-encrypted-run.png');
const haveChromium = CHROMIUM !== null;
if (!haveChromium) console.warn(`test/e2e/ui-encrypted.test.ts: ${NO_CHROMIUM}`);

describe('Temporal Web UI with encryption', () => {
  it.skipIf(!haveChromium)(
    'shows the decrypted task and tool calls through the codec server that `server` starts, while the stored history has none of them',
    async () => {
      const tag = randomUUID().slice(0, 8);
      const task = `Search for the population of France and calculate what 15% of that number is (case ${tag})`;
      const keys = `k1:${randomBytes(32).toString('base64')}`;
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-ui-encrypted-'));
      const [port, uiPort, codecPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
      const env: NodeJS.ProcessEnv = { ...process.env, AGENT_ENCRYPTION_KEYS: keys };
      delete env.TEMPORAL_ADDRESS;
      const server = new CliProcess(
        ['server', '--port', String(port), '--ui-port', String(uiPort), '--codec-port', String(codecPort), '--db', path.join(dir, 'temporal.db')],
        env,
        110_000,
      );
      let model: ScriptedModel | undefined;
      let browser: Browser | undefined;
      let connection: NativeConnection | undefined;
      let client: Client | undefined;
      try {
        await server.waitForStdout(/Codec server: (\S+)/);
        expect(server.stdout).toContain(`Codec server: http://127.0.0.1:${codecPort}`);
        const uiUrl = server.stdout.match(/Web UI: (\S+)/)![1];
        const address = `127.0.0.1:${port}`;
        const dataConverter = agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys });
        connection = await NativeConnection.connect({ address });
        client = new Client({ connection: await Connection.connect({ address }), dataConverter });
        model = await startScriptedModel({ script: franceDemoScript });
        const agent = await createAgentWorker({
          tools: builtinTools,
          connection,
          client,
          dataConverter,
          taskQueue: 'ui-encrypted',
          model: { apiKey: 'test-key', baseURL: model.url },
        });
        const c = client;
        await agent.worker.runUntil(async () => {
          const started = await startAgent(c, { task, settings: defaultSettings({ tools: ['calculator', 'web_search'] }), taskQueue: 'ui-encrypted' });
          const result = await getAgentResult(c, started.workflowId);
          expect(result.status).toBe('completed');

          // What the server stores: nothing of the task, the search query or the calculation.
          const raw = new Client({ connection: c.connection });
          expect(findPlainText(await rawHistory(raw, result.workflowId), [task, `case ${tag}`, 'population of France', '68606000'])).toEqual([]);

          browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
          const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
          await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(result.workflowId)}`);
          await page.waitForURL(new RegExp(`/workflows/${result.workflowId}/${result.runId}/history`), { timeout: 30_000 });
          await page.getByText('Event History').first().waitFor({ timeout: 30_000 });
          // Decrypted by the codec server, in the browser: the activity summaries on the timeline...
          await page.getByText('runTool • web_search("population of France")', { exact: true }).first().waitFor({ timeout: 30_000 });
          await page.getByText('runTool • calculator("68606000 * 0.15")', { exact: true }).first().waitFor({ timeout: 30_000 });
          // ...and the task, the run's summary, on the User Metadata tab.
          await page.getByText('User Metadata', { exact: true }).click();
          await page.waitForURL(/\/user-metadata$/, { timeout: 30_000 });
          const summary = page.locator('iframe[title="output"]').first().contentFrame();
          await summary.getByText(task, { exact: true }).waitFor({ timeout: 30_000 });
          await fs.mkdir(path.dirname(SCREENSHOT), { recursive: true });
          await page.screenshot({ path: SCREENSHOT });
        });
      } finally {
        await browser?.close();
        await model?.close();
        await client?.connection.close();
        await connection?.close();
        server.kill('SIGTERM');
        await server.exited.catch(() => undefined);
        await fs.rm(dir, { recursive: true, force: true });
      }
      const exit = await server.exited;
      expect(exit.code).toBe(0);
    },
    120_000,
  );
});
