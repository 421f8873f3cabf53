// `transcript`: the whole conversation of a run (across continue-as-new), one block per message, read with no
// worker needed. `status` and `list` are in status.ts and list.ts.
import { agentClient } from '../lazy-client.js';
import { compactionLine, type CompactionBlock } from '../../core/compaction.js';
import { oneLine } from '../../core/transcript.js';
import { forkedFromLine, lastForkableStep, transcriptBeforeStep } from '../../core/fork.js';
import { childRuns } from '../sub-agents-view.js';
import type { CompactionRecord, ForkOrigin, ContentBlockParam, MessageParam } from '../../core/types.js';
import { expectPositionals, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { blocksOf, indent, serverToolText, toolResultText } from '../format.js';
import { JSON_FLAG, printJson, printText } from '../output.js';
import { withTemporal } from '../temporal.js';

export const transcript = defineCommand({
  usage: 'transcript <workflowId> [--json]',
  description: `The whole conversation of a run (across continue-as-new), one block per message; with --json, the
array of messages (usable as a test fixture). Needs no worker: a closed run is read from its history.`,
  flags: JSON_FLAG,
  examples: ['transcript agent-search-for-the-population-of-fra-s9aiw3', 'transcript nightly-report --json > messages.json'],
  run: transcriptCommand,
});

async function transcriptCommand({ flags, positionals }: Parsed<typeof JSON_FLAG>): Promise<number> {
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'transcript <workflowId> [--json]');
  return withTemporal(async (temporal) => {
    const { getStatus, getTranscript } = await agentClient();
    const messages = await getTranscript(temporal.client, workflowId);
    if (flags.json) printJson(messages);
    else {
      // What each compaction did is in the run's state, not in its block: read it when there is one.
      // And a fork's origin (which messages it reused) in its state too.
      const view = (await getStatus(temporal.client, workflowId).catch(() => null))?.view;
      printText(formatTranscript(messages, view?.compactionLog ?? [], workflowId, view?.forkedFrom));
    }
    return 0;
  });
}

/** One block per message: the role, then each content block on its own line(s). A compaction is one line; a
 * delegation (`agent__*`) names its child run (`transcript <childId>` shows the child's own conversation), given the
 * run's `workflowId`. */
export function formatTranscript(
  messages: readonly MessageParam[],
  compactions: readonly CompactionRecord[] = [],
  workflowId?: string,
  forkedFrom?: ForkOrigin,
): string {
  const names = toolNames(messages);
  const children = workflowId ? childRuns(messages, workflowId) : new Map<string, string>();
  // A client-side compaction has no block: its line comes before the first message it does not replace.
  const clientLines = (i: number) =>
    compactions.filter((c) => c.clientSide && c.messageIndex === i).map((c) => `${compactionLine(c, { type: 'compaction', content: null })}\n`);
  // A fork's reused steps are marked as such: the messages before its first live step came from its source.
  const reused = forkedFrom ? transcriptBeforeStep(messages, Math.min(forkedFrom.step, lastForkableStep(messages))).length : 0;
  const forkLines = (i: number) =>
    !forkedFrom || forkedFrom.step === 1
      ? []
      : i === 0
        ? [`── reused: steps 1–${forkedFrom.step - 1} of ${forkedFrom.workflowId}, as recorded (not run again) ──\n`]
        : i === reused
          ? [`── live: from step ${forkedFrom.step} (${forkedFromLine(forkedFrom)}) ──\n`]
          : [];
  const lines = messages.map((m, i) => {
    const record = compactions.find((c) => !c.clientSide && c.messageIndex === i);
    const body = blocksOf(m.content)
      .map((b) => ((b.type as string) === 'compaction' ? compactionLine(record, b as unknown as CompactionBlock) : blockText(b, names, children)))
      .join('\n');
    return [...clientLines(i), ...forkLines(i), `── ${i + 1}. ${m.role} ──\n${body}\n`].join('\n');
  });
  return [...lines, ...clientLines(messages.length)].join('\n');
}

function blockText(block: ContentBlockParam, names: Map<string, string>, children: Map<string, string>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return '[thinking]';
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use': {
      const child = children.has(block.id) ? `\n  → child run ${children.get(block.id)}` : '';
      return `[tool_use ${block.name}] ${JSON.stringify(block.input)}  (${block.id})${child}`;
    }
    case 'tool_result': {
      const name = names.get(block.tool_use_id);
      const head = `[tool_result${name ? ` ${name}` : ''}${block.is_error ? ' ERROR' : ''}] (${block.tool_use_id})`;
      const content = toolResultText(block.content);
      return content.includes('\n') ? `${head}\n${indent(content)}` : `${head} ${content}`;
    }
    default: {
      const server = serverToolText(block as unknown as { type: string } & Record<string, unknown>);
      if (server && block.type === 'server_tool_use') return `[server_tool_use] ${server}  (${block.id})`;
      if (server) return `[${block.type}] ${server}`;
      return `[${block.type}] ${oneLine(JSON.stringify(block), 300)}`;
    }
  }
}

/** tool_use id → tool name, so a result can say which tool it answers. */
function toolNames(messages: readonly MessageParam[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of blocksOf(m.content)) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}
