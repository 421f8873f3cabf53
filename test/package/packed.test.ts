// The documented API is the exported API: `npm pack` the package, install the tarball into an empty project (as a
// user does), type-check there the README's library examples (the ```ts blocks marked `<!-- packed-test: FILE -->`,
// extracted as they are written), and run them against the test dev server and the scripted model.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/index.js';
import { ROOT } from '../helpers/cli.js';
import { useTestEnv } from '../helpers/harness.js';

const run = promisify(execFile);
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const env = useTestEnv();

/** The README's code blocks marked for this test, by file name. */
function markedBlocks(marker: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of README.matchAll(new RegExp(`<!-- ${marker}: (\\S+) -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\n`, 'g'))) {
    blocks.set(m[1], m[2]);
  }
  return blocks;
}

/** Compiled with the examples: fails if the package's types degrade to `any` (skipLibCheck hides a broken .d.ts). */
const TYPE_CHECKS = `import type { AgentTool } from 'durable-agent';
import { weather } from './weather-tool.js';

export const derived: AgentTool<{ city: string; unit?: 'celsius' | 'fahrenheit' }> = weather;
// @ts-expect-error: the input type is derived from the schema, so another one does not fit
export const other: AgentTool<{ town: number }> = weather;
`;

describe('README examples in sync', () => {
  it('the config file shown in the README is the one in examples/ (which the CLI test runs)', async () => {
    const blocks = markedBlocks('in sync with');
    expect([...blocks.keys()]).toEqual(['examples/tools/durable-agent.config.mjs', 'examples/mcp/durable-agent.config.mjs']);
    for (const [file, code] of blocks) expect(code).toBe(await readFile(path.join(ROOT, file), 'utf8'));
  });
});

describe('the packed package', () => {
  let project: string;
  let weatherService: Server;
  let weatherUrl: string;
  let model: ScriptedModel;
  const examples = markedBlocks('packed-test');

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'dist', 'workflow-bundle.js'))) {
      throw new Error('dist/ is not built: run `npm run build` before this test (it packs dist/)');
    }
    project = await mkdtemp(path.join(tmpdir(), 'durable-agent-packed-'));
    // --ignore-scripts: pack the dist/ that was built, instead of building again inside the test.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', project], { cwd: ROOT });
    const tarball = path.join(project, packed.stdout.trim().split('\n').pop()!);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'packed-test', private: true, type: 'module' }));
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          // As most projects do: @temporalio/common's own .d.ts do not compile without it (they import 'ms', whose
          // types are not installed). Our types are checked anyway, by TYPE_CHECKS below.
          skipLibCheck: true,
          types: ['node'],
          rootDir: 'src',
          outDir: 'out',
        },
        include: ['src'],
      }),
    );
    const versions = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        tarball,
        ...['@temporalio/client', '@temporalio/worker', '@temporalio/workflow'].map((d) => `${d}@${versions.dependencies[d]}`),
        `@types/node@${versions.devDependencies['@types/node']}`,
      ],
      { cwd: project, maxBuffer: 16 * 1024 * 1024 },
    );
    await mkdir(path.join(project, 'src'));
    for (const [file, code] of examples) await writeFile(path.join(project, 'src', file), code);
    await writeFile(path.join(project, 'src', 'type-checks.ts'), TYPE_CHECKS);

    weatherService = createServer((req, res) => {
      const city = decodeURIComponent(new URL(req.url!, 'http://x').pathname.slice(1));
      res.writeHead(city === 'Atlantis' ? 404 : 200).end(`${city}: sunny +21°C`);
    });
    await new Promise<void>((resolve) => weatherService.listen(0, '127.0.0.1', resolve));
    weatherUrl = `http://127.0.0.1:${(weatherService.address() as { port: number }).port}`;
    // Asks for the weather, then answers with what the tool returned (so the answer proves the tool ran).
    model = await startScriptedModel({
      script: (request) => {
        const last = request.messages.at(-1)!;
        const blocks = Array.isArray(last.content) ? last.content : [];
        const result = blocks.find((b): b is Extract<typeof b, { type: 'tool_result' }> => b.type === 'tool_result');
        return result
          ? { content: [{ type: 'text', text: `Weather: ${JSON.stringify(result.content)}` }], stop_reason: 'end_turn' }
          : { content: [{ type: 'tool_use', name: 'weather', input: { city: 'Paris' } }], stop_reason: 'tool_use' };
      },
    });
  }, 600_000);

  afterAll(async () => {
    await model?.close();
    weatherService?.closeAllConnections();
    await new Promise((resolve) => weatherService?.close(resolve));
    if (project) await rm(project, { recursive: true, force: true });
  });

  const childEnv = () => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    ANTHROPIC_API_KEY: 'packed-test-key',
    ANTHROPIC_BASE_URL: model.url,
    WEATHER_URL: weatherUrl,
  });

  it('the README has the examples this test runs', () => {
    expect([...examples.keys()]).toEqual(['weather-tool.ts', 'own-worker.ts', 'workflows.ts', 'plugin-worker.ts', 'agent-child.ts', 'scripted-model.ts']);
  });

  it('exports everything the README’s API paragraph names', async () => {
    const section = README.slice(README.indexOf("### The library's API"));
    const list = section.slice(section.indexOf('exported by the package'), section.indexOf('with their'));
    const names = [...list.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['getStatus', 'resumeAgent', 'AgentPlugin', 'defineConfig', 'defineTool']));
    const script = `const m = await import('durable-agent'); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => m[n] === undefined)));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it('keeps the root to what a user builds with: test helpers and codec internals are subpaths, CLI internals are not exported, the constants are frozen', async () => {
    const script = `
      const root = await import('durable-agent');
      const testing = await import('durable-agent/testing');
      const encryption = await import('durable-agent/encryption');
      const missing = (m, names) => names.filter((n) => m[n] === undefined);
      console.log(JSON.stringify({
        testing: missing(testing, ['startScriptedModel', 'reply', 'text', 'toolUse', 'webSearch', 'builtinTools', 'startDevServer', 'findTemporalCli']),
        encryption: missing(encryption, ['EncryptionCodec', 'parseKeyRing', 'startCodecServer', 'FAILURE_CONVERTER_PATH', 'agentDataConverter']),
        onRoot: ['loadConfig', 'ConfigError', 'toolsWithConfig', 'startScriptedModel', 'startDevServer', 'webSearch', 'builtinTools', 'EncryptionCodec'].filter((n) => n in root),
        mutable: ['DEFAULTS', 'MODEL_CALL_OPTIONS', 'TOOL_CALL_OPTIONS', 'AGENT_WORKER_SIZING'].filter((n) => !Object.isFrozen(root[n])),
        mutableRetry: Object.isFrozen(root.MODEL_CALL_OPTIONS.retry) && Object.isFrozen(root.DEFAULTS.summaryOn) ? [] : ['nested'],
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ testing: [], encryption: [], onRoot: [], mutable: [], mutableRetry: [] });
  });

  it('type-checks the README’s library examples against the installed package (tsc, strict)', async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((err: { stdout: string }) => err);
    expect('stdout' in result ? result.stdout : '').toBe('');
    expect(existsSync(path.join(project, 'out', 'own-worker.js'))).toBe(true);
  }, 120_000);

  it('runs the worker-of-your-own example: a run that calls the typed weather tool completes', async () => {
    const { stdout } = await run(process.execPath, ['out/own-worker.js'], { cwd: project, env: childEnv(), timeout: 120_000 });
    expect(stdout.trim()).toBe('completed Weather: "Paris: sunny +21°C"');
  }, 150_000);

  it('runs the scripted-model example: the library path to the offline model, through the real SDK and worker', async () => {
    const { stdout } = await run(process.execPath, ['out/scripted-model.js'], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: inject('temporalAddress') },
      timeout: 120_000,
    });
    // Two requests: the tool call, then the answer after the calculator's result.
    expect(stdout.trim()).toBe('completed It is 42. 2');
  }, 150_000);

  it('runs the plugin example: the team’s own workflow and an agent run on one worker and task queue', async () => {
    const child = spawn(process.execPath, ['out/plugin-worker.js'], { cwd: project, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    try {
      const order = env.client.workflow.execute('orderWorkflow', { taskQueue: 'orders', workflowId: `order-${randomUUID()}`, args: ['A-1'] });
      const { workflowId } = await startAgent(env.client, {
        task: 'Weather in Paris?',
        settings: defaultSettings({ tools: ['weather'] }),
        taskQueue: 'orders',
      });
      const [charged, result] = await Promise.all([order, getAgentResult(env.client, workflowId)]);
      expect(charged).toBe('charged A-1');
      expect(result).toMatchObject({ status: 'completed', text: 'Weather: "Paris: sunny +21°C"', toolCalls: 1 });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- plugin-worker stderr:\n${stderr}`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  }, 180_000);
});
