// Steering a run that has ended: every steering route answers 409 naming the run's status (as the CLI words it),
// and a run that does not exist stays 404. Issue 42, item 4.
import { describe, expect, it } from 'vitest';
import { reply, text } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { call, openApi } from './api-helpers.js';

const env = useTestEnv();

describe('steering routes on a finished run', () => {
  it('messages, cancel, approvals (approve and deny) and answers answer 409 with the status; an unknown id is 404', async () => {
    await withAgent(env, { script: [reply([text('Done.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: 'say done', tools: ['calculator'], maxSteps: 3 })).json!.workflowId as string;
        expect(await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).toMatchObject({ status: 200, json: { status: 'completed' } });

        const steer: Array<[string, string, unknown]> = [
          ['send a message to', `/v1/runs/${id}/messages`, { text: 'one more thing' }],
          ['cancel', `/v1/runs/${id}/cancel`, undefined],
          ['approve', `/v1/runs/${id}/approvals/toolu_x`, { decision: 'approve' }],
          ['deny', `/v1/runs/${id}/approvals/toolu_x`, { decision: 'deny', reason: 'no' }],
          ['answer a question of', `/v1/runs/${id}/answers`, { action: 'decline' }],
        ];
        for (const [what, path, body] of steer) {
          expect(await call(api, 'POST', path, body), path).toMatchObject({
            status: 409,
            json: { error: { type: 'run_ended', message: `cannot ${what} run ${id}: it has ended (COMPLETED)` } },
          });
        }
        // The run is untouched: still completed, with its one model call.
        expect((await call(api, 'GET', `/v1/runs/${id}`)).json).toMatchObject({ view: { status: 'completed' } });

        const missing = await call(api, 'POST', '/v1/runs/no-such-run-42/messages', { text: 'hello' });
        expect(missing).toMatchObject({ status: 404, json: { error: { type: 'not_found', message: 'no run with id "no-such-run-42"' } } });
        expect((await call(api, 'POST', '/v1/runs/no-such-run-42/cancel')).status).toBe(404);
      } finally {
        await api.close();
      }
    });
  });
});
