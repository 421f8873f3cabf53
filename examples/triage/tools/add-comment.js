// @ts-check
// add_comment: a side effect, applied once per tool call (see ../store.js applyOnce).
import { defineTool, ToolError } from 'durable-agent';
import { findIssue, rethrowForModel } from './shared.js';

/** Who the bot's comments are from. */
export const BOT_AUTHOR = 'triage-bot';

/** @param {import('../store.js').IssueStore} store */
export function addComment(store) {
  return defineTool({
    name: 'add_comment',
    description:
      'Posts a comment on an issue, as the triage bot. Everyone watching the issue is notified. To mark an ' +
      'issue as a duplicate, comment exactly "Duplicate of #<number of the original issue>".',
    inputSchema: {
      type: 'object',
      properties: {
        number: { type: 'integer', minimum: 1, description: 'The issue number, without "#"' },
        body: { type: 'string', minLength: 1, maxLength: 5000 },
      },
      required: ['number', 'body'],
      additionalProperties: false,
    },
    async execute({ number, body }, { idempotencyKey }) {
      return store
        .applyOnce(idempotencyKey, { tool: 'add_comment', input: { number, body } }, (data) => {
          const issue = findIssue(data.issues, number);
          if (typeof issue === 'string') throw new ToolError(issue);
          issue.comments.push({ author: BOT_AUTHOR, createdAt: new Date().toISOString().slice(0, 10), body });
          return `Commented on #${number} (comment ${issue.comments.length}).`;
        })
        .catch(rethrowForModel);
    },
  });
}
