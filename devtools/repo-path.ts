// A file of the repository, from a dev tool running from source (tests) or compiled (`npm run cluster`, whose build
// lands under node_modules/.cache): the nearest folder above this file that holds the repository's package.json.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function repoPath(...parts: string[]): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'durable-agent') return path.join(dir, ...parts);
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`the durable-agent repository was not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}
