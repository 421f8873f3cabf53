// @ts-check
// add_label: a side effect, applied once per tool call (see ../store.js applyOnce).
import { defineTool, ToolError } from 'durable-agent';
import { findIssue, rethrowForModel } from './shared.js';

/** @param {import('../store.js').IssueStore} store */
export function addLabel(store) {
  return defineTool({
    name: 'add_label',
    description: 'Adds a label to an issue. The label must be one of the project\'s labels (e.g. "duplicate", "bug").',
    inputSchema: {
      type: 'object',
      properties: {
        number: { type: 'integer', minimum: 1, description: 'The issue number, without "#"' },
        label: { type: 'string', minLength: 1 },
      },
      required: ['number', 'label'],
      additionalProperties: false,
    },
    async execute({ number, label }, { idempotencyKey }) {
      // The key is the same on every attempt of this call: a retry after the write finds the record and
      // answers with it, so the label is added once.
      return store
        .applyOnce(idempotencyKey, { tool: 'add_label', input: { number, label } }, (data) => {
          const issue = findIssue(data.issues, number);
          if (typeof issue === 'string') throw new ToolError(issue);
          if (!data.labels.includes(label)) {
            throw new ToolError(`"${label}" is not a label of this project; labels: ${data.labels.join(', ')}`);
          }
          if (issue.labels.includes(label)) return `#${number} already has the label "${label}".`;
          issue.labels.push(label);
          return `Added the label "${label}" to #${number}; its labels: ${issue.labels.join(', ')}.`;
        })
        .catch(rethrowForModel);
    },
  });
}
