// README.md and docs/*.md against the code: links, environment variables, flags, and the front page's promises.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScriptFile } from '../../src/scripted/index.js';
import { checkEnvNames, checkFlags, checkLinks, codeBlocks, knownNames, OTHER_PROGRAMS_FLAGS, readPages } from './checks.js';
import { commandFlags, envSources, fileExists, readPage, ROOT } from './sources.js';

const pages = readPages(ROOT);
const readme = pages.find((p) => p.path === 'README.md')!.text;

describe('the pages', () => {
  it('every relative link of README.md and docs/*.md resolves, files and #anchors', () => {
    expect(checkLinks(pages, fileExists, readPage)).toEqual([]);
  });

  it('every AGENT_* and TEMPORAL_* variable the pages name is read by the code (ours or @temporalio/envconfig)', () => {
    expect(checkEnvNames(pages, knownNames(envSources()))).toEqual([]);
  });

  it('every --flag the pages name is a flag of the CLI (of the very command, in a command line)', async () => {
    expect(checkFlags(pages, await commandFlags())).toEqual([]);
  });

  it('every flag named as another program’s is on some page (the list does not outlive its use)', () => {
    const text = pages.map((p) => p.text).join('\n');
    expect(Object.keys(OTHER_PROGRAMS_FLAGS).filter((f) => !new RegExp(`${f}(?![\\w-])`).test(text))).toEqual([]);
  });

  it('each docs page opens, under its title, with what the reader can do after reading it', () => {
    const docs = pages.filter((p) => p.path.startsWith('docs/'));
    expect(docs.length).toBeGreaterThanOrEqual(13);
    const opening = (text: string) => text.split('\n\n')[1] ?? '';
    expect(docs.filter((p) => !/^After reading this page you (can|know)/.test(opening(p.text))).map((p) => p.path)).toEqual([]);
  });
});

describe('the front page', () => {
  it('is under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it('starts with the two set-up commands, the demo and the test command (.ci/run runs the latter)', () => {
    const [first, second] = codeBlocks(readme);
    expect(first.code).toBe('npm ci && npm run --silent agent -- demo\n');
    expect(second.code).toBe('npm ci && npm test\n');
    expect(readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/\nnpm test /);
  });

  it('says why each dependency is there: every package of package.json has a row in "Dependencies, and why"', () => {
    const table = readme.slice(readme.indexOf('## Dependencies, and why'), readme.indexOf('\n## ', readme.indexOf('## Dependencies, and why') + 3));
    // `@temporalio/{client,worker}` names @temporalio/client and @temporalio/worker.
    const named = new Set(
      [...table.matchAll(/^\| (.+?) \|/gm)].flatMap((row) =>
        [...row[1].matchAll(/`([^`]+)`/g)].flatMap(([, name]) => {
          const group = /^(.*)\{(.+)\}$/.exec(name.trim());
          return group ? group[2].split(',').map((n) => group[1] + n) : [name.trim()];
        }),
      ),
    );
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const deps = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];
    expect(deps.filter((d) => !named.has(d))).toEqual([]);
  });

  it('links every docs page from its table of topics', () => {
    const linked = new Set([...readme.matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((m) => m[1]));
    expect(pages.filter((p) => p.path.startsWith('docs/') && !linked.has(p.path)).map((p) => p.path)).toEqual([]);
  });

  it('the tour’s slowed-down script is a valid AGENT_SCRIPT', async () => {
    expect(readme).toContain('AGENT_SCRIPT=examples/tour/slow-demo.json');
    expect(await loadScriptFile(path.join(ROOT, 'examples', 'tour', 'slow-demo.json'))).toHaveLength(3);
  });
});
