// Each doc check fails on a broken page: a renamed flag, a flag of another command, a broken link or anchor, a
// variable the code does not read. (A failing example: test/package/packed.test.ts; a stale CLI page:
// cli-reference.test.ts.)
import { describe, expect, it } from 'vitest';
import { anchorsOf, checkEnvNames, checkFlags, checkLinks, slug, type Page } from './checks.js';

const commands = new Map([
  ['run', new Set(['max-steps', 'json', 'help'])],
  ['worker', new Set(['max-model-calls', 'help'])],
]);
const files = new Set(['README.md', 'docs/cli.md', 'docs/ui-run.png']);
const cliPage = '# The command line\n\n## Exit codes\n\ntext\n\n## Exit codes\n';
const read = (p: string) => (p === 'docs/cli.md' ? cliPage : undefined);
const page = (text: string, path = 'README.md'): Page[] => [{ path, text }];

describe('checkLinks', () => {
  it('passes links that resolve: a file, an anchor of another page, of the same page, an image, a web address', () => {
    const text = '# Top\n\n[cli](docs/cli.md) [codes](docs/cli.md#exit-codes-1) [top](#top) ![ui](docs/ui-run.png) [t](https://temporal.io)\n';
    expect(checkLinks(page(text), (p) => files.has(p), read)).toEqual([]);
  });

  it('fails a link to a file that does not exist, and one to a heading the page does not have', () => {
    const text = '# Top\n\nSee [ops](docs/operations.md) and [codes](docs/cli.md#exit-code).\n';
    expect(checkLinks(page(text), (p) => files.has(p), read)).toEqual([
      'README.md:3: link docs/operations.md: docs/operations.md does not exist',
      'README.md:3: link docs/cli.md#exit-code: docs/cli.md has no heading with the anchor #exit-code',
    ]);
  });

  it('resolves a docs page’s links from its own folder', () => {
    expect(checkLinks(page('[readme](../README.md) [self](cli.md)\n', 'docs/cli.md'), (p) => files.has(p), read)).toEqual([]);
    expect(checkLinks(page('[readme](README.md)\n', 'docs/cli.md'), (p) => files.has(p), read)).toEqual([
      'docs/cli.md:1: link README.md: docs/README.md does not exist',
    ]);
  });

  it('ignores links inside code', () => {
    expect(checkLinks(page('`[x](nowhere.md)`\n\n```md\n[y](nowhere.md)\n```\n'), () => false, read)).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug("Claude's server tools")).toBe('claudes-server-tools');
    expect(slug('Replay fixtures and `patched()`')).toBe('replay-fixtures-and-patched');
    expect(slug('Model calls: concurrency and rate')).toBe('model-calls-concurrency-and-rate');
    expect([...anchorsOf(cliPage)]).toEqual(['the-command-line', 'exit-codes', 'exit-codes-1']);
  });
});

describe('checkEnvNames', () => {
  const known = new Set(['AGENT_TASK_QUEUE', 'TEMPORAL_ADDRESS', 'TEMPORAL_TLS_CLIENT_CERT_PATH']);

  it('passes names the code reads, and a prefix with * that some name has', () => {
    expect(checkEnvNames(page('`AGENT_TASK_QUEUE`, `TEMPORAL_ADDRESS`, `TEMPORAL_TLS_*`\n'), known)).toEqual([]);
  });

  it('fails a renamed variable', () => {
    expect(checkEnvNames(page('Set `AGENT_QUEUE` first.\n'), known)).toEqual([
      'README.md:1: AGENT_QUEUE is in no source file (a renamed or removed variable?)',
    ]);
  });
});

describe('checkFlags', () => {
  it('passes the flags the commands take, and other programs’ flags named as theirs', () => {
    const text = 'Use `--max-steps N`.\n\n```sh\nnpm run --silent agent -- run "x" --max-steps 3 --json | wc -c\nnode --max-old-space-size=8192 x.js\n```\n';
    expect(checkFlags(page(text), commands)).toEqual([]);
  });

  it('fails a renamed flag, in prose, in inline code and in a code block', () => {
    const text = 'Give --max-step N, or `--step-cap N`.\n\n```sh\ndurable-agent run "x" --steps 3\n```\n';
    expect(checkFlags(page(text), commands)).toEqual([
      'README.md:1: --step-cap is an option of no command (a renamed or removed flag?)',
      'README.md:4: run has no option --steps',
      'README.md:4: --steps is an option of no command (a renamed or removed flag?)',
      'README.md:1: --max-step is an option of no command (a renamed or removed flag?)',
    ]);
  });

  it('fails a flag given to a command that does not take it', () => {
    expect(checkFlags(page('`worker --max-steps 3`\n'), commands)).toEqual(['README.md:1: worker has no option --max-steps']);
  });

  it('lets a page show a wrong flag on purpose when it says so', () => {
    const text = '<!-- not a flag: --max-step (the typo the example shows) -->\n```console\n$ durable-agent run --max-step 3 "x"\nerror: unknown option --max-step (did you mean --max-steps?)\n```\n';
    expect(checkFlags(page(text), commands)).toEqual([]);
  });
});
