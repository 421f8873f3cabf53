// MCP elicitation (form mode), pure: the defaults a requested schema gives (SEP-1034), the check of an answer against
// the schema (flat objects of strings, numbers, booleans and enums, as the MCP spec restricts it), and which recorded
// answer a server's (repeated) request gets. Used by the workflow's update validator and by the worker's MCP client.
import type { ElicitationAnswer, ElicitationQuestion } from './durable-state.js';

export type { ElicitationAnswer, ElicitationQuestion };

/** What an answer does: `accept` with content, `decline` (the user said no), `cancel` (dismissed, or timed out). */
export type ElicitationAction = ElicitationAnswer['action'];
export const ELICITATION_ACTIONS: readonly ElicitationAction[] = ['accept', 'decline', 'cancel'];

/** Per server: ask the run's user (a pending question), decline at once, or accept with the schema's defaults. */
export type ElicitationPolicy = 'ask' | 'decline' | 'accept-defaults';
export const ELICITATION_POLICIES: readonly ElicitationPolicy[] = ['ask', 'decline', 'accept-defaults'];

type Schema = Record<string, unknown>;

function propertiesOf(schema: Schema): Record<string, Schema> {
  const props = schema.properties;
  return props && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, Schema>) : {};
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
}

/** SEP-1034: every property the answer leaves out that has a `default` gets it. Returns a new object. */
export function withElicitationDefaults(schema: Schema, content: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...content };
  for (const [key, prop] of Object.entries(propertiesOf(schema))) {
    if (out[key] === undefined && prop && typeof prop === 'object' && 'default' in prop) out[key] = prop.default;
  }
  return out;
}

/** The problem with `content` as an answer to `schema` (defaults already applied), in one line; null when it fits. */
export function elicitationProblem(schema: Schema, content: unknown): string | null {
  if (!content || typeof content !== 'object' || Array.isArray(content)) return 'the answer must be a JSON object';
  const props = propertiesOf(schema);
  const answer = content as Record<string, unknown>;
  const missing = requiredOf(schema).filter((key) => answer[key] === undefined);
  if (missing.length > 0) return `missing required field${missing.length === 1 ? '' : 's'} ${missing.map((m) => `"${m}"`).join(', ')}`;
  for (const [key, value] of Object.entries(answer)) {
    const prop = props[key];
    if (!prop) return `"${key}" is not a field of the question (fields: ${Object.keys(props).join(', ') || 'none'})`;
    const problem = valueProblem(prop, value);
    if (problem) return `"${key}" ${problem}`;
  }
  return null;
}

function enumValues(prop: Schema): unknown[] | null {
  if (Array.isArray(prop.enum)) return prop.enum;
  const options = Array.isArray(prop.oneOf) ? prop.oneOf : Array.isArray(prop.anyOf) ? prop.anyOf : null;
  return options ? options.map((o) => (o && typeof o === 'object' ? (o as Schema).const : undefined)) : null;
}

function valueProblem(prop: Schema, value: unknown): string | null {
  const type = prop.type;
  if (type === 'array') {
    if (!Array.isArray(value)) return 'must be a list';
    const items = (prop.items ?? {}) as Schema;
    const allowed = enumValues(items);
    const bad = allowed ? value.find((v) => !allowed.includes(v)) : undefined;
    if (bad !== undefined) return `has ${JSON.stringify(bad)}, which is not one of ${allowed!.map((a) => JSON.stringify(a)).join(', ')}`;
    if (typeof prop.minItems === 'number' && value.length < prop.minItems) return `needs at least ${prop.minItems} item(s)`;
    if (typeof prop.maxItems === 'number' && value.length > prop.maxItems) return `takes at most ${prop.maxItems} item(s)`;
    return null;
  }
  const allowed = enumValues(prop);
  if (allowed) return allowed.includes(value) ? null : `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${JSON.stringify(value)}`;
  if (type === 'boolean') return typeof value === 'boolean' ? null : `must be true or false, not ${JSON.stringify(value)}`;
  if (type === 'number' || type === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a number, not ${JSON.stringify(value)}`;
    if (type === 'integer' && !Number.isInteger(value)) return `must be a whole number, not ${value}`;
    if (typeof prop.minimum === 'number' && value < prop.minimum) return `must be at least ${prop.minimum}`;
    if (typeof prop.maximum === 'number' && value > prop.maximum) return `must be at most ${prop.maximum}`;
    return null;
  }
  if (type === 'string') {
    if (typeof value !== 'string') return `must be a string, not ${JSON.stringify(value)}`;
    if (typeof prop.minLength === 'number' && value.length < prop.minLength) return `must be at least ${prop.minLength} characters`;
    if (typeof prop.maxLength === 'number' && value.length > prop.maxLength) return `must be at most ${prop.maxLength} characters`;
    const format = prop.format;
    if (format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) return `must be an email address, not ${JSON.stringify(value)}`;
    if (format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return `must be a date (YYYY-MM-DD), not ${JSON.stringify(value)}`;
    if (format === 'uri' && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(value)) return `must be a URI, not ${JSON.stringify(value)}`;
    return null;
  }
  return null;
}

/** An answer from a user (the `answerElicitation` update): the action, and for `accept` the content with the
 * schema's defaults applied. Throws one line naming the problem; the question stays pending. */
export function checkedAnswer(question: ElicitationQuestion, action: unknown, content: unknown): ElicitationAnswer {
  if (!ELICITATION_ACTIONS.includes(action as ElicitationAction)) {
    throw new Error(`unknown action ${JSON.stringify(action)}: give accept (with content), decline or cancel`);
  }
  if (action !== 'accept') return { key: question.key, action: action as ElicitationAction };
  if (content !== undefined && (!content || typeof content !== 'object' || Array.isArray(content))) {
    throw new Error(`the answer to ${question.id} must be a JSON object of the fields ${Object.keys(propertiesOf(question.requestedSchema)).join(', ')}`);
  }
  const filled = withElicitationDefaults(question.requestedSchema, content as Record<string, unknown> | undefined);
  const problem = elicitationProblem(question.requestedSchema, filled);
  if (problem) throw new Error(`the answer to ${question.id} does not match the requested schema: ${problem}`);
  return { key: question.key, action: 'accept', content: filled };
}

/** The `accept-defaults` policy's answer: accept with the defaults, when they satisfy the schema; else decline. */
export function defaultsAnswer(schema: Schema): { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } {
  const content = withElicitationDefaults(schema);
  return elicitationProblem(schema, content) === null ? { action: 'accept', content } : { action: 'decline' };
}

/** Which recorded answer the `index`th elicitation of a call gets: the one recorded for it, if the server asks the
 * same question again (same message and schema: `key`); undefined when it is a new question. */
export function recordedAnswer(answers: readonly ElicitationAnswer[] | undefined, index: number, key: string): ElicitationAnswer | undefined {
  const answer = answers?.[index];
  return answer && answer.key === key ? answer : undefined;
}

/** The answers a call is made again with once `answer` came for its question number `index`: those before it, then it. */
export function answersAfter(answers: readonly ElicitationAnswer[] | undefined, index: number, answer: ElicitationAnswer): ElicitationAnswer[] {
  return [...(answers ?? []).slice(0, index), answer];
}
