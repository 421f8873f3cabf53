// The console's runs table (filters as in `list`, live refresh) and run page (thinking collapsed, sub-agents and
// compactions where they happen, the per-turn chart, the Temporal UI link), in a real headless Chromium, usable by
// keyboard and without sideways scrolling at 1280 px and on a phone.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approveToolCall, getAgentResult, getStatus } from '../../src/client/index.js';
import { reply, text, thinking, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { serve, type ApiServer } from '../../src/serve/index.js';
import { defineTool } from '../../src/tools/types.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { builtinTools } from '../../src/tools/registry.js';
import { startRun, useSharedAgent, useTestEnv, type AgentHarness } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console-pages.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const pageText = (n: number) => `page ${n}: ${'lorem ipsum dolor sit amet '.repeat(303)}`.slice(0, 8192);
const readPage = defineTool<{ n: number }>({
  name: 'read_page',
  description: 'Reads page n of the document.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: async ({ n }) => pageText(n),
});
const agents = { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'] } };
// One worker for the file: the built-ins, the compaction test's tool and the sub-agent test's agent.
const shared = useSharedAgent(env, { tools: [...builtinTools, readPage], agents });
const TOKEN = 'console-pages-token';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let browser: Browser | undefined;
beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
});

const openServe = (h: AgentHarness): Promise<ApiServer> =>
  serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, eventsIntervalMs: 100, temporalUi: 'http://localhost:8233', log: () => {} });

async function open(api: ApiServer, hash: string, viewport = DESKTOP, prepare?: (page: Page) => Promise<unknown>): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage({ viewport });
  await prepare?.(page);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${api.url}/${hash}`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByLabel('API token').press('Enter');
  return { page, problems };
}

/** Whether the page is wider than its viewport (a sideways scroll). */
const overflows = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1');

describe('the console', () => {
  it.skipIf(!CHROMIUM)('filters the runs table by status as `list` does, and refreshes it live as a run completes', async () => {
    const script = [reply([toolUse('calculator', { expression: '2 + 2' }, 'toolu_live')]), reply([text('It is 4.')])];
    await shared.with({ script }, async (h) => {
      const api = await openServe(h);
      try {
        const done = await startRun(h, 'a run that completes', { tools: ['calculator'], approve: [], searchAttributes: true });
        await getAgentResult(env.client, done);
        const waiting = await startRun(h, 'a run that waits', { tools: ['calculator'], approve: ['calculator'], searchAttributes: true });
        const { page, problems } = await open(api, '#/');
        const row = (id: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: id }) });
        await row(waiting).getByText('awaiting_approval').waitFor({ timeout: 15_000 });
        await page.getByLabel('Status').selectOption('completed');
        await page.waitForURL(/#\/\?status=completed$/);
        await row(done).waitFor({ timeout: 15_000 });
        expect(await row(waiting).count()).toBe(0);
        await page.getByLabel('Status').selectOption('');
        await row(waiting).waitFor({ timeout: 15_000 });
        // Live: the run completes elsewhere, and its row says so without a reload.
        await approveToolCall(env.client, waiting);
        await row(waiting).getByText('completed').waitFor({ timeout: 15_000 });
        expect(await overflows(page)).toBe(false);
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });

  it.skipIf(!CHROMIUM)('shows thinking collapsed, a sub-agent where it ran, the tokens of each turn as a chart, and links to the Temporal UI', async () => {
    const script = (req: MessagesRequestBody, turn: number) => {
      if (typeof req.system === 'string' && req.system.includes('researcher')) return reply([text('42')]);
      if (turn === 0) return reply([thinking('I should ask the researcher about this.'), toolUse('agent__researcher', { task: 'what is 6*7?' }, 'toolu_sub')]);
      return reply([text('The researcher says 42.')]);
    };
    await shared.with({ script }, async (h) => {
      const api = await openServe(h);
      try {
        const id = await h.start('ask the researcher', { tools: ['agent__researcher'] });
        const result = await getAgentResult(env.client, id);
        const { page, problems } = await open(api, `#/runs/${id}`, PHONE);
        await page.getByText('The researcher says 42.').waitFor({ timeout: 15_000 });
        const thought = page.locator('details.thinking');
        expect(await thought.locator('summary').textContent()).toMatch(/^thinking \(\d+ characters\)$/);
        expect(await thought.getAttribute('open')).toBeNull();
        const sub = page.locator('.subagent[data-tool-use-id="toolu_sub"]');
        await sub.getByText('sub-agent researcher').waitFor();
        expect(await sub.textContent()).toContain('completed');
        expect(await sub.textContent()).toContain(`${id}/toolu_sub`);
        // One bar per model call of the run, each with its numbers.
        const bars = page.locator('#usage-chart g.bar');
        expect(await bars.count()).toBe(result.steps);
        expect(await bars.first().locator('title').textContent()).toMatch(/^turn 1: [\d,]+ prompt \+ [\d,]+ output tokens/);
        expect(await page.locator('#usage-chart figcaption').textContent()).toContain(`${result.steps} model calls`);
        const link = page.getByRole('link', { name: 'open in the Temporal UI' });
        expect(await link.getAttribute('href')).toBe(`http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(id)}/${result.runId}/history`);
        expect(await overflows(page)).toBe(false);
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });

  it.skipIf(!CHROMIUM)('marks a compaction where it happened in the conversation', async () => {
    const job = (_req: MessagesRequestBody, turn: number) => (turn < 6 ? reply([toolUse('read_page', { n: turn })]) : reply([text('Read all pages.')]));
    await shared.with({ script: job, tools: [readPage], modelOptions: { contextWindow: 40_000 } }, async (h) => {
      const api = await openServe(h);
      try {
        const id = await h.start('read the document', { maxSteps: 20, compactAt: 5_000 });
        await getAgentResult(env.client, id);
        const { page, problems } = await open(api, `#/runs/${id}`);
        const marker = page.locator('.marker').first();
        await marker.waitFor({ timeout: 15_000 });
        expect(await marker.textContent()).toMatch(/^compaction: the [\d,]+ tokens of conversation before this point were summarized in [\d,]+$/);
        // The marker sits right before the message that begins with the compaction block.
        expect(await marker.evaluate((m) => m.nextElementSibling?.querySelector('details.compaction') !== null)).toBe(true);
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });

  it.skipIf(!CHROMIUM)('is usable by keyboard on a phone: Tab reaches Approve, Enter approves, and the run completes', async () => {
    const script = [reply([toolUse('calculator', { expression: '2 + 2' }, 'toolu_key')]), reply([text('It is 4.')])];
    await shared.with({ script }, async (h) => {
      const api = await openServe(h);
      try {
        const id = await startRun(h, 'approve me by keyboard', { tools: ['calculator'], approve: ['calculator'] });
        // The event stream is held until the focus is on Approve: the events it then replays refresh the page, which
        // must leave the focus where it is (it used to rebuild the buttons, and Enter then did nothing).
        let releaseEvents = () => {};
        const eventsHeld = new Promise<void>((resolve) => (releaseEvents = resolve));
        const holdEvents = (p: Page) => p.route((url) => url.pathname.endsWith('/events'), async (route) => (await eventsHeld, route.continue()));
        // (So the page must show the approval from its first read.)
        await vi.waitFor(async () => expect((await getStatus(env.client, id)).view?.pendingApprovals).toHaveLength(1), { timeout: 15_000, interval: 100 });
        const { page, problems } = await open(api, `#/runs/${id}`, PHONE, holdEvents);
        await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
        expect(await overflows(page)).toBe(false);
        const focused = () => page.evaluate('document.activeElement ? document.activeElement.textContent : null');
        let reached = false;
        for (let i = 0; i < 40 && !reached; i++) {
          await page.keyboard.press('Tab');
          reached = (await focused()) === 'Approve';
        }
        expect(reached).toBe(true);
        const refreshed = page.waitForResponse((r) => r.url().endsWith('/transcript'));
        releaseEvents();
        await refreshed;
        await page.evaluate('new Promise((resolve) => setTimeout(resolve, 100))');
        expect(await focused()).toBe('Approve');
        await page.keyboard.press('Enter');
        await page.locator('#run-status').getByText('completed').waitFor({ timeout: 15_000 });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', toolCalls: 1 });
        expect(problems).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });
});
