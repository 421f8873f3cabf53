// The console's first screen, when the server asks for a token: a sign-in page that says what the token is and where
// it comes from, never the API's raw 401 (`missing "Authorization: Bearer <token>" header`); a token the server
// refuses is said in words; the right one leads to the page the address names. Issue 42, item 8 (a).
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/serve/index.js';
import { findChromium, NO_CHROMIUM } from '../helpers/chromium.js';
import { useTestEnv } from '../helpers/harness.js';

const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`test/e2e/console-sign-in.test.ts: ${NO_CHROMIUM}`);
const env = useTestEnv();
const TOKEN = 'console-sign-in-token';

let browser: Browser | undefined;
beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
});

describe('the console without a token', () => {
  it.skipIf(!CHROMIUM)('starts from a sign-in page that names the token and where it comes from, without the raw 401', async () => {
    const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: 'console-sign-in', log: () => {} });
    try {
      const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(err.message));
      await page.goto(`${api.url}/#/?status=completed`);
      const signIn = page.getByRole('region', { name: 'Sign in' });
      await signIn.waitFor({ timeout: 15_000 });
      const words = (await signIn.textContent()) ?? '';
      expect(words).toContain('DURABLE_AGENT_API_TOKEN');
      expect(words).toContain('DURABLE_AGENT_API_READ_TOKEN');
      expect(words).toContain('durable-agent serve');
      // The field has the focus: paste and Enter.
      expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('token');
      const body = () => page.locator('body').textContent();
      expect(await body()).not.toMatch(/Authorization|Bearer|HTTP 401/);
      expect(await page.locator('#error').textContent()).toBe('');

      // A token the server does not accept: said in words, the sign-in page stays.
      await page.getByLabel('API token').fill('not-the-token');
      await page.getByLabel('API token').press('Enter');
      await signIn.getByRole('alert').getByText('did not accept that token').waitFor({ timeout: 15_000 });
      expect(await body()).not.toMatch(/bearer token is not one|Authorization/);

      // The right one: the page the address named, its filter kept.
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API token').press('Enter');
      await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor({ timeout: 15_000 });
      expect(await page.locator('table caption').textContent()).toBe('runs that are completed');
      expect(await signIn.count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
