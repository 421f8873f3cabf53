// `answer`: a person answers an MCP server's question (an elicitation) that a run holds: accept with JSON fields
// (checked against the requested schema by the run, its defaults applied), decline, or cancel.
import { agentClient } from '../lazy-client.js';
import type { ElicitationReply } from '../../core/types.js';
import { UsageError, type FlagSpec } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { printText } from '../output.js';
import { withTemporal } from '../temporal.js';
import { noticeIfSlow, oneOrTwo, rejectionIsUsage, requireRunning, stoppableSteering } from './steer.js';

const USAGE = "answer <workflowId> [<elicitationId>] --json '{...}' | --decline | --cancel";

const ANSWER_FLAGS = {
  json: { type: 'string', help: 'accept, with these fields (a JSON object; fields left out get the schema defaults)' },
  decline: { type: 'boolean', help: 'decline the question' },
  cancel: { type: 'boolean', help: 'dismiss the question without an answer' },
} satisfies Record<string, FlagSpec>;

export const answer = defineCommand({
  usage: USAGE,
  description: `Answer a question an MCP server asked during a tool call (an elicitation): \`status\` shows it, its
message and requested schema. The elicitationId may be left out when only one question is waiting. The call goes on
with the answer; an answer that does not match the schema is refused and the question stays pending.`,
  flags: ANSWER_FLAGS,
  examples: [`answer nightly-report --json '{"approved": true}'`, 'answer nightly-report toolu_01A09q90qw90lq917835lq9/1 --decline'],
  run: async ({ flags, positionals }) => {
    const [workflowId, elicitationId] = oneOrTwo(positionals, USAGE, 'elicitationId');
    const reply = replyOf(flags, elicitationId);
    return stoppableSteering(workflowId, 'answer', () => withTemporal(async (temporal) => {
      const what = 'answer a question of';
      const queue = await requireRunning(temporal.client, workflowId, what);
      const { answerElicitation } = await agentClient();
      const ack = await rejectionIsUsage(() => noticeIfSlow(answerElicitation(temporal.client, workflowId, reply), queue), { client: temporal.client, workflowId, what });
      printText(`${ack.action === 'accept' ? `accepted ${JSON.stringify(ack.content ?? {})}` : `${ack.action}d`} for ${ack.elicitationId}\n`);
      return 0;
    }));
  },
});

function replyOf(flags: { json?: string; decline?: boolean; cancel?: boolean }, elicitationId: string | undefined): ElicitationReply {
  const chosen = [flags.json !== undefined, !!flags.decline, !!flags.cancel].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError(`give exactly one of --json '{...}', --decline, --cancel\nusage: ${USAGE}`);
  const id = elicitationId !== undefined ? { elicitationId } : {};
  if (flags.decline) return { ...id, action: 'decline' };
  if (flags.cancel) return { ...id, action: 'cancel' };
  let content: unknown;
  try {
    content = JSON.parse(flags.json!);
  } catch (err) {
    throw new UsageError(`--json is not valid JSON (${(err as Error).message}); write an object like '{"name": "Ada"}'`);
  }
  if (!content || typeof content !== 'object' || Array.isArray(content)) {
    throw new UsageError(`--json must be a JSON object of the question's fields, like '{"name": "Ada"}'`);
  }
  return { ...id, action: 'accept', content: content as Record<string, unknown> };
}
