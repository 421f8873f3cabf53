// @ts-check
// The triage example's issue tracker: one JSON file, read whole and written whole.
//
// - Every write goes to a temporary file that is then renamed over the store, so a reader (or a worker killed
//   mid-write) never sees half a file.
// - Every access holds a lock file (`<store>.lock`, created exclusively, holding the owner's pid), so two workers
//   never lose each other's updates. A lock whose process is gone is taken over; a lock held by a live process
//   for longer than `lockTimeoutMs` is reported, never waited on forever.
// - Effects (a label, a comment) are recorded under the tool call's idempotency key in the same write as the
//   effect itself: a retried call finds its own record and answers with it instead of acting twice.
// - Failures are errors with the cause in the message ("issue store unreadable: ..."), never an empty answer.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, copyFileSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The seed: a made-up project's issues. Never written: the default store is a copy of it. */
export const SEED_FILE = fileURLToPath(new URL('./seed-issues.json', import.meta.url));
/** Where the default store lives, relative to the working directory (next to the embedded server's data). */
export const DEFAULT_STORE = '.durable-agent/triage/issues.json';

/**
 * @typedef {{ author: string, createdAt: string, body: string }} Comment
 * @typedef {{ number: number, title: string, state: 'open' | 'closed', author: string, createdAt: string,
 *   labels: string[], body: string, comments: Comment[] }} Issue
 * @typedef {{ tool: string, input: unknown, answer: string, at: string }} EffectRecord
 * @typedef {{ project: string, labels: string[], issues: Issue[], effects: Record<string, EffectRecord> }} StoreData
 */

/** A store failure the model should be told about (missing, unreadable, locked). */
export class StoreError extends Error {
  /** @override */
  name = 'StoreError';
}

/**
 * The store the example's config uses: `$TRIAGE_STORE` when set (it must exist: a missing file is an error,
 * not a fresh empty tracker), else `.durable-agent/triage/issues.json`, copied from the seed on first use.
 * Resolved on each call, so the environment of the process running the tool decides.
 * @returns {IssueStore}
 */
export function issueStoreFromEnv() {
  return new IssueStore(() => {
    const fromEnv = process.env.TRIAGE_STORE;
    if (fromEnv) return resolve(fromEnv);
    const path = resolve(DEFAULT_STORE);
    ensureSeeded(path);
    return path;
  });
}

/** Copies the seed to `path` unless a store is already there (exclusive copy: never overwrites one).
 * @param {string} path */
export function ensureSeeded(path) {
  mkdirSync(dirname(path), { recursive: true });
  try {
    copyFileSync(SEED_FILE, path, constants.COPYFILE_EXCL);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
  }
}

export class IssueStore {
  /**
   * @param {string | (() => string)} path the store file, or a function resolving it at each access
   * @param {{ lockTimeoutMs?: number }} [options]
   */
  constructor(path, options = {}) {
    this.resolvePath = typeof path === 'string' ? () => path : path;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 2_000;
  }

  /** @returns {string} */
  get path() {
    return this.resolvePath();
  }

  /**
   * Reads the store under the lock.
   * @template T
   * @param {(data: StoreData) => T} fn
   * @returns {Promise<T>}
   */
  async read(fn) {
    const path = this.path;
    return this.#locked(path, () => fn(readStore(path)));
  }

  /**
   * Applies an effect exactly once per idempotency key: under the lock, a key already recorded returns the
   * recorded answer; otherwise `apply` changes `data` and returns the answer, and the change and its record
   * are written in one atomic rename. `apply` throwing writes nothing.
   * @param {string} idempotencyKey
   * @param {{ tool: string, input: unknown }} call
   * @param {(data: StoreData) => string} apply
   * @returns {Promise<string>}
   */
  async applyOnce(idempotencyKey, call, apply) {
    const path = this.path;
    return this.#locked(path, () => {
      const data = readStore(path);
      const done = data.effects[idempotencyKey];
      if (done) {
        // The same key with other input is a bug in the caller (keys are per tool call), not a retry.
        if (done.tool !== call.tool || JSON.stringify(done.input) !== JSON.stringify(call.input)) {
          throw new StoreError(`idempotency key ${idempotencyKey} was already used by ${done.tool} with other input`);
        }
        return done.answer;
      }
      const answer = apply(data);
      data.effects[idempotencyKey] = { tool: call.tool, input: call.input, answer, at: new Date().toISOString() };
      writeAtomically(path, `${JSON.stringify(data, null, 2)}\n`);
      return answer;
    });
  }

  /**
   * @template T
   * @param {string} path
   * @param {() => T} fn
   * @returns {Promise<T>}
   */
  async #locked(path, fn) {
    const lock = `${path}.lock`;
    await acquireLock(lock, this.lockTimeoutMs);
    try {
      return fn();
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        // Already gone: a process that judged it stale took it over; nothing of ours to release.
      }
    }
  }
}

/** @param {string} path @returns {StoreData} */
function readStore(path) {
  let raw;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    if (e.code === 'ENOENT') {
      throw new StoreError(`issue store missing: ${path} does not exist (set TRIAGE_STORE to an existing store, or unset it to use a copy of the seed)`);
    }
    throw new StoreError(`issue store unreadable: ${path}: ${e.message}`);
  }
  /** @type {any} */
  let data;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    throw new StoreError(`issue store unreadable: ${path} is not valid JSON (${/** @type {Error} */ (err).message})`);
  }
  if (!data || !Array.isArray(data.issues) || !Array.isArray(data.labels)) {
    throw new StoreError(`issue store unreadable: ${path} has no "issues" and "labels" arrays`);
  }
  data.effects ??= {};
  return data;
}

/** Writes `text` to a temporary file beside `path`, flushes it, and renames it over `path`.
 * @param {string} path @param {string} text */
function writeAtomically(path, text) {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself is durable once the directory is flushed.
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** @param {string} lock @param {number} timeoutMs */
async function acquireLock(lock, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(lock, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: 'wx' });
      return;
    } catch (err) {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      if (code === 'ENOENT') throw new StoreError(`issue store missing: the folder of ${lock} does not exist`);
      if (code !== 'EEXIST') throw new StoreError(`issue store unreadable: cannot create the lock ${lock}: ${/** @type {Error} */ (err).message}`);
    }
    const holder = readLockHolder(lock);
    if (holder && !isAlive(holder.pid)) {
      takeOverStaleLock(lock, holder.raw);
      continue;
    }
    if (Date.now() >= until) {
      const who = holder ? `process ${holder.pid} since ${holder.since}` : 'another process';
      throw new StoreError(`issue store locked: ${lock} has been held by ${who} for over ${timeoutMs} ms (remove the file if that process is stuck)`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** @param {string} lock @returns {{ pid: number, since: string, raw: string } | null} */
function readLockHolder(lock) {
  try {
    const raw = readFileSync(lock, 'utf8');
    const { pid, since } = JSON.parse(raw);
    return Number.isInteger(pid) ? { pid, since: String(since), raw } : null;
  } catch {
    return null; // released meanwhile, or being written: look again on the next round
  }
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * Removes a lock left by a dead process. Renamed aside first and checked, so two processes that both saw it
 * stale cannot remove each other's fresh lock: the loser finds a different file and puts it back.
 * @param {string} lock @param {string} staleContent
 */
function takeOverStaleLock(lock, staleContent) {
  const aside = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // someone else moved it first
  }
  if (readFileSync(aside, 'utf8') === staleContent) {
    unlinkSync(aside);
  } else {
    try {
      // Not the stale lock we judged: a fresh one. Give it back unless a newer lock exists meanwhile.
      writeFileSync(lock, readFileSync(aside, 'utf8'), { flag: 'wx' });
    } catch {
      // a newer lock exists; the one we moved belongs to a process that will find its lock gone and move on
    }
    unlinkSync(aside);
  }
}
