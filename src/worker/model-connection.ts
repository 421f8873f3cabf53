// Where a worker's model calls go, from its environment: the key and endpoint are read by the worker only (never
// workflow input, history or logs).
import type { ModelConnection } from '../activities/index.js';

export function modelConnectionFromEnv(env: NodeJS.ProcessEnv = process.env): ModelConnection {
  return { apiKey: env.ANTHROPIC_API_KEY || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined };
}
