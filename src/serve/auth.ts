// Bearer tokens with a role: `read` for the GETs, `operate` for everything (a run started, approved, cancelled).
// Compared in constant time, as digests, so neither a token's content nor its length leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

export type Role = 'read' | 'operate';

export interface ApiTokens {
  /** May do everything. */
  operate: string[];
  /** May only read (GET routes). */
  read: string[];
}

export const TOKEN_VARIABLES = { operate: 'DURABLE_AGENT_API_TOKEN', read: 'DURABLE_AGENT_API_READ_TOKEN' } as const;

/** The tokens of the environment (comma-separated, to rotate one without a gap); undefined when none is set. */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): ApiTokens | undefined {
  const list = (name: string) => (env[name] ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const tokens = { operate: list(TOKEN_VARIABLES.operate), read: list(TOKEN_VARIABLES.read) };
  return tokens.operate.length + tokens.read.length > 0 ? tokens : undefined;
}

const digest = (token: string) => createHash('sha256').update(token).digest();
const matches = (given: Buffer, tokens: string[]) => tokens.reduce((hit, t) => timingSafeEqual(given, digest(t)) || hit, false);

/** Undefined when the request may go on; else the answer to give. */
export function authorize(tokens: ApiTokens, header: string | undefined, needs: Role): { status: 401 | 403; type: string; message: string } | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return { status: 401, type: 'unauthorized', message: 'missing "Authorization: Bearer <token>" header' };
  const given = digest(m[1]);
  if (matches(given, tokens.operate)) return undefined;
  if (matches(given, tokens.read)) {
    return needs === 'read' ? undefined : { status: 403, type: 'forbidden', message: 'this token may only read (GET); this route needs an operate token' };
  }
  return { status: 401, type: 'unauthorized', message: 'the bearer token is not one this server accepts' };
}
