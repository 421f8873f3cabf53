// A worker killed with SIGKILL right after a compaction: the compaction is in history (the model call that made
// it completed), so the new worker goes on from its block and never compacts again.
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, getTranscript, startAgent } from '../../src/client/index.js';
import { COMPACTED_OPENING } from '../../src/core/compaction.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { useTestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

describe('a worker killed with SIGKILL right after a compaction', () => {
  it('the new worker finishes the job from the compaction block, without compacting again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compaction-crash-'));
    // Turn 0 writes 24 KB of notes: the request of turn 1 (about 6,000 tokens) passes the 5,000-token trigger.
    const model = await startScriptedModel({
      script: [
        reply([text(`Notes: ${'n'.repeat(24_000)}`), toolUse('slow_step', { n: 0 })]),
        reply([text('Doing step 1.'), toolUse('slow_step', { n: 1 })]),
        reply([text('Doing step 2.'), toolUse('slow_step', { n: 2 })]),
        reply([text('All steps are done.')]),
      ],
      contextWindow: 40_000,
    });
    const taskQueue = `compaction-crash-${randomUUID()}`;
    const workers: ChildProcess[] = [];
    const startWorker = async () => {
      const env = { TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: taskQueue, ANTHROPIC_BASE_URL: model.url, CRASH_DIR: dir };
      const child = await startWorkerProcess(WORKER, env);
      workers.push(child);
      return child;
    };
    const executions = () => (existsSync(join(dir, 'executions.log')) ? readFileSync(join(dir, 'executions.log'), 'utf8').trim().split('\n') : []);
    // Step 1 is held: the worker dies while running the tool call of the turn whose reply compacted.
    writeFileSync(join(dir, 'hold-tool-1'), '');
    try {
      const first = await startWorker();
      const settings = defaultSettings({ tools: ['slow_step'], heartbeatTimeoutMs: 2_000, compactAt: 5_000 });
      const { workflowId } = await startAgent(env.client, { task: 'do three steps', settings, taskQueue });
      await vi.waitFor(() => expect(executions().some((l) => l.startsWith('start 1'))).toBe(true), { timeout: 20_000 });
      const compactedBefore = model.requests.filter((r) => r.status === 200 && r.turn === 1);
      expect(compactedBefore).toHaveLength(1);
      await sigkill(first);
      rmSync(join(dir, 'hold-tool-1'));
      await startWorker();
      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', steps: 4, text: 'All steps are done.' });
      // One compaction, made before the kill; every turn was answered once.
      const transcript = await getTranscript(env.client, workflowId);
      const compactions = transcript.filter((m) => m.role === 'assistant' && JSON.stringify(m.content).includes('"type":"compaction"'));
      expect(compactions).toHaveLength(1);
      expect(model.requests.filter((r) => r.status === 200).map((r) => r.turn)).toEqual([0, 1, 2, 3]);
      // After the kill the new worker (an empty cache: transcript and settings read by query) sent the
      // conversation from the compaction block on; no later request passed the trigger.
      const later = model.requests.filter((r) => r.status === 200 && (r.turn ?? 0) >= 2).map((r) => r.body as MessagesRequestBody);
      for (const body of later) {
        expect(body.messages[0]).toEqual({ role: 'user', content: COMPACTED_OPENING });
        expect(JSON.stringify(body.messages[1].content)).toContain('"type":"compaction"');
        expect(JSON.stringify(body)).not.toContain('n'.repeat(1000));
      }
      expect((await getStatus(env.client, workflowId)).view).toMatchObject({ compactions: 1 });
      // The transcript still holds the notes the compaction summarized.
      expect(JSON.stringify(transcript)).toContain('n'.repeat(24_000));
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
