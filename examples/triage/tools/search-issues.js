// @ts-check
// search_issues: the issues that best match a few words, best first.
import { defineTool, ToolError } from 'durable-agent';
import { contentWordsOf, indexWordsOf, matchesWord } from '../words.js';
import { issueLine, rethrowForModel } from './shared.js';

const MAX_HITS = 5;

/** @param {import('../store.js').IssueStore} store */
export function searchIssues(store) {
  // execute's input type is derived from inputSchema (and Ajv checks every call against the same schema).
  return defineTool({
    name: 'search_issues',
    description:
      'Searches the issue tracker (titles, bodies and comments, open and closed issues). Returns up to 5 ' +
      'matches, best first, one per line: "#<number> [<state>] <title>". Use a few distinctive words.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'A few words, e.g. "login timeout proxy"' } },
      required: ['query'],
      additionalProperties: false,
    },
    async execute({ query }) {
      const words = [...contentWordsOf(query)];
      if (words.length === 0) throw new ToolError(`the query "${query}" has no words to search for; use a few distinctive words`);
      const issues = await store.read((data) => data.issues).catch(rethrowForModel);
      // A word in the title counts three times a word found only in the body or comments.
      const ranked = issues
        .map((issue) => {
          const title = indexWordsOf(issue.title);
          const text = indexWordsOf(`${issue.body} ${issue.comments.map((c) => c.body).join(' ')}`);
          const score = words.reduce((sum, w) => sum + (matchesWord(w, title) ? 3 : matchesWord(w, text) ? 1 : 0), 0);
          return { issue, score };
        })
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || b.issue.number - a.issue.number)
        .slice(0, MAX_HITS);
      if (ranked.length === 0) return `No issue matches "${query}".`;
      return ranked.map((hit) => issueLine(hit.issue)).join('\n');
    },
  });
}
