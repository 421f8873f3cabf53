// The body of `POST /v1/runs`: `{ task, id?, ...settings }`, each setting named as the library names it (`maxSteps`,
// `budgetTokens`, `approve: ['calculator']`), the fields and their types those of the table of run settings
// (src/core/run-settings.ts). Checked by the library's own check, so a value the library or the CLI refuses is
// refused here with the same words, naming the field.
import { httpFields } from '../core/run-settings.js';
import { givenProblem, taskSizeProblem } from '../core/settings-check.js';
import { nearestName as nearest } from '../core/suggest.js';

/** A request refused: answered with its status (400 by default; 404, 413, ...) and
 * `{ error: { type, message, field } }`. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    message: string,
    readonly field?: string,
    readonly status = 400,
    readonly type = 'invalid_request',
  ) {
    super(message);
  }
}

const FIELDS: ReadonlySet<string> = new Set(httpFields().map(([name]) => name));

export interface RunRequest {
  task: string;
  id?: string;
  /** The settings and start options the body gives, by name (null: the default). */
  values: Record<string, unknown>;
}

export function parseRunRequest(body: unknown): RunRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object: { "task": "..." }');
  const { task, id, ...rest } = body as Record<string, unknown>;
  if (typeof task !== 'string' || !task.trim()) throw new RequestError('task: a non-empty string is required', 'task');
  const tooLarge = taskSizeProblem(task);
  if (tooLarge) throw new RequestError(`task ${tooLarge}`, 'task', 413, 'too_large');
  if (id !== undefined && (typeof id !== 'string' || !/^[\w.:@-]{1,200}$/.test(id))) {
    throw new RequestError('id: a workflow id of letters, digits and . _ : @ - (at most 200)', 'id');
  }
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(rest)) {
    if (!FIELDS.has(field)) {
      const guess = nearest(field, [...FIELDS, 'task', 'id']);
      throw new RequestError(`unknown field "${field}"${guess ? ` (did you mean "${guess}"?)` : ''}`, field);
    }
    if (value !== null) values[field] = value;
  }
  const problem = givenProblem(values);
  if (problem) throw new RequestError(`${problem.path} ${problem.problem}`, problem.field);
  return { task, ...(id !== undefined ? { id } : {}), values };
}
