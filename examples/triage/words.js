// @ts-check
// Words for matching issues: lower case, common words dropped, with a crude stem so "exported", "exports" and
// "export" match, and "times out" matches "timeout" (neighbouring words joined). Shared by search_issues and
// the scripted model's duplicate check. Deliberately simple: an example, not a search engine.

const STOP_WORDS = new Set(
  ('a an and are as at be but by can cannot do does doesn don for from has have i if in into is it its me my no ' +
    'not of on or our so that the their then there this to up was we were when where which while with you your')
    .split(' '),
);

/** @param {string} word */
function stem(word) {
  const stripped = word.replace(/(?:ing|ed|es|e|s)$/, '');
  return stripped.length >= 3 ? stripped : word;
}

/** @param {string} text */
const stemsOf = (text) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem);

/**
 * The content words of `text`: stems of the words that are not common words.
 * @param {string} text
 * @returns {Set<string>}
 */
export function contentWordsOf(text) {
  return new Set(stemsOf(text).filter((w) => !STOP_WORDS.has(w)));
}

/**
 * What a query word can match in `text`: its content words, and every pair of neighbouring words joined
 * ("log in" → "login", "times out" → "timout").
 * @param {string} text
 * @returns {Set<string>}
 */
export function indexWordsOf(text) {
  const stems = stemsOf(text);
  const words = new Set(stems.filter((w) => !STOP_WORDS.has(w)));
  for (let i = 0; i + 1 < stems.length; i++) words.add(stems[i] + stems[i + 1]);
  return words;
}

/**
 * Whether the query word `word` (already a stem) occurs in `index`: itself, or written as two words
 * ("timeout" matches "times out").
 * @param {string} word
 * @param {Set<string>} index
 */
export function matchesWord(word, index) {
  if (index.has(word)) return true;
  for (let cut = 2; cut <= word.length - 2; cut++) {
    if (index.has(stem(word.slice(0, cut)) + stem(word.slice(cut)))) return true;
  }
  return false;
}
