// The schedules of the HTTP API: `/v1/schedules` over the client's schedule functions (src/client/schedules.ts). A
// schedule's body is a run request (`task` and settings, read and checked as `POST /v1/runs` reads them) plus its
// name and timing: `{ "name", "every" | "cron", "overlap"?, "catchupWindow"?, "jitter"?, "timezone"?, "paused"?,
// "note"?, "task", ...settings }`.
import type { Hono } from 'hono';
import {
  createAgentSchedule,
  deleteAgentSchedule,
  describeAgentSchedule,
  InvalidScheduleError,
  listAgentSchedules,
  OVERLAP_POLICIES,
  pauseAgentSchedule,
  ScheduleNotFoundError,
  triggerAgentSchedule,
  unpauseAgentSchedule,
  type CreateScheduleOptions,
  type OverlapPolicy,
} from '../client/schedules.js';
import type { RunRoutesOptions } from './run-routes.js';
import { jsonBody, objectBody } from './http.js';
import { parseRunRequest, RequestError } from './run-request.js';

/** The fields of a schedule's body that are not the run's: the schedule's name and timing. */
export const SCHEDULE_FIELDS = {
  name: { type: 'string', description: "the schedule's name (its Temporal schedule id): letters, digits and . _ @ -" },
  every: { type: 'string', description: 'an interval: 5s, 10m, 1h, 1d (give every or cron)' },
  cron: { type: 'string', description: 'a cron expression: "0 9 * * 1-5" (give every or cron)' },
  overlap: { type: 'string', enum: [...OVERLAP_POLICIES], description: 'what a firing does while the previous run still runs (default skip)' },
  catchupWindow: { type: 'string', description: 'after a server outage, the firings missed by at most this long are taken (default 1 year)' },
  jitter: { type: 'string', description: 'each firing is delayed by a random time up to this' },
  timezone: { type: 'string', description: 'the time zone of the cron expression (default UTC)' },
  paused: { type: 'boolean', description: 'create it paused' },
  note: { type: 'string', description: 'a note, shown by describe' },
} as const;

export function scheduleRoutes(app: Hono, options: Omit<RunRoutesOptions, 'hub'>): void {
  const { client } = options;

  app.get('/v1/schedules', async (c) => c.json({ schedules: await listAgentSchedules(client) }));

  app.post('/v1/schedules', async (c) => {
    const body = await jsonBody(c);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object: { "name", "every" or "cron", "task", ... }');
    const own: Record<string, unknown> = {};
    const run: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) (k in SCHEDULE_FIELDS ? own : run)[k] = v;
    for (const [field, spec] of Object.entries(SCHEDULE_FIELDS)) {
      const v = own[field];
      if (v !== undefined && typeof v !== spec.type) throw new RequestError(`${field} must be a ${spec.type}`, field);
    }
    if (typeof own.name !== 'string') throw new RequestError('name: the schedule\'s name is required', 'name');
    checkOverlap(own.overlap);
    const request = parseRunRequest(run);
    if (request.id !== undefined) throw new RequestError("id: a schedule's runs are named by the schedule: <name>-<time of the firing>", 'id');
    const priorityField = (['priority', 'fairnessKey', 'fairnessWeight'] as const).find((f) => run[f] !== undefined);
    if (priorityField) throw new RequestError(`${priorityField}: a schedule's runs take no priority (Temporal 1.24's schedules do not set one)`, priorityField);
    const { settings } = await options.settings(request.values);
    // The fields' types are checked above, against SCHEDULE_FIELDS.
    const timing = own as Omit<CreateScheduleOptions, 'task' | 'settings' | 'taskQueue'>;
    await asRequest(() => createAgentSchedule(client, { ...timing, task: request.task, settings, taskQueue: options.taskQueue }));
    return c.json(await describeAgentSchedule(client, own.name), 201);
  });

  app.get('/v1/schedules/:name', async (c) => c.json(await asRequest(() => describeAgentSchedule(client, c.req.param('name')))));

  app.delete('/v1/schedules/:name', async (c) => {
    const name = c.req.param('name');
    await asRequest(() => deleteAgentSchedule(client, name));
    return c.json({ name, deleted: true });
  });

  for (const action of ['pause', 'unpause', 'trigger'] as const) {
    app.post(`/v1/schedules/:name/${action}`, async (c) => {
      const name = c.req.param('name');
      const allowed = action === 'trigger' ? 'overlap' : 'note';
      const value = objectBody(await jsonBody(c, true), [allowed])[allowed];
      if (value !== undefined && typeof value !== 'string') throw new RequestError(`${allowed} must be a string`, allowed);
      if (action === 'trigger') checkOverlap(value);
      await asRequest(() =>
        action === 'pause'
          ? pauseAgentSchedule(client, name, value as string | undefined)
          : action === 'unpause'
            ? unpauseAgentSchedule(client, name, value as string | undefined)
            : triggerAgentSchedule(client, name, value as OverlapPolicy | undefined),
      );
      return c.json({ name, [action === 'trigger' ? 'triggered' : action === 'pause' ? 'paused' : 'unpaused']: true }, action === 'trigger' ? 202 : 200);
    });
  }
}

function checkOverlap(overlap: unknown): void {
  if (overlap !== undefined && !OVERLAP_POLICIES.includes(overlap as OverlapPolicy)) {
    throw new RequestError(`overlap must be one of ${OVERLAP_POLICIES.join(', ')}`, 'overlap');
  }
}

/** The schedule functions' errors as the API answers them: a bad spec 400, an unknown schedule 404. */
async function asRequest<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidScheduleError) throw new RequestError(err.message, /already exists/.test(err.message) ? 'name' : undefined, /already exists/.test(err.message) ? 409 : 400, /already exists/.test(err.message) ? 'conflict' : 'invalid_request');
    if (err instanceof ScheduleNotFoundError) throw new RequestError(`no schedule named "${err.scheduleId}"`, undefined, 404, 'not_found');
    throw err;
  }
}

/** The OpenAPI paths of these routes; `runFields`: a run request's properties, which a schedule's body also takes. */
export function scheduleOpenApiPaths(runFields: Record<string, object>, json: (schema: object) => object, errors: (...codes: number[]) => object): Record<string, object> {
  const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: "the schedule's name" };
  const ok = (status: number, description = 'OK') => ({ [status]: { description, ...json({ type: 'object' }) } });
  const action = (summary: string, field: string, schema: object, status = 200) => ({
    post: {
      summary,
      parameters: [nameParam],
      requestBody: { required: false, ...json({ type: 'object', additionalProperties: false, properties: { [field]: schema } }) },
      responses: { ...ok(status), ...errors(400, 401, 403, 404) },
    },
  });
  return {
    '/v1/schedules': {
      get: { summary: "the agent's schedules: { schedules }", responses: { ...ok(200), ...errors(401) } },
      post: {
        summary: 'create a schedule: a run of the task at each firing (cron or every)',
        requestBody: {
          required: true,
          ...json({ type: 'object', additionalProperties: false, properties: { ...SCHEDULE_FIELDS, task: { type: 'string', minLength: 1 }, ...runFields }, required: ['name', 'task'] }),
        },
        responses: { ...ok(201, 'created: its description'), ...errors(400, 401, 403, 413), 409: { description: 'a schedule with this name exists' } },
      },
    },
    '/v1/schedules/{name}': {
      get: { summary: 'a schedule: its task, settings, spec, next firings and recent runs', parameters: [nameParam], responses: { ...ok(200), ...errors(401, 404) } },
      delete: { summary: 'delete a schedule: it fires no more (its runs are left as they are)', parameters: [nameParam], responses: { ...ok(200), ...errors(401, 403, 404) } },
    },
    '/v1/schedules/{name}/pause': action('pause a schedule: no firing until unpaused', 'note', { type: 'string' }),
    '/v1/schedules/{name}/unpause': action('unpause a schedule', 'note', { type: 'string' }),
    '/v1/schedules/{name}/trigger': action('start a run of the schedule now', 'overlap', { type: 'string', enum: [...OVERLAP_POLICIES] }, 202),
  };
}
