// The OpenAPI 3.1 document served at /v1/openapi.json. Written here, next to the routes; a test checks that
// the two name the same operations (test/serve/openapi.test.ts). The run request's settings are the table's.
import { RUN_EVENT_TYPES } from '../core/run-events.js';
import { httpFields } from '../core/run-settings.js';
import { scheduleOpenApiPaths } from './schedules.js';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), { description: ERROR_TEXT[code], ...json(ref('Error')) }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request (the message names the field)',
  401: 'no token, or a token this server does not accept',
  403: 'a read token on a route that needs an operate token',
  404: 'no run with this id',
  409: 'the run is not in a state that allows it (no such call pending, not resumable)',
  413: 'the body is over the limit',
};
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'the workflow id' };
const obj = (properties: Record<string, object>, required: string[] = []) => ({ type: 'object', additionalProperties: false, properties, required });

export function openApiDocument(): Record<string, unknown> {
  const runRequest = obj(
    {
      task: { type: 'string', minLength: 1 },
      id: { type: 'string', description: 'workflow id: a run with it already started is answered instead of starting another' },
      // Each setting's own JSON Schema, from the table of run settings (src/core/run-settings.ts).
      ...Object.fromEntries(httpFields().map(([field, spec]) => [field, spec.schema])),
    },
    ['task'],
  );
  const read = (summary: string, extra: object = {}) => ({
    summary,
    parameters: [idParam],
    responses: { 200: { description: 'OK', ...json({ type: 'object' }) }, ...errors(401, 404) },
    ...extra,
  });
  const operate = (summary: string, body: object | undefined, ok: number, conflict = ERROR_TEXT[409]) => ({
    summary,
    parameters: [idParam],
    ...(body ? { requestBody: { required: true, ...json(body) } } : {}),
    responses: {
      [ok]: { description: 'OK', ...json({ type: 'object' }) },
      ...errors(400, 401, 403, 404, 409, 413),
      409: { description: conflict, ...json(ref('Error')) },
    },
  });
  // A steering route acts on a running run: one that has ended is 409 `run_ended`, its message naming the status.
  const RUN_ENDED = 'run_ended: the run has ended; the message names its status, e.g. "cannot cancel run X: it has ended (COMPLETED)"';
  const steer = (summary: string, body: object | undefined, ok: number, more?: string) =>
    operate(summary, body, ok, more ? `${RUN_ENDED}; or ${more}` : RUN_ENDED);
  return {
    openapi: '3.1.0',
    info: { title: 'durable-agent', version: '1', description: 'Start, watch and steer durable-agent runs (docs/http-api.md).' },
    security: [{ bearer: [] }],
    paths: {
      '/v1/openapi.json': { get: { summary: 'this document', security: [], responses: { 200: { description: 'OK' } } } },
      '/v1/runs': {
        post: {
          summary: 'start a run (idempotent with an Idempotency-Key header or an id)',
          parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 200 } }],
          requestBody: { required: true, ...json(runRequest) },
          responses: {
            201: { description: 'started', ...json(ref('StartedRun')) },
            200: { description: 'a run with this id or key exists: not started again', ...json(ref('StartedRun')) },
            ...errors(400, 401, 403, 413),
          },
        },
        get: {
          summary: 'recent runs, newest first',
          parameters: [
            { name: 'status', in: 'query', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
            { name: 'schedule', in: 'query', schema: { type: 'string' }, description: 'only the runs this schedule started' },
            { name: 'batch', in: 'query', schema: { type: 'string' }, description: 'only the runs of this task batch (start --tasks)' },
          ],
          responses: { 200: { description: 'OK', ...json({ type: 'object', properties: { runs: { type: 'array' } } }) }, ...errors(400, 401) },
        },
      },
      '/v1/runs/{id}': { get: read('the status of a run (live from a worker, else from its history)') },
      '/v1/runs/{id}/transcript': { get: read('the whole conversation: { messages }') },
      '/v1/runs/{id}/usage': { get: read('the tokens and cost of each model call of the current run: { turns: [{ step, model, usage, costUsd, stopReason }] }') },
      '/v1/runs/{id}/result': {
        get: read('the result of a run; 202 { running: true } while it runs, after waiting up to ?wait', {
          parameters: [idParam, { name: 'wait', in: 'query', schema: { type: 'string', examples: ['30s'] } }],
        }),
      },
      '/v1/runs/{id}/events': {
        get: {
          summary: `Server-Sent Events: ${RUN_EVENT_TYPES.join(', ')}; resumable with Last-Event-ID`,
          parameters: [idParam, { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' } }],
          responses: { 200: { description: 'an event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors(400, 401, 404) },
        },
      },
      '/v1/runs/{id}/approvals/{toolUseId}': {
        post: {
          ...steer(
            'approve or deny a tool call waiting for a decision',
            obj({ decision: { enum: ['approve', 'deny'] }, reason: { type: 'string' } }, ['decision']),
            200,
            'conflict: no such call is waiting, or it was decided already',
          ),
          parameters: [idParam, { name: 'toolUseId', in: 'path', required: true, schema: { type: 'string' } }],
        },
      },
      '/v1/runs/{id}/answers': {
        post: steer(
          "the answer to an MCP server's question (elicitation) the run holds",
          obj({ elicitationId: { type: 'string' }, action: { type: 'string', enum: ['accept', 'decline', 'cancel'] }, content: { type: 'object' } }, ['action']),
          200,
          'conflict: no such question is pending, or the answer does not fit its schema (the question stays pending)',
        ),
      },
      '/v1/completions': {
        post: {
          ...operate(
            'the result of a tool call that completes later, named by its completion token',
            obj({ token: { type: 'string', minLength: 1 }, result: { type: 'string' }, isError: { type: 'boolean' } }, ['token', 'result']),
            200,
            'conflict: the token is not one, was used already, or its run has ended',
          ),
          parameters: [], // the token names the run
        },
      },
      '/v1/runs/{id}/messages': {
        post: steer('a follow-up message for a running or chat run', obj({ text: { type: 'string', minLength: 1 } }, ['text']), 202, 'conflict: a chat run that was closed'),
      },
      '/v1/runs/{id}/cancel': { post: steer('cancel a running run: it ends as cancelled with its partial answer', undefined, 202) },
      '/v1/runs/{id}/resume': {
        post: operate(
          'go on with a stopped, failed or cancelled run',
          obj({ moreSteps: { type: 'integer', minimum: 1 }, moreBudgetTokens: { type: 'integer', minimum: 1 }, deadline: { type: 'string' } }),
          201,
          'conflict: the run still runs, or completed (nothing to go on with)',
        ),
      },
      '/v1/runs/{id}/fork': {
        post: operate(
          "a new run reusing the run's recorded steps 1 to fromStep-1 (not run again), live from fromStep; the settings fields of POST /v1/runs given replace the source's (docs/fork-and-replay.md)",
          obj({ fromStep: { type: 'integer', minimum: 1 }, message: { type: 'string', minLength: 1 } }, ['fromStep']),
          201,
          'conflict: the run cannot be read',
        ),
      },
      ...scheduleOpenApiPaths(
        Object.fromEntries(httpFields().filter(([f]) => !/^(priority|fairness)/.test(f)).map(([field, spec]) => [field, spec.schema])),
        json,
        errors,
      ),
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: obj({ error: obj({ type: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } }, ['type', 'message']) }, ['error']),
        StartedRun: obj({ workflowId: { type: 'string' }, runId: { type: 'string' }, attached: { type: 'boolean' } }, ['workflowId', 'runId', 'attached']),
      },
    },
  };
}
