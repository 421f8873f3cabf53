// A stand-in for a real search API, so the agent loop can be exercised without network access or keys.
// Answers come from a fixed table and never depend on time or randomness: a workflow replayed or retried
// sees the same text. The URLs are fake on purpose and say so.
import { defineTool, ToolError } from './types.js';

interface MockResult {
  title: string;
  url: string;
  snippet: string;
}

interface CannedEntry {
  /** Every keyword must occur in the query (case-insensitive, whole words) for the entry to match. */
  keywords: string[];
  topic: string;
  results: MockResult[];
}

const CANNED: CannedEntry[] = [
  {
    keywords: ['population', 'france'],
    topic: 'population of France',
    results: [
      {
        title: 'France population (INSEE, January 2025 estimate)',
        url: 'https://example.com/mock/insee-population-2025',
        snippet:
          'France population (INSEE, January 2025 estimate): 68,606,000 inhabitants on 1 January 2025, ' +
          'including the overseas departments.',
      },
      {
        title: 'Population of France: overview',
        url: 'https://example.com/mock/france-population-overview',
        snippet:
          'France is the second most populous country of the European Union, after Germany. Figures usually ' +
          'include the five overseas departments; metropolitan France alone is somewhat smaller.',
      },
    ],
  },
  {
    keywords: ['capital', 'france'],
    topic: 'capital of France',
    results: [
      {
        title: 'Paris, capital of France',
        url: 'https://example.com/mock/paris',
        snippet: 'Paris is the capital and largest city of France.',
      },
    ],
  },
  {
    keywords: ['temporal'],
    topic: 'Temporal',
    results: [
      {
        title: 'Temporal: durable execution',
        url: 'https://example.com/mock/temporal-durable-execution',
        snippet:
          'Temporal runs workflows as durable code: their event history is persisted, so a workflow resumes ' +
          'after a crash by replaying that history, and failed activities are retried.',
      },
    ],
  },
];

function formatResults(query: string, results: MockResult[]): string {
  const header = `Mock search results for "${query}" (stub: canned data, not live web results)`;
  const items = results.map(
    (r, i) => `${i + 1}. ${r.title}\n   URL: ${r.url} (fake URL)\n   ${r.snippet}`,
  );
  return [header, '', ...items].join('\n');
}

/** The stub's answer for a query; pure, so the same query always yields the same text. */
export function mockSearch(query: string): string {
  const trimmed = query.trim();
  if (trimmed === '') throw new ToolError('The query is empty: pass the words to search for.');
  const words = new Set(trimmed.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));
  const hits = CANNED.filter((entry) => entry.keywords.every((k) => words.has(k))).flatMap((entry) => entry.results);
  if (hits.length > 0) return formatResults(trimmed, hits);
  // Never an empty answer: an empty string would look like a silent failure to the model.
  return formatResults(trimmed, [
    {
      title: 'No canned result for this query',
      url: 'https://example.com/mock/no-results',
      snippet:
        `This web_search tool is a stub with no real results for "${trimmed}". ` +
        `It only knows these topics: ${CANNED.map((e) => e.topic).join('; ')}.`,
    },
  ]);
}

export const webSearch = defineTool<{ query: string }>({
  name: 'web_search',
  readOnly: true,
  description:
    'STUB for testing and teaching: returns canned, deterministic mock results, not live web results, and ' +
    'makes no network request. It knows only a few topics (e.g. the population of France); for anything ' +
    'else it says it has no results. URLs in its results are fake.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to search for, e.g. "population of France".' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  async execute({ query }) {
    return mockSearch(query);
  },
});
