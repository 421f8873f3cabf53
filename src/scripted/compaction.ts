// The scripted model speaks server-side compaction (the `compact-2026-01-12` beta) and, when asked, enforces a
// context window, so the demo and the tests show a job outliving its window offline. A request whose prompt
// reaches the `compact_20260112` trigger gets a reply that begins with a `compaction` block (a short summary
// standing for the whole prompt), its usage reported apart in `usage.iterations`, as the API does.
import { promptTokens } from './prompt-cache.js';
import type { MessagesRequestBody } from './script.js';

export interface CompactionOptions {
  /** Reject a prompt longer than this many tokens with a 400, as the API does past the model's window. */
  contextWindow?: number;
  /** `false`: refuse the compaction parameter (an endpoint or a model without the beta) with a 400. */
  compaction?: boolean;
}

type Json = Record<string, unknown>;

/** The 400 the request gets, or null. */
export function compactionRequestProblem(body: MessagesRequestBody, betaHeader: string | string[] | undefined, options: CompactionOptions): string | null {
  const tokens = promptTokens(body);
  if (options.contextWindow !== undefined && tokens > options.contextWindow) {
    return `prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`;
  }
  const management = (body as unknown as Json).context_management as { edits?: Json[] } | undefined;
  if (management === undefined) return null;
  if (options.compaction === false) return 'context_management: Extra inputs are not permitted';
  const betas = [betaHeader ?? []].flat().join(',').split(',').map((b) => b.trim());
  if (compactEdit(body) && !betas.includes('compact-2026-01-12')) {
    return 'context_management.edits.0: compact_20260112 requires the anthropic-beta header compact-2026-01-12';
  }
  return null;
}

function compactEdit(body: MessagesRequestBody): Json | undefined {
  const edits = ((body as unknown as Json).context_management as { edits?: Json[] } | undefined)?.edits ?? [];
  return edits.find((e) => e.type === 'compact_20260112');
}

export interface Compacted {
  block: Json;
  /** The compaction iteration's usage, and the prompt the reply was then sampled from. */
  compactionUsage: { input_tokens: number; output_tokens: number };
  promptAfter: number;
}

/** The compaction of this request, when its prompt reached the trigger. */
export function compactionFor(body: MessagesRequestBody, turn: number): Compacted | null {
  const edit = compactEdit(body);
  if (!edit) return null;
  const trigger = ((edit.trigger as Json | undefined)?.value as number | undefined) ?? 150_000;
  const tokens = promptTokens(body);
  if (tokens < trigger) return null;
  const summary =
    `Summary of the conversation up to turn ${turn} (${tokens} tokens): the task, the tool calls made so far and ` +
    'their results, condensed by the scripted model.';
  const summaryTokens = Math.ceil(summary.length / 4);
  const frame = promptTokens({ ...body, messages: [] });
  return {
    block: { type: 'compaction', content: summary, encrypted_content: `scripted-compaction:turn=${turn}` },
    compactionUsage: { input_tokens: tokens, output_tokens: summaryTokens },
    promptAfter: frame + summaryTokens,
  };
}
