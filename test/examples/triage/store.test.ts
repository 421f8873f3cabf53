// The triage example's issue store: a seed copied on first use, atomic writes under a lock, effects recorded
// once per idempotency key, and failures that name their cause.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_STORE, issueStoreFromEnv, IssueStore, SEED_FILE, StoreError } from '../../../examples/triage/store.js';
import { freshStore, type StoreFixture } from './fixture.js';

const STORE_MODULE = fileURLToPath(new URL('../../../examples/triage/store.js', import.meta.url));
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let fixture: StoreFixture | undefined;
afterEach(() => fixture?.remove());

const addComment = (key: string, body: string) => (s: IssueStore) =>
  s.applyOnce(key, { tool: 'add_comment', input: { number: 39, body } }, (data) => {
    data.issues.find((i) => i.number === 39)!.comments.push({ author: 'test', createdAt: '2026-12-01', body });
    return `commented ${body}`;
  });

describe('the default store', () => {
  it('is a copy of the seed made on first use in .durable-agent/, and writing to it never changes the seed', async () => {
    const seedBefore = sha(SEED_FILE);
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'triage-cwd-'));
    const saved = process.env.TRIAGE_STORE;
    delete process.env.TRIAGE_STORE;
    try {
      process.chdir(dir);
      const store = issueStoreFromEnv();
      expect(existsSync(DEFAULT_STORE)).toBe(false); // nothing happens before the first use
      expect(await addComment('wf/toolu_1', 'hello')(store)).toBe('commented hello');
      const copy = JSON.parse(readFileSync(join(dir, DEFAULT_STORE), 'utf8'));
      expect(copy.issues.find((i: { number: number }) => i.number === 39).comments).toHaveLength(1);
      // A second store object finds the copy and keeps it (the copy is made once, never over an existing store).
      expect(await issueStoreFromEnv().read((d) => d.issues.find((i) => i.number === 39)!.comments.length)).toBe(1);
    } finally {
      process.chdir(cwd);
      if (saved !== undefined) process.env.TRIAGE_STORE = saved;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(sha(SEED_FILE)).toBe(seedBefore);
  });

  it('TRIAGE_STORE names the store; a missing one is an error naming the path, and is not created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'triage-env-'));
    const saved = process.env.TRIAGE_STORE;
    process.env.TRIAGE_STORE = join(dir, 'nope.json');
    try {
      const error = await issueStoreFromEnv().read((d) => d.issues).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toBe(
        `issue store missing: ${join(dir, 'nope.json')} does not exist (set TRIAGE_STORE to an existing store, or unset it to use a copy of the seed)`,
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TRIAGE_STORE;
      else process.env.TRIAGE_STORE = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('applyOnce', () => {
  it('applies an effect once per idempotency key and answers a repeat with the recorded answer', async () => {
    fixture = freshStore();
    const first = await addComment('wf/toolu_1', 'Duplicate of #21')(fixture.store);
    const again = await addComment('wf/toolu_1', 'Duplicate of #21')(fixture.store);
    expect(again).toBe(first);
    expect(fixture.issue(39).comments.map((c) => c.body)).toEqual(['Duplicate of #21']);
    expect(fixture.data().effects['wf/toolu_1']).toMatchObject({ tool: 'add_comment', input: { number: 39, body: 'Duplicate of #21' }, answer: first });
    // Another key is another effect.
    await addComment('wf/toolu_2', 'Duplicate of #21')(fixture.store);
    expect(fixture.issue(39).comments).toHaveLength(2);
  });

  it('refuses a key reused with other input instead of answering for a different effect', async () => {
    fixture = freshStore();
    await addComment('wf/toolu_1', 'one')(fixture.store);
    await expect(addComment('wf/toolu_1', 'two')(fixture.store)).rejects.toThrow(
      'idempotency key wf/toolu_1 was already used by add_comment with other input',
    );
    expect(fixture.issue(39).comments.map((c) => c.body)).toEqual(['one']);
  });

  it('writes nothing when the effect throws, and leaves no temporary file or lock behind', async () => {
    fixture = freshStore();
    const before = readFileSync(fixture.path, 'utf8');
    await expect(
      fixture.store.applyOnce('k', { tool: 't', input: {} }, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await addComment('k2', 'ok')(fixture.store);
    expect(readFileSync(fixture.path, 'utf8')).not.toBe(before);
    expect(readdirSync(fixture.dir)).toEqual(['issues.json']);
  });

  it('loses no update when several processes write at once (the lock serialises them)', async () => {
    fixture = freshStore();
    const PROCESSES = 4;
    const WRITES = 10;
    const writer = (p: number) => `
      import { IssueStore } from ${JSON.stringify(STORE_MODULE)};
      const store = new IssueStore(${JSON.stringify(fixture!.path)}, { lockTimeoutMs: 20000 });
      for (let i = 0; i < ${WRITES}; i++) {
        await store.applyOnce('p${p}/' + i, { tool: 'add_comment', input: i }, (data) => {
          data.issues.find((x) => x.number === 39).comments.push({ author: 'p${p}', createdAt: '', body: String(i) });
          return 'ok';
        });
      }`;
    const exits = await Promise.all(
      Array.from({ length: PROCESSES }, (_, p) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', writer(p)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (b: Buffer) => (stderr += b));
        return new Promise<string>((resolve) => child.on('exit', (code) => resolve(`${code} ${stderr}`)));
      }),
    );
    expect(exits).toEqual(Array(PROCESSES).fill('0 '));
    const comments = fixture.issue(39).comments;
    expect(comments).toHaveLength(PROCESSES * WRITES);
    expect(Object.keys(fixture.data().effects)).toHaveLength(PROCESSES * WRITES);
    for (let p = 0; p < PROCESSES; p++) {
      expect(comments.filter((c) => c.author === `p${p}`).map((c) => c.body)).toEqual(Array.from({ length: WRITES }, (_, i) => String(i)));
    }
  });
});

describe('store failures are errors that name the cause', () => {
  it('a store that is not valid JSON is "issue store unreadable"', async () => {
    fixture = freshStore();
    writeFileSync(fixture.path, '{"issues": [');
    await expect(fixture.store.read((d) => d.issues)).rejects.toThrow(
      new StoreError(`issue store unreadable: ${fixture.path} is not valid JSON (Unexpected end of JSON input)`),
    );
  });

  it('a store without issues is "issue store unreadable", not an empty tracker', async () => {
    fixture = freshStore();
    writeFileSync(fixture.path, '{}');
    await expect(fixture.store.read((d) => d.issues)).rejects.toThrow(`issue store unreadable: ${fixture.path} has no "issues" and "labels" arrays`);
  });

  it('a lock held by a live process for longer than the timeout is "issue store locked", naming the holder', async () => {
    fixture = freshStore({ lockTimeoutMs: 200 });
    writeFileSync(`${fixture.path}.lock`, JSON.stringify({ pid: process.pid, since: '2026-12-01T00:00:00.000Z' }));
    const started = Date.now();
    await expect(fixture.store.read((d) => d.issues)).rejects.toThrow(
      `issue store locked: ${fixture.path}.lock has been held by process ${process.pid} since 2026-12-01T00:00:00.000Z for over 200 ms`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(existsSync(`${fixture.path}.lock`)).toBe(true); // a live holder's lock is never taken
  });

  it('a lock left by a process that is gone is taken over', async () => {
    fixture = freshStore({ lockTimeoutMs: 200 });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(`${fixture.path}.lock`, JSON.stringify({ pid: Number(dead.stdout), since: '2026-12-01T00:00:00.000Z' }));
    expect(await addComment('k', 'after a crash')(fixture.store)).toBe('commented after a crash');
    expect(existsSync(`${fixture.path}.lock`)).toBe(false);
  });
});
