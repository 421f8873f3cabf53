// What a new user meets while setting up: a `.ts` config gets a hint (Node does not run TypeScript by itself), a
// config that imports durable-agent where it is not installed is told how to install it (it is not on the npm
// registry), and `run` says which Temporal server it used.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectExit, expectUsageError, useCli } from '../helpers/cli.js';

const { session } = useCli();

async function fileIn(name: string, text: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'setup-hints-')), name);
  await writeFile(file, text);
  return file;
}

describe('set-up hints', () => {
  it('a .ts config is exit 2 saying to use .mjs/.js or a TypeScript loader', async () => {
    const config = await fileIn('durable-agent.config.ts', 'export default { tools: [] };\n');
    // A process: the test process (vitest) would load a .ts file where Node itself does not.
    const exit = await session().cliProcess(['run', '--scripted', '--config', config, 'hi']);
    expectUsageError(exit, /Node does not run TypeScript by itself \(.*Unknown file extension "\.ts".*\)\. Write the config as \.mjs or \.js/);
    expect(exit.stderr).toContain('node --import tsx');
  });

  it('a config importing durable-agent where it is not installed says how to install it, not `npm install durable-agent`', async () => {
    const config = await fileIn('agent.config.mjs', "import { defineConfig } from 'durable-agent';\nexport default defineConfig({});\n");
    const exit = await session().cli(['run', '--scripted', '--config', config, 'hi']);
    expectUsageError(exit, /the package 'durable-agent' is not installed where the config file is\. It is not on the npm registry: install it .* from its tarball/);
    expect(exit.stderr).not.toContain('npm install durable-agent in that project');
  });

  it('run says which Temporal server it used', async () => {
    const exit = await session().cli(['run', '--scripted', 'What is 6*7?'], { AGENT_SCRIPT: await fileIn('s.json', JSON.stringify([{ content: [{ type: 'text', text: '42' }], stop_reason: 'end_turn' }])) });
    expectExit(exit, 0);
    expect(exit.stderr).toMatch(/^using the Temporal server at \S+:\d+ \(TEMPORAL_ADDRESS or the config profile\)$/m);
  });
});
