// @ts-check
// The four triage tools, on one issue store.
import { addComment } from './add-comment.js';
import { addLabel } from './add-label.js';
import { getIssue } from './get-issue.js';
import { searchIssues } from './search-issues.js';

/**
 * @param {import('../store.js').IssueStore} store
 * @returns {[ReturnType<typeof searchIssues>, ReturnType<typeof getIssue>, ReturnType<typeof addLabel>, ReturnType<typeof addComment>]}
 */
export function triageTools(store) {
  return [searchIssues(store), getIssue(store), addLabel(store), addComment(store)];
}
