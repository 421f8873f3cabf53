// The built-in offline demo: a rule-based script for the seed task ("Search for the population of France and
// calculate what 15% of that number is"), plus loading user scripts from JSON files (AGENT_SCRIPT).
// Rules read the request (the task, the last tool_result), never hidden state, so any replay or retry of a request
// gets the same answer.
import { readFile } from 'node:fs/promises';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { mockSearch } from '../tools/web-search.js';
import { blocksOf } from './conformance.js';
import {
  reply,
  serverToolUse,
  text,
  toolUse,
  validateScriptTurns,
  webSearchResult,
  type MessagesRequestBody,
  type ReplyTurn,
  type ScriptFunction,
  type ScriptTurn,
} from './script.js';

type Block = Record<string, unknown>;

function textOf(blocks: Block[]): string {
  return blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** The text of a tool_result block (string content, or its text blocks). */
function toolResultText(block: Block): string {
  return typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? textOf(block.content as Block[]) : '';
}

const MULTIPLIERS: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9 };

/** The first number ≥ 100,000 in `s`: "68,606,000", "68 606 000", "68.606.000", "68606000" or "68.6 million".
 * Small numbers (years like 2024, percentages) are skipped. */
export function firstLargeNumber(s: string): number | null {
  const pattern = /(\d{1,3}(?:([,.\u00a0\u202f ])\d{3})(?:\2\d{3})*|\d+(?:\.\d+)?)(?:\s*(thousand|million|billion)\b)?/gi;
  for (const m of s.matchAll(pattern)) {
    const [, digits, separator, word] = m;
    // A single ".ddd" group is a decimal point ("68.606 million"), not a thousands separator.
    const decimalPoint = separator === '.' && digits.split('.').length === 2;
    let value = separator && !decimalPoint ? Number(digits.split(separator).join('')) : Number(digits);
    if (word) value *= MULTIPLIERS[word.toLowerCase()];
    if (Number.isFinite(value) && value >= 100_000) return Math.round(value);
  }
  return null;
}

/** The first number of any size in `s` (a calculator result such as "10290900" or "10,290,900.0"). */
function firstNumber(s: string): number | null {
  const m = /-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(s);
  return m ? Number(m[0].replace(/,/g, '')) : null;
}

const format = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const DEMO_TASK = 'Search for the population of France and calculate what 15% of that number is';

function endTurn(message: string): ReplyTurn {
  return reply([text(message)], 'end_turn');
}

/** The last tool call of the conversation and the result sent for it. */
function lastToolExchange(messages: MessageParam[]): { name: string; input: Block; result: Block } | null {
  for (let i = messages.length - 1; i > 0; i--) {
    if (messages[i].role !== 'user') continue;
    const results = blocksOf(messages[i].content).filter((b) => b.type === 'tool_result');
    const result = results[results.length - 1];
    if (!result) continue;
    const call = blocksOf(messages[i - 1].content).find((b) => b.type === 'tool_use' && b.id === result.tool_use_id);
    if (call) return { name: call.name as string, input: (call.input ?? {}) as Block, result };
  }
  return null;
}

/** Rule-based replies for the France demo: search, then calculate 15%, then answer. */
export const franceDemoScript: ScriptFunction = (request: MessagesRequestBody): ScriptTurn => {
  const task = textOf(blocksOf(request.messages[0].content));
  if (!/france/i.test(task) || !/population/i.test(task)) {
    return endTurn(
      `This is the offline scripted model: it only knows the France demo task ("${DEMO_TASK}"). ` +
        'To script other conversations, set AGENT_SCRIPT to a JSON file holding an array of turns ' +
        '({"content":[...],"stop_reason":"..."}), or run against Claude with an API key.',
    );
  }
  const tools = new Set((request.tools ?? []).map((t) => (t as { name?: string }).name));
  const missing = ['web_search', 'calculator'].filter((name) => !tools.has(name));
  if (missing.length > 0) {
    return endTurn(`The France demo needs the tools web_search and calculator; this run does not offer ${missing.join(' and ')}.`);
  }
  // `--server-tools web_search`: Claude's own web search, which runs inside the response.
  const serverSearch = (request.tools ?? []).some((t) => String((t as { type?: unknown }).type ?? '').startsWith('web_search_'));

  const last = lastToolExchange(request.messages);
  if (!last && serverSearch) return searchOnTheServer();
  if (!last) {
    return reply([text("I'll look up the current population of France first."), toolUse('web_search', { query: 'population of France' })]);
  }
  const resultText = toolResultText(last.result);
  if (last.result.is_error === true) return endTurn(`The ${last.name} tool failed, so I cannot finish: ${resultText}`);

  if (last.name === 'web_search') {
    const population = firstLargeNumber(resultText);
    if (population === null) return endTurn('The search results did not contain a population figure for France.');
    return reply([
      text(`The search says France has about ${format(population)} people. Now I'll calculate 15% of that.`),
      toolUse('calculator', { expression: `${population} * 0.15` }),
    ]);
  }
  if (last.name === 'calculator') {
    const population = firstNumber(String(last.input.expression ?? ''));
    const result = firstNumber(resultText);
    const share = result === null ? resultText.trim() : format(result);
    const people = population === null ? 'France' : `France has about ${format(population)} people; `;
    return endTurn(population === null ? `15% of the population of France is ${share}.` : `${people}15% of that is ${share}.`);
  }
  return endTurn(`The France demo does not use the tool ${last.name}.`);
};

/** With the web_search server tool, the search and its results arrive in the same reply as the next step, the
 * calculator call (as the real API returns them). The figure is the offline stub's. */
function searchOnTheServer(): ScriptTurn {
  const query = 'population of France';
  const population = firstLargeNumber(mockSearch(query));
  return reply([
    text("I'll look up the current population of France first."),
    serverToolUse('web_search', { query }),
    webSearchResult([
      { url: 'https://www.insee.fr/en/statistiques/population-france', title: 'Population of France (INSEE)', page_age: 'January 2025' },
    ]),
    text(`The search says France has about ${format(population ?? 0)} people. Now I'll calculate 15% of that.`),
    toolUse('calculator', { expression: `${population} * 0.15` }),
  ]);
}

/** Reads a JSON script file (an array of ScriptTurn); errors name the file and the first bad turn. */
export async function loadScriptFile(path: string): Promise<ScriptTurn[]> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`${path}: cannot read the script file: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  return validateScriptTurns(parsed, path);
}
