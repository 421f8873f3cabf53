// Determinism: recorded histories (committed under test/fixtures/histories/, produced by this file with
// RECORD_HISTORIES=1) are replayed through the current workflow code. A change that would break running
// jobs fails here; such a change needs `patched()` (see the README).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { approveToolCall, closeChatRun, getAgentResult, getStatus, sendFollowUp } from '../../src/client/index.js';
import { apiError, franceDemoScript, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { openTestEnv, withAgent, type AgentHarness, type TestEnv } from '../helpers/harness.js';
import type { AgentSettings } from '../../src/core/types.js';

const DIR = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
const RECORD = process.env.RECORD_HISTORIES === '1';

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env?.close();
});

interface Scenario {
  name: string;
  script: Script;
  settings?: Partial<AgentSettings>;
  /** Drives the run (approvals, messages) while it runs. */
  drive?: (h: AgentHarness, workflowId: string) => Promise<void>;
}

const loopForever: Script = (req, turn) =>
  req.tool_choice?.type === 'none' ? reply([text('Partial: still counting.')]) : reply([toolUse('calculator', { expression: `${turn} + 1` })]);

const SCENARIOS: Scenario[] = [
  { name: 'france', script: franceDemoScript },
  { name: 'step-cap-summary', script: loopForever, settings: { maxSteps: 3 } },
  {
    name: 'approval',
    script: [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('4')])],
    settings: { approve: ['calculator'] },
    drive: async (h, id) => {
      await expect.poll(async () => {
        const s = await getStatus(h.env.client, id);
        return s.live && s.view.pendingApprovals.length === 1;
      }, { timeout: 10_000 }).toBe(true);
      await approveToolCall(h.env.client, id);
    },
  },
  {
    name: 'chat',
    script: [reply([text('Hello.')]), reply([text('Goodbye.')])],
    settings: { chat: true },
    drive: async (h, id) => {
      await expect.poll(async () => {
        const s = await getStatus(h.env.client, id);
        return s.live && s.view.waitingForMessage;
      }, { timeout: 10_000 }).toBe(true);
      await sendFollowUp(h.env.client, id, 'and now?');
      await expect.poll(async () => {
        const s = await getStatus(h.env.client, id);
        return s.live && s.view.waitingForMessage && s.view.steps === 2;
      }, { timeout: 10_000 }).toBe(true);
      await closeChatRun(h.env.client, id);
    },
  },
  {
    name: 'deadline',
    script: [{ ...reply([text('slow')]), delayMs: 5000 }],
    settings: { deadlineMs: 1000 },
  },
  { name: 'failed-401', script: [apiError(401, 'authentication_error', 'invalid x-api-key')] },
  {
    name: 'output-schema',
    script: [reply([toolUse('submit_answer', { answer: 42 })]), reply([text('done')])],
    settings: { outputSchema: { type: 'number' } },
  },
];

// `RECORD_HISTORIES=1 npx vitest run test/durability/replay.test.ts` rewrites the fixtures from real runs.
describe.runIf(RECORD)('recording histories', () => {
  it.each(SCENARIOS)('records $name', async (scenario) => {
    mkdirSync(DIR, { recursive: true });
    await withAgent(env, { script: scenario.script }, async (h) => {
      const id = await h.start(`replay fixture: ${scenario.name}`, scenario.settings);
      await scenario.drive?.(h, id);
      await getAgentResult(h.env.client, id);
      const history = await h.env.client.workflow.getHandle(id).fetchHistory();
      writeFileSync(`${DIR}${scenario.name}.json`, historyToJSON(history));
    });
  });
});

describe.skipIf(RECORD)('replay of recorded histories', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

  it('has a committed history for every scenario', () => {
    expect(files.sort()).toEqual(SCENARIOS.map((s) => `${s.name}.json`).sort());
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')));
    // The same data converter as the worker's, as every replay must use.
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter: agentDataConverter() },
      history,
      file,
    );
  });
});
