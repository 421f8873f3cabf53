// The body of `POST /v1/runs/{id}/fork`: `{ fromStep, message?, ...settings }`, the settings fields those of `POST /v1/runs`
// (the table of run settings), replacing the source's; the others stay the source's. Answers 201 with the
// fork's id and where it came from, 400 for a step out of range (the message says how many steps the run has).
import type { Client } from '@temporalio/client';
import { forkRun, forkSourceSettings, type ForkedRun } from '../client/index.js';
import { forkValues, settingsGivenBy } from '../core/fork-settings.js';
import type { RunInput } from '../config/run-input.js';
import { parseRunRequest, RequestError } from './run-request.js';

export async function forkRequest(
  body: unknown,
  sourceId: string,
  client: Client,
  options: { settings(values: Record<string, unknown>): Promise<RunInput>; taskQueue: string },
): Promise<ForkedRun> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object: { "fromStep": N }');
  const { fromStep, message, task, id, ...fields } = body as Record<string, unknown>;
  if (typeof fromStep !== 'number' || !Number.isSafeInteger(fromStep) || fromStep < 1) {
    throw new RequestError('fromStep: the first live step, a whole number >= 1, is required', 'fromStep');
  }
  if (message !== undefined && (typeof message !== 'string' || !message.trim())) throw new RequestError('message: a non-empty string', 'message');
  if (task !== undefined || id !== undefined) {
    throw new RequestError(`${task !== undefined ? 'task' : 'id'}: a fork's task is its source's transcript, and its id is new`, task !== undefined ? 'task' : 'id');
  }
  // The settings fields, checked as `POST /v1/runs` checks them (the task here stands in for the source's), over
  // the source's settings (the ones the fork keeps) rather than the defaults.
  const { values } = parseRunRequest({ task: 'fork', ...fields });
  const source = await forkSourceSettings(client, sourceId);
  const { settings: full } = await options.settings(forkValues(source, values));
  return forkRun(client, sourceId, {
    fromStep,
    ...(message !== undefined ? { message: message as string } : {}),
    settings: settingsGivenBy(values, full, source),
    taskQueue: options.taskQueue,
  });
}
