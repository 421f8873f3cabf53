// A fresh copy of the triage seed per test, and ways to read it back.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssueStore, SEED_FILE, type StoreData } from '../../../examples/triage/store.js';

export interface StoreFixture {
  dir: string;
  path: string;
  store: IssueStore;
  /** The store file as it is on disk now. */
  data(): StoreData;
  issue(number: number): StoreData['issues'][number];
  remove(): void;
}

export function freshStore(options: { lockTimeoutMs?: number } = {}): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'triage-'));
  const path = join(dir, 'issues.json');
  copyFileSync(SEED_FILE, path);
  const data = () => JSON.parse(readFileSync(path, 'utf8')) as StoreData;
  return {
    dir,
    path,
    store: new IssueStore(path, options),
    data,
    issue: (number) => data().issues.find((i) => i.number === number)!,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
