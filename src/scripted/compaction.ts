// The scripted model speaks server-side compaction (the `compact-2026-01-12` beta) and, when asked, enforces a
// context window, so the demo and the tests show a job outliving its window offline. A request whose prompt
// reaches the `compact_20260112` trigger gets a reply that begins with a `compaction` block (a short summary
// standing for the whole prompt), its usage reported apart in `usage.iterations`, as the API does.
import { CLIENT_SUMMARY_PREFIX, COMPACTION_INSTRUCTION } from '../core/compaction.js';
import { promptTokens } from './prompt-cache.js';
import { reply, text, type MessagesRequestBody, type ReplyTurn } from './script.js';

export interface CompactionOptions {
  /** Reject a prompt longer than this many tokens with a 400, as the API does past the model's window. */
  contextWindow?: number;
  /** `false`: refuse the compaction parameter with a 400 (an endpoint or a model without the beta). Default: compact. */
  compaction?: boolean;
  /** `false`: refuse `output_config.task_budget` with a 400. Default: accept it. */
  taskBudget?: boolean;
}

type Json = Record<string, unknown>;

/** The 400 the request gets, or null. */
export function compactionRequestProblem(body: MessagesRequestBody, betaHeader: string | string[] | undefined, options: CompactionOptions): string | null {
  const tokens = promptTokens(body);
  if (options.contextWindow !== undefined && tokens > options.contextWindow) {
    return `prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`;
  }
  const betas = [betaHeader ?? []].flat().join(',').split(',').map((b) => b.trim());
  const taskBudget = ((body as unknown as Json).output_config as Json | undefined)?.task_budget;
  if (taskBudget !== undefined) {
    if (options.taskBudget === false) return 'output_config.task_budget: Extra inputs are not permitted';
    if (!betas.includes('task-budgets-2026-03-13')) return 'output_config.task_budget: requires the anthropic-beta header task-budgets-2026-03-13';
  }
  const management = (body as unknown as Json).context_management as { edits?: Json[] } | undefined;
  if (management === undefined) return null;
  if (options.compaction === false) return 'context_management: Extra inputs are not permitted';
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

/** `usage.iterations` of a reply that compacted: the compaction's usage, then the sampling's. */
export function compactionIterations(compacted: Compacted, outputTokens: number): Json[] {
  const uncached = { cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return [
    { type: 'compaction', ...compacted.compactionUsage, ...uncached, cache_creation: null },
    { type: 'message', input_tokens: compacted.promptAfter, output_tokens: outputTokens, ...uncached },
  ];
}

// Client-side compaction, as the scripted model sees it: a summary request (tools disabled, the compaction
// instruction last) is answered with a summary, whatever the script says; a later request that opens with that
// summary continues the script's turns where the summary left them.

/** The answer to a client-side compaction's summary request, or null for any other request. */
export function clientSummaryReply(body: MessagesRequestBody, turn: number): ReplyTurn | null {
  const last = body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content : [];
  const end = blocks.at(-1) as { type?: string; text?: string } | undefined;
  if (last?.role !== 'user' || end?.type !== 'text' || end.text !== COMPACTION_INSTRUCTION) return null;
  const tokens = promptTokens(body);
  return reply([text(`The conversation up to turn ${turn} (${tokens} tokens), summarized by the scripted model. scripted-summary:turn=${turn}`)], 'end_turn');
}

/** The turns a client-side summary at the start of the request stands for. */
export function summarizedTurns(body: { messages: Array<{ role: string; content?: unknown }> }): number {
  const first = body.messages[0];
  const content = first?.content;
  // A string, or (with a cache marker on it) one text block.
  const opening = typeof content === 'string' ? content : Array.isArray(content) ? (content[0] as { text?: unknown } | undefined)?.text : undefined;
  if (first?.role !== 'user' || typeof opening !== 'string' || !opening.startsWith(CLIENT_SUMMARY_PREFIX)) return 0;
  const made = /scripted-summary:turn=(\d+)/.exec(opening);
  return made ? Number(made[1]) : 0;
}
