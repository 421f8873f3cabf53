// The MCP conformance suite in the test run, a few scenarios of it: scripts/conformance.mjs (Node 22 and the suite
// from the registry into ~/.cache/durable-agent/ when absent) runs our client (scripts/conformance-client.mjs) on
// them, and fails on a scenario outside the expected-failures file, or on a listed one that passes. The whole suite
// (26 scenarios, about a minute) is `npm run conformance`, a step of .ci/run.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-conformance-test-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function conformance(args: string[], expected?: Record<string, string>) {
  const extra: string[] = [];
  if (expected) {
    const file = path.join(dir, `expected-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(expected));
    extra.push('--expected-failures', file);
  }
  try {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'scripts', 'conformance.mjs'), '--json', ...extra, ...args], { cwd: ROOT, timeout: 120_000 });
    return { code: 0, report: JSON.parse(stdout) as { passed: number; unexpected: string[]; expectedFailures: string[] } };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (e.code !== 1) throw new Error(`conformance.mjs failed (${e.code}): ${e.stderr}`);
    return { code: 1, report: JSON.parse(e.stdout ?? '{}') as { passed: number; unexpected: string[]; expectedFailures: string[] } };
  }
}

describe('the MCP conformance suite against our client', () => {
  it('passes the core, OAuth (dynamic registration, PKCE) and client-credentials scenarios', { timeout: 180_000 }, async () => {
    const { code, report } = await conformance(['initialize', 'auth/metadata-default', 'auth/client-credentials-basic']);
    expect(report).toMatchObject({ passed: 3, unexpected: [] });
    expect(code).toBe(0);
  });

  it('fails on a failing scenario outside the expected failures, and on a listed one that passes', { timeout: 180_000 }, async () => {
    const failing = await conformance(['elicitation-sep1034-client-defaults'], {});
    expect(failing).toMatchObject({ code: 1, report: { unexpected: ['elicitation-sep1034-client-defaults: FAIL'] } });
    const stale = await conformance(['tools_call'], { tools_call: 'listed by mistake' });
    expect(stale).toMatchObject({ code: 1, report: { unexpected: ['tools_call: stale'] } });
    const listed = await conformance(['elicitation-sep1034-client-defaults']);
    expect(listed).toMatchObject({ code: 0, report: { expectedFailures: ['elicitation-sep1034-client-defaults'] } });
  });
});
