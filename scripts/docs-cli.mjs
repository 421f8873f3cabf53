// `npm run docs:cli`: rewrites the generated part of docs/cli.md from the command definitions in src/cli and the
// table of run settings (through devtools/cli-reference.ts, which the npm script compiles first). test/docs/cli-reference.test.ts fails until it is run
// after a change to a command's usage, description, flags or examples.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cliReference, withReference } from '../node_modules/.cache/durable-agent/devtools-build/devtools/cli-reference.js';

const page = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const before = await readFile(page, 'utf8');
const after = withReference(before, await cliReference());
if (after === before) {
  console.error('docs/cli.md: up to date');
} else {
  await writeFile(page, after);
  console.error('docs/cli.md: rewritten from the command definitions');
}
