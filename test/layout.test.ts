// The shape of src/ that issue 40 set for 1.0: entry files alone at its root, no import cycle (type-only imports
// included), and the Temporal SDK's internal files reached from one file only (src/workflows/sdk-internals.cjs).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles } from '../scripts/import-cycles.mjs';

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

describe('the layout of src/', () => {
  it('has no import cycle', () => {
    expect(importCycles('src')).toEqual([]);
  });

  it("reaches into the Temporal SDK's internal files (@temporalio/*/lib/...) from one file only", () => {
    const reaching = walk('src').filter((f) => /@temporalio\/[a-z-]+\/lib\//.test(readFileSync(f, 'utf8')));
    expect(reaching).toEqual([path.join('src', 'workflows', 'sdk-internals.cjs')]);
  });

  it('keeps only the entry files at its root', () => {
    expect(readdirSync('src').filter((f) => f.endsWith('.ts')).sort()).toEqual(['encryption.ts', 'index.ts', 'testing.ts', 'workflow.ts']);
  });

  it('serve, scripted and config import nothing from the CLI', () => {
    const fromCli = (room: string) =>
      walk(path.join('src', room)).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/from '\.\.\/cli\/([\w/-]+)\.js'/g)].map((m) => `${f}: ${m[1]}`));
    expect([...fromCli('serve'), ...fromCli('scripted'), ...fromCli('config')]).toEqual([]);
  });
});
