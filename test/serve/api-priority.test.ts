// `priority`, `fairnessKey` and `fairnessWeight` in POST /v1/runs: on the run's start, refused as the CLI refuses
// them (400 naming the field).
import { describe, expect, it } from 'vitest';
import { reply, text } from '../../src/scripted/index.js';
import { runInput } from '../../src/config/run-input.js';
import { toolCatalog } from '../../src/config/tool-names.js';
import { SettingsInputError } from '../../src/core/settings-check.js';
import { parseRunRequest, RequestError } from '../../src/serve/run-request.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { call, openApi } from './api-helpers.js';

const env = useTestEnv();

const refusal = (body: Record<string, unknown>) => {
  try {
    runInput(parseRunRequest({ task: 'x', ...body }).values, toolCatalog({}));
  } catch (err) {
    if (err instanceof RequestError || err instanceof SettingsInputError) return { field: err.field, message: err.message };
    throw err;
  }
  throw new Error('accepted');
};

describe('priority over HTTP', () => {
  it('refuses priorities 0, 6 and "high", and a weight without a key, naming the field', () => {
    expect(refusal({ priority: 0 })).toEqual({ field: 'priority', message: 'priority must be at least 1 (got 0)' });
    expect(refusal({ priority: 6 })).toEqual({ field: 'priority', message: 'priority must be at most 5 (got 6)' });
    expect(refusal({ priority: 'high' })).toMatchObject({ field: 'priority', message: expect.stringMatching(/^priority must be a whole number/) });
    expect(refusal({ fairnessWeight: 2 })).toMatchObject({ field: 'fairnessWeight', message: 'fairnessWeight needs fairnessKey (the key it weighs)' });
  });

  it('a run started with priority and fairnessKey has them on its start', async () => {
    await withAgent(env, { script: [reply([text('done')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'urgent', tools: ['calculator'], priority: 1, fairnessKey: 'tenant-a', fairnessWeight: 3 });
        expect(started.status).toBe(201);
        const id = started.json!.workflowId as string;
        const first = (await env.client.workflow.getHandle(id).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
        expect(first?.priority).toMatchObject({ priorityKey: 1, fairnessKey: 'tenant-a', fairnessWeight: 3 });
        const bad = await call(api, 'POST', '/v1/runs', { task: 'urgent', priority: 'high' });
        expect(bad.status).toBe(400);
        expect(bad.json).toMatchObject({ error: { field: 'priority' } });
      } finally {
        await api.close();
      }
    });
  });
});
