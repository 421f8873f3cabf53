// @ts-check
// What the four tools share: how issues read to the model (one line per search hit, a full page per issue),
// finding an issue by number, and turning store failures into error results.
import { ToolError } from 'durable-agent';
import { StoreError } from '../store.js';

/** @typedef {import('../store.js').Issue} Issue */

/** `#21 [open] Login request times out when an HTTP proxy is configured` @param {Issue} issue */
export function issueLine(issue) {
  return `#${issue.number} [${issue.state}] ${issue.title}`;
}

/** The whole issue: title, state, labels, body, comments. @param {Issue} issue */
export function issuePage(issue) {
  const lines = [
    issueLine(issue),
    `opened ${issue.createdAt} by ${issue.author}`,
    `labels: ${issue.labels.length > 0 ? issue.labels.join(', ') : '(none)'}`,
    '',
    issue.body,
    '',
    issue.comments.length > 0 ? `comments (${issue.comments.length}):` : 'comments: none',
    ...issue.comments.map((c) => `- ${c.author}, ${c.createdAt}: ${c.body}`),
  ];
  return lines.join('\n');
}

/**
 * The issue numbered `number`, or a ToolError-worthy message naming the range that exists.
 * @param {Issue[]} issues @param {number} number
 * @returns {Issue | string}
 */
export function findIssue(issues, number) {
  const issue = issues.find((i) => i.number === number);
  if (issue) return issue;
  const numbers = issues.map((i) => i.number);
  return `there is no issue #${number} (issues run from #${Math.min(...numbers)} to #${Math.max(...numbers)})`;
}

/**
 * A store that cannot be read is the model's business (it should stop and say so), not a retry: report the
 * cause as an error result, never an empty answer that reads as "nothing found".
 * @param {unknown} err
 * @returns {never}
 */
export function rethrowForModel(err) {
  if (err instanceof StoreError) throw new ToolError(err.message);
  throw err;
}
