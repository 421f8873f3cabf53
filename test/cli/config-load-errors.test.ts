// The CLI on a config whose tool module throws at import: the one-line error names the module that threw (not only
// the config), and DEBUG=durable-agent prints the stack of the throw itself, not only the loader's. Issue 42, item 6.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUsageError, useCli } from '../helpers/cli.js';

const { session } = useCli();
let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-cli-throws-'));
  await mkdir(path.join(dir, 'tools'));
  await writeFile(
    path.join(dir, 'tools', 'my-service.mjs'),
    "const key = process.env.MY_SERVICE_KEY;\nif (!key) throw new Error('MY_SERVICE_KEY is not set');\nexport const myService = {};\n",
  );
  config = path.join(dir, 'throws.config.mjs');
  await writeFile(config, "import { myService } from './tools/my-service.mjs';\nexport default { tools: [] };\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a tool module that throws at import', () => {
  it('is exit 2 naming the module and line that threw; DEBUG adds the stack of the throw', async () => {
    const { cli } = session();
    const module = path.join(dir, 'tools', 'my-service.mjs');
    const plain = await cli(['worker', '--config', config], { MY_SERVICE_KEY: undefined, DEBUG: undefined });
    expectUsageError(plain, new RegExp(`^error: cannot load .*throws\\.config\\.mjs: ${module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2 threw while loading: MY_SERVICE_KEY is not set$`, 'm'));
    expect(plain.stderr).not.toMatch(/^\s+at /m);

    const debug = await cli(['worker', '--config', config], { MY_SERVICE_KEY: undefined, DEBUG: 'durable-agent' });
    expectUsageError(debug, /my-service\.mjs:2 threw while loading/);
    // The throw site, as a stack frame: the first frame of the cause's stack.
    expect(debug.stderr).toMatch(/^caused by: Error: MY_SERVICE_KEY is not set\n\s+at .*my-service\.mjs:2:\d+/m);
  });
});
