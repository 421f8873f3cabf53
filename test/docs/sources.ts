// What the doc checks compare the pages with: the repository's files, the CLI's command definitions, and the
// sources that name environment variables (ours, and @temporalio/envconfig, which reads TEMPORAL_* for us).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../src/cli/main.js';
import { ROOT } from '../helpers/cli.js';

export { ROOT };

/** Each command's options, `--help` included (every command takes it). */
export async function commandFlags(): Promise<Map<string, Set<string>>> {
  const flags = new Map<string, Set<string>>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    flags.set(name, new Set([...Object.keys((await entry.load()).flags), 'help']));
  }
  flags.set('help', new Set()); // `durable-agent help <command>`
  flags.set('(the program)', new Set(['help', 'version'])); // `durable-agent --help`, `durable-agent --version`
  return flags;
}

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => ext.test(f) && statSync(f).isFile());
}

/** The texts in which a documented AGENT_* / TEMPORAL_* name must appear. */
export function envSources(): string[] {
  return [
    ...filesUnder(path.join(ROOT, 'src'), /\.ts$/),
    ...filesUnder(path.join(ROOT, 'node_modules', '@temporalio', 'envconfig', 'lib'), /\.js$/),
  ].map((f) => readFileSync(f, 'utf8'));
}

export const fileExists = (repoPath: string) => existsSync(path.join(ROOT, repoPath));
export const readPage = (repoPath: string) => (existsSync(path.join(ROOT, repoPath)) ? readFileSync(path.join(ROOT, repoPath), 'utf8') : undefined);
