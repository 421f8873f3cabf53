// The four triage tools called directly: what the model reads, and errors instead of empty answers.
import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { triageTools } from '../../../examples/triage/tools/index.js';
import type { ToolContext } from '../../../src/tools/types.js';
import { freshStore, type StoreFixture } from './fixture.js';
import { toolContext } from '../../../src/tools/context.js';

/** A ToolError (by name: the example imports it from the built package, this test from the source). */
const isToolError = (e: unknown) => e instanceof Error && e.name === 'ToolError';

let fixture: StoreFixture;
afterEach(() => fixture?.remove());

function tools(options?: { lockTimeoutMs?: number }) {
  fixture = freshStore(options);
  const [search, get, label, comment] = triageTools(fixture.store);
  return { search, get, label, comment };
}

const ctx = (toolUseId = 'toolu_1'): ToolContext =>
  toolContext({
  workflowId: 'wf',
  toolUseId,
  idempotencyKey: `wf/${toolUseId}`,
  signal: new AbortController().signal,
  });

/** The numbers in search output, in order. */
const numbers = (output: string) => output.split('\n').map((line) => Number(/^#(\d+) \[(?:open|closed)\] \S/.exec(line)?.[1]));

describe('search_issues', () => {
  it('finds the older true duplicate with the words of a new issue title, ahead of near misses', async () => {
    const { search } = tools();
    const proxy = await search.execute({ query: 'Login times out behind our corporate proxy' }, ctx());
    expect(proxy.split('\n')[1]).toBe('#21 [open] Login request times out when an HTTP proxy is configured');
    const pdf = await search.execute({ query: 'Long code lines are cut off in exported PDFs' }, ctx());
    // #12 is the same bug; #28 (code blocks, PDF export, closed) is a near miss and ranks below it.
    expect(numbers(pdf).slice(0, 3)).toEqual([38, 12, 28]);
  });

  it('matches a word written together or apart ("login timeout" finds "Login ... times out")', async () => {
    const { search } = tools();
    expect(numbers(await search.execute({ query: 'login timeout' }, ctx())).slice(0, 2)).toEqual([39, 21]);
  });

  it('lists at most five hits, each "#<number> [<state>] <title>", and says so when nothing matches', async () => {
    const { search } = tools();
    const hits = await search.execute({ query: 'sync' }, ctx());
    expect(numbers(hits)).toHaveLength(5);
    expect(numbers(hits).every(Number.isInteger)).toBe(true);
    expect(await search.execute({ query: 'kubernetes helm chart' }, ctx())).toBe('No issue matches "kubernetes helm chart".');
  });
});

describe('get_issue', () => {
  it('shows title, state, labels, body and comments', async () => {
    const { get } = tools();
    const page = await get.execute({ number: 25 }, ctx());
    expect(page).toMatch(/^#25 \[closed\] Can't sign in from the office network\nopened 2026-06-14 by mei-l\nlabels: auth, duplicate\n/);
    expect(page).toContain('comments (1):\n- dana (maintainer), 2026-06-15: Duplicate of #21');
    expect(await get.execute({ number: 39 }, ctx())).toContain('labels: (none)');
  });

  it('an unknown number is an error result naming the issues that exist', async () => {
    const { get } = tools();
    const error = await get.execute({ number: 400 }, ctx()).catch((e: unknown) => e);
    expect(isToolError(error)).toBe(true);
    expect((error as Error).message).toBe('there is no issue #400 (issues run from #1 to #40)');
  });
});

describe('add_label and add_comment', () => {
  it('label and comment once per idempotency key; get_issue reads them back', async () => {
    const { get, label, comment } = tools();
    const labelled = await label.execute({ number: 39, label: 'duplicate' }, ctx('toolu_a'));
    expect(labelled).toBe('Added the label "duplicate" to #39; its labels: duplicate.');
    expect(await label.execute({ number: 39, label: 'duplicate' }, ctx('toolu_a'))).toBe(labelled);
    const commented = await comment.execute({ number: 39, body: 'Duplicate of #21' }, ctx('toolu_b'));
    expect(await comment.execute({ number: 39, body: 'Duplicate of #21' }, ctx('toolu_b'))).toBe(commented);
    expect(fixture.issue(39).labels).toEqual(['duplicate']);
    expect(fixture.issue(39).comments).toEqual([{ author: 'triage-bot', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), body: 'Duplicate of #21' }]);
    expect(await get.execute({ number: 39 }, ctx())).toMatch(/labels: duplicate\n[^]*comments \(1\):\n- triage-bot, [\d-]+: Duplicate of #21$/);
  });

  it('a label the project does not have is an error result listing the labels, and nothing is written', async () => {
    const { label } = tools();
    const error = await label.execute({ number: 39, label: 'dupe' }, ctx()).catch((e: unknown) => e);
    expect(isToolError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^"dupe" is not a label of this project; labels: bug, enhancement, question, duplicate, /);
    expect(fixture.data().effects).toEqual({});
    expect(fixture.issue(39).labels).toEqual([]);
  });
});

describe('a broken store is an error result, never an empty answer', () => {
  it.each([
    ['unreadable', (path: string) => writeFileSync(path, 'not json'), /^issue store unreadable: .*issues\.json is not valid JSON/],
    ['missing', (path: string) => rmSync(path), /^issue store missing: .*issues\.json does not exist/],
    [
      'locked',
      (path: string) => writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, since: 'now' })),
      /^issue store locked: .*issues\.json\.lock has been held by process \d+/,
    ],
  ])('%s: every tool answers with the cause', async (_, breakStore, cause) => {
    const { search, get, label, comment } = tools({ lockTimeoutMs: 100 });
    breakStore(fixture.path);
    const calls = [
      search.execute({ query: 'login timeout' }, ctx()),
      get.execute({ number: 39 }, ctx()),
      label.execute({ number: 39, label: 'duplicate' }, ctx()),
      comment.execute({ number: 39, body: 'Duplicate of #21' }, ctx()),
    ];
    for (const outcome of await Promise.allSettled(calls)) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(isToolError(reason)).toBe(true);
      expect(reason.message).toMatch(cause);
    }
  });
});
