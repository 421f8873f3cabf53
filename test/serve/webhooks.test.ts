// Webhooks of runs started over HTTP: the `webhook` field of POST /v1/runs and the server's own (`serve --webhook`)
// both receive the run's events; a bad URL is a 400 naming the field.
import { describe, expect, it } from 'vitest';
import { reply, text } from '../../src/scripted/index.js';
import { serve } from '../../src/serve/index.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { startWebhookReceiver, useWebhookSecret } from '../helpers/webhook-receiver.js';
import { call, OPERATE } from './api-helpers.js';

const env = useTestEnv();
const SECRET = 'serve-webhook-secret';
useWebhookSecret(SECRET);

describe('webhooks over HTTP', () => {
  it("a run's webhooks field and the server's webhooks both get its run.completed; a bad URL is 400 naming webhooks", async () => {
    const perRun = await startWebhookReceiver();
    const server = await startWebhookReceiver();
    try {
      await withAgent(env, { script: [reply([text('It is done.')])] }, async (h) => {
        const api = await serve({ client: env.client, port: 0, tokens: { operate: [OPERATE], read: [] }, taskQueue: h.taskQueue, webhooks: [server.url], log: () => {} });
        try {
          const bad = await call(api, 'POST', '/v1/runs', { task: 'x', tools: ['calculator'], webhooks: ['ftp://example.com/h'] });
          expect(bad).toMatchObject({ status: 400, json: { error: { field: 'webhooks' } } });
          expect((bad.json!.error as { message: string }).message).toBe('webhooks[0] "ftp://example.com/h" is not an http:// or https:// URL');
          const started = await call(api, 'POST', '/v1/runs', { task: 'finish', tools: ['calculator'], webhooks: [perRun.url] });
          expect(started.status).toBe(201);
          const id = started.json!.workflowId as string;
          expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed' });
          for (const r of [perRun, server]) {
            expect(r.deliveries).toHaveLength(1);
            expect(verifyWebhook({ secret: SECRET, body: r.deliveries[0].body, headers: r.deliveries[0].headers })).toMatchObject({
              type: 'run.completed',
              workflowId: id,
              data: { text: 'It is done.' },
            });
          }
        } finally {
          await api.close();
        }
      });
    } finally {
      await perRun.close();
      await server.close();
    }
  });
});
