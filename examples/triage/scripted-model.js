// @ts-check
// The offline stand-in for Claude in the triage example: the replies of the scripted model (`--scripted`, or
// `run` without ANTHROPIC_API_KEY), as rules over the conversation so far. It plays the whole story of a triage:
//
//   get_issue(#n) → search_issues(its title) → get_issue(best older match) → add_label + add_comment
//   ("Duplicate of #m") → a summary
//
// and adapts as a model would: a match whose title is not close enough is skipped, an issue already labelled
// `duplicate` is left alone, a denied comment is reported, a broken store is searched with other words until
// the error-streak guard stops the run, and the summary call after a guard gets a partial answer.
// Replies depend only on the request (never on hidden state), so a retried request gets the same reply.
import { contentWordsOf } from './words.js';

const TOOLS = ['search_issues', 'get_issue', 'add_label', 'add_comment'];
/** How much of the new issue's title a match must share to be called a duplicate. */
const SAME_TITLE_SHARE = 0.5;
/** Matches read before concluding there is no duplicate. */
const MAX_CANDIDATES = 3;

/**
 * @typedef {{ type: string, [key: string]: any }} Block
 * @typedef {{ name: string, input: any, text: string, isError: boolean }} Exchange one tool call and its result
 * @typedef {import('durable-agent').ScriptTurn} Turn
 */

/** @type {import('durable-agent').Script} */
export const triageScript = (request) => {
  const task = textOf(blocksOf(request.messages[0]));
  const number = Number(/#\s*(\d+)/.exec(task)?.[1] ?? /\bissue\s+(\d+)/i.exec(task)?.[1] ?? NaN);
  const turns = exchangesByTurn(/** @type {any[]} */ (request.messages));
  const all = turns.flat();
  if (/** @type {any} */ (request).tool_choice?.type === 'none') return endTurn(partialAnswer(number, all));
  if (!Number.isInteger(number)) {
    return endTurn('This is the scripted triage model: tell me which issue to triage, e.g. "Triage issue #39".');
  }
  const offered = new Set((request.tools ?? []).map((t) => /** @type {any} */ (t).name));
  const missing = TOOLS.filter((name) => !offered.has(name));
  if (missing.length > 0) return endTurn(`Triage needs the tools ${TOOLS.join(', ')}; this run does not offer ${missing.join(', ')}.`);

  const last = turns.at(-1) ?? [];
  if (all.length === 0) return toolTurn(`I'll read issue #${number} first.`, [['get_issue', { number }]]);

  // A failing store: look for the issue with other words, as a model would, until a guard stops the run.
  const storeFailure = last.find((e) => e.isError && /^issue store/.test(e.text));
  if (storeFailure) {
    const attempt = all.filter((e) => e.isError).length;
    const query = [`issue ${number}`, `#${number}`, `${number}`, `triage ${number}`][(attempt - 1) % 4];
    return toolTurn(`That failed (${storeFailure.text}). Let me try searching instead.`, [['search_issues', { query }]]);
  }

  const target = all.find((e) => e.name === 'get_issue' && e.input.number === number && !e.isError);
  if (!target) {
    const failed = all.find((e) => e.name === 'get_issue' && e.input.number === number);
    return endTurn(`I could not read issue #${number}: ${failed?.text ?? 'no answer'}`);
  }
  const title = titleOf(target.text);
  if (/^labels:.*\bduplicate\b/m.test(target.text)) {
    return endTurn(`#${number} ("${title}") is already labelled duplicate: it has been triaged, so I left it as it is.`);
  }

  const effects = last.filter((e) => e.name === 'add_label' || e.name === 'add_comment');
  if (effects.length > 0) return endTurn(triageSummary(number, title, all, effects));

  const search = all.find((e) => e.name === 'search_issues' && !e.isError);
  if (!search) return toolTurn(`#${number} is "${title}". Let me look for earlier reports of it.`, [['search_issues', { query: title }]]);

  // Read the best older matches one by one; the first whose title is close enough is the original.
  const candidates = [...search.text.matchAll(/^#(\d+) \[(\w+)\] (.*)$/gm)]
    .map((m) => ({ number: Number(m[1]), title: m[3] }))
    .filter((c) => c.number < number)
    .slice(0, MAX_CANDIDATES);
  const read = all.filter((e) => e.name === 'get_issue' && e.input.number !== number);
  const original = read.find((e) => !e.isError && sharedTitleWords(title, titleOf(e.text)) >= SAME_TITLE_SHARE);
  if (original) {
    const m = original.input.number;
    return toolTurn(`#${m} ("${titleOf(original.text)}") reports the same problem. I'll mark #${number} as its duplicate.`, [
      ['add_label', { number, label: 'duplicate' }],
      ['add_comment', { number, body: `Duplicate of #${m}` }],
    ]);
  }
  const next = candidates.find((c) => !read.some((e) => e.input.number === c.number));
  if (next) {
    const why = read.length === 0 ? `#${next.number} looks closest.` : `#${read.at(-1)?.input.number} is a different problem. Next: #${next.number}.`;
    return toolTurn(`${why} Let me read it.`, [['get_issue', { number: next.number }]]);
  }
  return endTurn(
    `#${number} ("${title}") does not duplicate an earlier issue: ${
      candidates.length === 0 ? 'no older issue matches its title' : `the closest, ${candidates.map((c) => `#${c.number}`).join(', ')}, report other problems`
    }. I left it for a maintainer to label.`,
  );
};

/** @param {number} number @param {string} title @param {Exchange[]} all @param {Exchange[]} effects */
function triageSummary(number, title, all, effects) {
  const comment = effects.find((e) => e.name === 'add_comment');
  const label = effects.find((e) => e.name === 'add_label');
  const m = /#(\d+)/.exec(comment?.input.body ?? '')?.[1];
  const original = all.find((e) => e.name === 'get_issue' && String(e.input.number) === m);
  const lines = [`Issue #${number} ("${title}") is a duplicate of #${m} ("${original ? titleOf(original.text) : '?'}").`];
  lines.push(label && !label.isError ? `I labelled #${number} "duplicate".` : `I could not label it: ${label?.text}.`);
  if (comment && !comment.isError) {
    lines.push(`I commented "${comment.input.body}" on #${number}.`);
  } else {
    lines.push(
      `The comment "${comment?.input.body}" was not posted: ${comment?.text}. ` +
        `So the reporter is not told yet; a maintainer may want to point them to #${m} in their own words.`,
    );
  }
  return lines.join(' ');
}

/** The answer of the summary call a guard asks for: what was done, and what stopped the work. */
/** @param {number} number @param {Exchange[]} all */
function partialAnswer(number, all) {
  const errors = all.filter((e) => e.isError);
  const done = all.filter((e) => !e.isError && (e.name === 'add_label' || e.name === 'add_comment'));
  return [
    `Partial answer: I could not finish triaging issue #${number}.`,
    errors.length > 0 ? `The last of ${errors.length} failed tool calls said: ${errors.at(-1)?.text}.` : '',
    done.length > 0 ? `Done so far: ${done.map((e) => e.text).join(' ')}` : 'Nothing was labelled or commented.',
  ]
    .filter(Boolean)
    .join(' ');
}

// ---- reading the request ----

/** @param {any} message @returns {Block[]} */
function blocksOf(message) {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** @param {Block[]} blocks */
function textOf(blocks) {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** Each turn's tool calls with their results, oldest first. @param {any[]} messages @returns {Exchange[][]} */
function exchangesByTurn(messages) {
  const turns = [];
  for (let i = 1; i + 1 < messages.length; i += 2) {
    const calls = blocksOf(messages[i]).filter((b) => b.type === 'tool_use');
    const results = blocksOf(messages[i + 1]).filter((b) => b.type === 'tool_result');
    turns.push(
      calls.map((call) => {
        const result = results.find((r) => r.tool_use_id === call.id);
        const text = typeof result?.content === 'string' ? result.content : textOf(result?.content ?? []);
        return { name: call.name, input: call.input ?? {}, text, isError: result?.is_error === true };
      }),
    );
  }
  return turns;
}

/** The title on the first line of a get_issue page ("#21 [open] <title>"). @param {string} page */
function titleOf(page) {
  return /^#\d+ \[\w+\] (.*)$/m.exec(page)?.[1] ?? '';
}

/** The share of `title`'s content words that `other` has too. @param {string} title @param {string} other */
function sharedTitleWords(title, other) {
  const words = contentWordsOf(title);
  const theirs = contentWordsOf(other);
  return words.size === 0 ? 0 : [...words].filter((w) => theirs.has(w)).length / words.size;
}

// ---- replies ----

/** @param {string} say @param {Array<[string, object]>} calls @returns {Turn} */
function toolTurn(say, calls) {
  return {
    content: [
      { type: 'text', text: say },
      ...calls.map(([name, input]) => /** @type {const} */ ({ type: 'tool_use', name, input })),
    ],
    stop_reason: 'tool_use',
  };
}

/** @param {string} text @returns {Turn} */
function endTurn(text) {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}
