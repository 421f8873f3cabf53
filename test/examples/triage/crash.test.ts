// Exactly once across a crash: a worker PROCESS running the triage tools is killed with SIGKILL right after
// add_label or add_comment wrote to the store and before its activity completed. Temporal runs the call again
// on a second worker (at least once); the idempotency key makes that retry find its own record, so the issue
// ends with one label and one comment, and the run's transcript is the one an uninterrupted run produces.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { triageScript } from '../../../examples/triage/scripted-model.js';
import { defaultSettings, getAgentResult, getTranscript, startAgent } from '../../../src/client/index.js';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted/index.js';
import { useTestEnv } from '../../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../../helpers/worker-process.js';
import { freshStore, type StoreFixture } from './fixture.js';
import { testServerAddress } from '../../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../../fixtures/triage-worker.mjs', import.meta.url));
// Short, so the killed worker's call is retried within seconds (the default is 30 s).
const HEARTBEAT_TIMEOUT_MS = 2_000;
const TOOLS = ['search_issues', 'get_issue', 'add_label', 'add_comment'];

const env = useTestEnv();

interface Scenario {
  store: StoreFixture;
  model: ScriptedModel;
  taskQueue: string;
  workers: ChildProcess[];
  executions(): string[];
}

async function scenario(): Promise<Scenario> {
  const store = freshStore();
  return {
    store,
    model: await startScriptedModel({ script: triageScript }),
    taskQueue: `triage-crash-${randomUUID()}`,
    workers: [],
    executions: () => {
      const log = join(store.dir, 'executions.log');
      return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    },
  };
}

async function startWorker(s: Scenario, killAfter?: string): Promise<ChildProcess> {
  const child = await startWorkerProcess(WORKER, {
    TEMPORAL_ADDRESS: testServerAddress(),
    AGENT_TASK_QUEUE: s.taskQueue,
    ANTHROPIC_BASE_URL: s.model.url,
    TRIAGE_STORE: s.store.path,
    CRASH_DIR: s.store.dir,
    TRIAGE_KILL_AFTER: killAfter ?? '',
  });
  s.workers.push(child);
  return child;
}

async function cleanup(s: Scenario): Promise<void> {
  for (const w of s.workers) await sigkill(w);
  await s.model.close();
  s.store.remove();
}

async function start(s: Scenario): Promise<string> {
  const settings = defaultSettings({ tools: TOOLS, heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS });
  return (await startAgent(env.client, { task: 'Triage issue #39', settings, taskQueue: s.taskQueue })).workflowId;
}

let reference: unknown[] | undefined;
/** The transcript of the same triage run without a crash. */
async function uninterruptedTranscript(): Promise<unknown[]> {
  if (reference) return reference;
  const s = await scenario();
  try {
    await startWorker(s);
    const id = await start(s);
    expect((await getAgentResult(env.client, id)).status).toBe('completed');
    reference = await getTranscript(env.client, id);
    return reference;
  } finally {
    await cleanup(s);
  }
}

describe('a triage worker killed with SIGKILL after a side effect was written, before its activity completed', () => {
  it.each(['add_comment', 'add_label'])('%s: the retry on a second worker finds its record; one label, one comment', async (tool) => {
    const expected = await uninterruptedTranscript();
    const s = await scenario();
    try {
      const first = await startWorker(s, tool);
      const exited = new Promise<NodeJS.Signals | null>((r) => first.once('exit', (_code, signal) => r(signal)));
      const id = await start(s);
      expect(await exited).toBe('SIGKILL');
      // The effect is in the store, written by the killed worker, before any retry.
      const key = readFileSync(join(s.store.dir, 'executions.log'), 'utf8').match(new RegExp(`^done ${tool} (\\S+) `, 'm'))![1];
      expect(s.store.data().effects[key]).toMatchObject({ tool });

      const second = await startWorker(s);
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      expect(result.text).toContain('I labelled #39 "duplicate". I commented "Duplicate of #21" on #39.');

      // The call ran twice (at least once), with one idempotency key, on two processes; the effect happened once.
      const runs = s.executions().filter((l) => l.startsWith(`done ${tool} `));
      expect(runs).toHaveLength(2);
      expect(runs.map((l) => l.split(' ')[2])).toEqual([key, key]);
      expect(runs.map((l) => l.split(' ')[3])).toEqual([`pid=${first.pid}`, `pid=${second.pid}`]);
      expect(s.store.issue(39).labels).toEqual(['duplicate']);
      expect(s.store.issue(39).comments.map((c) => [c.author, c.body])).toEqual([['triage-bot', 'Duplicate of #21']]);
      expect(Object.values(s.store.data().effects).map((e) => e.tool).sort()).toEqual(['add_comment', 'add_label']);
      // The retry answered with the recorded answer, so the run reads as if nothing had happened.
      expect(await getTranscript(env.client, id)).toEqual(expected);
    } finally {
      await cleanup(s);
    }
  });
});
