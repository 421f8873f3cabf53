// A tool module that throws while it loads (a key it reads at import is not set): the error names the module that
// threw, with its line, not only the config that imports it, and keeps the original error, stack and all, as its
// `cause`. Issue 42, item 6.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/check.js';
import { loadConfig } from '../../src/config/load.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-config-throws-'));
  await mkdir(path.join(dir, 'tools'));
  await writeFile(
    path.join(dir, 'tools', 'my-service.mjs'),
    [
      '// A tool that needs a key at import.',
      'const key = process.env.MY_SERVICE_KEY_FOR_THIS_TEST;',
      "if (!key) throw new Error('MY_SERVICE_KEY is not set');",
      "export const myService = { name: 'my_service', description: 'Calls my service.', inputSchema: { type: 'object' }, async execute() { return key; } };",
      '',
    ].join('\n'),
  );
  await writeFile(path.join(dir, 'throws.config.mjs'), "import { myService } from './tools/my-service.mjs';\nexport default { tools: [myService] };\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function loadError(file: string): Promise<ConfigError> {
  const err = await loadConfig({ file, cwd: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('a config whose tool module throws at import', () => {
  it('names the module that threw and its line, and keeps the thrown error with its stack as the cause', async () => {
    const err = await loadError('throws.config.mjs');
    expect(err.message).toBe('cannot load throws.config.mjs: tools/my-service.mjs:3 threw while loading: MY_SERVICE_KEY is not set');
    expect(err.message).not.toContain('\n');
    const cause = err.cause as Error;
    expect(cause).toBeInstanceOf(Error);
    expect(cause.message).toBe('MY_SERVICE_KEY is not set');
    expect(cause.stack).toMatch(/my-service\.mjs:3:\d+/);
  });

  it('a config that throws itself is named as before, with the cause kept', async () => {
    await writeFile(path.join(dir, 'self.config.mjs'), "throw new Error('no token');\nexport default {};\n");
    const err = await loadError('self.config.mjs');
    expect(err.message).toBe('cannot load self.config.mjs: no token');
    expect((err.cause as Error).stack).toMatch(/self\.config\.mjs:1:\d+/);
  });

  it('a module outside the working directory is named by its absolute path', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'durable-agent-config-outside-'));
    try {
      await writeFile(path.join(outside, 'lib.mjs'), "export const x = 1;\nthrow new TypeError('bad lib');\n");
      await writeFile(path.join(dir, 'outside.config.mjs'), `import '${path.join(outside, 'lib.mjs')}';\nexport default {};\n`);
      const err = await loadError('outside.config.mjs');
      expect(err.message).toBe(`cannot load outside.config.mjs: ${path.join(outside, 'lib.mjs')}:2 threw while loading: bad lib`);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
