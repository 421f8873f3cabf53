// @ts-check
// get_issue: one issue in full, with its labels and comments (so a triage can be read back).
import { defineTool, ToolError } from 'durable-agent';
import { findIssue, issuePage, rethrowForModel } from './shared.js';

/** @param {import('../store.js').IssueStore} store */
export function getIssue(store) {
  return defineTool({
    name: 'get_issue',
    description: 'Reads one issue in full: title, state, author, labels, body and comments.',
    inputSchema: {
      type: 'object',
      properties: { number: { type: 'integer', minimum: 1, description: 'The issue number, without "#"' } },
      required: ['number'],
      additionalProperties: false,
    },
    async execute({ number }) {
      const issue = await store.read((data) => findIssue(data.issues, number)).catch(rethrowForModel);
      if (typeof issue === 'string') throw new ToolError(issue);
      return issuePage(issue);
    },
  });
}
