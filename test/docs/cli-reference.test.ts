// docs/cli.md's reference part is generated from the command definitions `--help` prints: the committed page is
// what `npm run docs:cli` writes, and a stale page (a flag renamed in the code, not in the page) fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/main.js';
import { BEGIN, cliReference, END, withReference } from '../../devtools/cli-reference.js';
import { staleReference } from './checks.js';
import { ROOT } from './sources.js';

const page = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');

describe('docs/cli.md', () => {
  it('is what the generator writes from the command definitions (run `npm run docs:cli` after changing a command)', async () => {
    expect(staleReference(page, await cliReference())).toBeUndefined();
  });

  it('shows each command’s --help text as the command prints it', async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const help = commandHelp(await entry.load(), { here: false });
      expect(page, name).toContain(`$ durable-agent ${name} --help\n${help.trimEnd()}\n\`\`\``);
    }
  });

  it('leaves out what differs by machine, which --help shows (the cache default from the heap size)', async () => {
    const worker = await COMMANDS.worker.load();
    expect(commandHelp(worker)).toMatch(/600 per GB of heap\); .*; default here: [\d,]+/);
    expect(page).not.toContain('default here');
  });

  it('the check fails on a page written before a flag was renamed, naming the line', async () => {
    const reference = await cliReference();
    const stale = withReference(page, reference.replace('--max-steps N', '--step-cap N'));
    expect(staleReference(stale, reference)).toMatch(/^docs\/cli\.md:\d+: the page has ".*--step-cap N.*", the definitions ".*--max-steps N.*"; run npm run docs:cli$/);
  });

  it('the generator refuses a page that lost its markers instead of appending to it', () => {
    expect(() => withReference('# The CLI\n', '')).toThrow(BEGIN);
    expect(page.indexOf(BEGIN)).toBeLessThan(page.indexOf(END));
  });
});
