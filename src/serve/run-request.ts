// The body of `POST /v1/runs`: `{ task, id?, ...settings }`, each setting a flag of `start` in camelCase
// (`maxSteps`, `budgetTokens`, `approve: ['calculator']`). A thin mapping onto the CLI's own checks: the body
// becomes the flags `start` would have parsed, so a value the CLI refuses is refused here with the same
// sentence, naming the field instead of the flag.
import { parseArgs, UsageError, type FlagSpec, type Parsed } from '../core/args.js';
import { priorityFromFlags, START_FLAGS } from '../cli/settings.js';
import type { RunPriority } from '../core/priority.js';
import { checkTaskSize } from '../cli/task.js';
import { nearestName as nearest } from '../core/suggest.js';

/** Flags a body may not carry as flags: those that name a file on the machine that runs `serve` (task-file,
 * config, prices, output-schema: not something an HTTP caller may point at), and json and id, which the API has
 * its own way of saying (the answer is JSON; `id` is a field of the body, checked apart). */
const NOT_OVER_HTTP = new Set(['json', 'task-file', 'config', 'prices', 'output-schema', 'id']);

export type StartFlags = Parsed<typeof START_FLAGS>['flags'];

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

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const FIELDS = new Map<string, string>(
  Object.keys(START_FLAGS)
    .filter((f) => !NOT_OVER_HTTP.has(f))
    .map((f) => [camel(f), f]),
);

/** The fields a run request may carry, for the OpenAPI document: name → the flag's spec. */
export function runRequestFields(): Array<[string, FlagSpec]> {
  return [...FIELDS].map(([field, flag]) => [field, (START_FLAGS as Record<string, FlagSpec>)[flag]]);
}

export interface RunRequest {
  task: string;
  id?: string;
  flags: StartFlags;
}

export function parseRunRequest(body: unknown): RunRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object: { "task": "..." }');
  const { task, id, ...rest } = body as Record<string, unknown>;
  if (typeof task !== 'string' || !task.trim()) throw new RequestError('task: a non-empty string is required', 'task');
  try {
    checkTaskSize(task);
  } catch (err) {
    throw new RequestError(`task: ${(err as Error).message}`, 'task', 413, 'too_large');
  }
  if (id !== undefined && (typeof id !== 'string' || !/^[\w.:@-]{1,200}$/.test(id))) {
    throw new RequestError('id: a workflow id of letters, digits and . _ : @ - (at most 200)', 'id');
  }
  const argv: string[] = [];
  for (const [field, value] of Object.entries(rest)) {
    const flag = FIELDS.get(field);
    if (!flag) {
      const guess = nearest(field, [...FIELDS.keys(), 'task', 'id']);
      throw new RequestError(`unknown field "${field}"${guess ? ` (did you mean "${guess}"?)` : ''}`, field);
    }
    if (value === undefined || value === null) continue;
    const spec = (START_FLAGS as Record<string, FlagSpec>)[flag];
    argv.push(...asArgv(field, flag, spec, value));
  }
  try {
    return { task, ...(id !== undefined ? { id } : {}), flags: parseArgs(argv, START_FLAGS).flags };
  } catch (err) {
    throw asRequestError(err);
  }
}

function asArgv(field: string, flag: string, spec: FlagSpec, value: unknown): string[] {
  const wrong = (what: string) => new RequestError(`${field} must be ${what} (got ${JSON.stringify(value)?.slice(0, 60)})`, field);
  switch (spec.type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return value ? [`--${flag}`] : [];
    case 'int':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw wrong(spec.type === 'int' ? 'a whole number' : 'a number');
      return [`--${flag}=${value}`];
    case 'string':
      if (typeof value !== 'string') throw wrong('a string');
      return [`--${flag}=${value}`];
    case 'list': {
      const items = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(items) || items.some((i) => typeof i !== 'string' || i.includes(',') || !i.trim())) {
        throw wrong('an array of names (strings without commas)');
      }
      if (items.length === 0) throw new RequestError(`${field} needs at least one name`, field);
      return [`--${flag}=${items.join(',')}`];
    }
  }
}

/** A UsageError of the CLI's checks, its `--flag` names turned into the body's field names. */
export function asRequestError(err: unknown): unknown {
  if (!(err instanceof UsageError)) return err;
  let field: string | undefined;
  const message = err.message.replace(/--([a-z][a-z-]*)/g, (whole, flag: string) => {
    if (!(flag in START_FLAGS)) return whole;
    field ??= camel(flag);
    return camel(flag);
  });
  return new RequestError(message, field);
}

/** The run's task priority from `priority`, `fairnessKey` and `fairnessWeight`, refused as the CLI refuses them. */
export function runPriority(flags: StartFlags): RunPriority | undefined {
  try {
    return priorityFromFlags(flags);
  } catch (err) {
    throw asRequestError(err);
  }
}
