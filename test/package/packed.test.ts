// The documented API is the exported API: `npm pack` the package, install the tarball into an empty project (as a
// user does), type-check there the library examples of README.md and docs/*.md (the ```ts blocks marked
// `runnable=FILE` or `compiles=FILE`, extracted as they are written), and run the runnable ones against the test dev
// server and the scripted model. A broken example fails here: shown by the last tests, on a page written to fail.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/index.js';
import { markedExamples, readPages, type MarkedExample, type Page } from '../docs/checks.js';
import { ROOT } from '../helpers/cli.js';
import { useTestEnv } from '../helpers/harness.js';
import { testServerAddress } from '../helpers/test-server.js';

const run = promisify(execFile);
const PAGES = readPages(ROOT);
const README = PAGES.find((p) => p.path === 'README.md')!.text;
const env = useTestEnv();

/** The pages' code blocks shown as a copy of a file: `<!-- in sync with: FILE -->` before the fence. */
function inSyncBlocks(pages: Page[]): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const page of pages) {
    for (const m of page.text.matchAll(/<!-- in sync with: (\S+) -->\n```\w+\n([\s\S]*?)```\n/g)) blocks.set(m[1], m[2]);
  }
  return blocks;
}

/** The examples' sources written into `dir`/src, and tsc run there: its complaints, '' when it compiles. */
async function compileExamples(dir: string, examples: MarkedExample[]): Promise<string> {
  await mkdir(path.join(dir, 'src'), { recursive: true });
  for (const e of examples) await writeFile(path.join(dir, 'src', e.file), e.code);
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch((err: { stdout: string }) => err);
  return 'stdout' in result ? result.stdout : '';
}

/** A runnable example run to its end: its stdout, or an error naming the page and the example's stderr. */
async function runExample(dir: string, example: MarkedExample, childEnv: NodeJS.ProcessEnv): Promise<string> {
  const out = path.join('out', example.file.replace(/\.ts$/, '.js'));
  try {
    return (await run(process.execPath, [out], { cwd: dir, env: childEnv, timeout: 120_000 })).stdout;
  } catch (err) {
    const { code, stderr } = err as { code?: number; stderr?: string };
    throw new Error(`the example ${example.file} (${example.where}) failed (exit ${code}):\n${stderr ?? ''}`);
  }
}

/** Compiled with the examples: fails if the package's types degrade to `any` (skipLibCheck hides a broken .d.ts). */
const TYPE_CHECKS = `import type { AgentTool } from 'durable-agent';
import { weather } from './weather-tool.js';

export const derived: AgentTool<{ city: string; unit?: 'celsius' | 'fahrenheit' }> = weather;
// @ts-expect-error: the input type is derived from the schema, so another one does not fit
export const other: AgentTool<{ town: number }> = weather;
`;

describe('doc examples in sync', () => {
  it('the config files shown in the pages are the ones in examples/ (which the CLI tests run)', async () => {
    const blocks = inSyncBlocks(PAGES);
    expect([...blocks.keys()]).toEqual(['examples/tools/durable-agent.config.mjs', 'examples/mcp/durable-agent.config.mjs']);
    for (const [file, code] of blocks) expect(code).toBe(await readFile(path.join(ROOT, file), 'utf8'));
  });
});

describe('the packed package', () => {
  let project: string;
  let weatherService: Server;
  let weatherUrl: string;
  let model: ScriptedModel;
  const examples = markedExamples(PAGES);

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
    TEMPORAL_ADDRESS: testServerAddress(),
    ANTHROPIC_API_KEY: 'packed-test-key',
    ANTHROPIC_BASE_URL: model.url,
    WEATHER_URL: weatherUrl,
  });

  it('the pages have the examples this test runs', () => {
    expect(examples.map((e) => `${e.kind}=${e.file}`)).toEqual([
      'compiles=schedule-weekly-report.ts',
      'compiles=today-tool.ts',
      'compiles=traced-start.ts',
      'compiles=metrics-worker.ts',
      'runnable=own-worker.ts',
      'compiles=workflows.ts',
      'compiles=plugin-worker.ts',
      'compiles=agent-child.ts',
      'compiles=weather-tool.ts',
      'runnable=scripted-model.ts',
    ]);
  });

  it('exports everything the README’s API paragraph names', async () => {
    const section = README.slice(README.indexOf('Everything these pages name'));
    const list = section.slice(section.indexOf('exported by the package'), section.indexOf('with their'));
    const names = [...list.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['getStatus', 'resumeAgent', 'AgentPlugin', 'defineConfig', 'defineTool']));
    const script = `const m = await import('durable-agent'); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => m[n] === undefined)));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it('keeps the root to what a user builds with: the rest are subpaths, CLI internals are not exported, the constants are frozen', async () => {
    const script = `
      const root = await import('durable-agent');
      const sub = {};
      for (const name of ['testing', 'encryption', 'worker', 'observability', 'mcp', 'webhooks', 'background']) sub[name] = await import('durable-agent/' + name);
      const missing = (m, names) => names.filter((n) => m[n] === undefined);
      console.log(JSON.stringify({
        testing: missing(sub.testing, ['startScriptedModel', 'reply', 'text', 'toolUse', 'webSearch', 'builtinTools', 'startDevServer', 'findTemporalCli', 'toolContext']),
        encryption: missing(sub.encryption, ['EncryptionCodec', 'parseKeyRing', 'startCodecServer', 'FAILURE_CONVERTER_PATH', 'agentDataConverter']),
        worker: missing(sub.worker, ['agentWorkerSizing', 'AGENT_WORKER_SIZING', 'resolveTemporalTarget', 'modelConnectionFromEnv', 'workerDataConverter']),
        observability: missing(sub.observability, ['agentTracingFromEnv', 'createTracing', 'AgentMetrics', 'serveMetrics', 'OtelConfigError']),
        mcp: missing(sub.mcp, ['FileMcpTokenStore', 'MemoryMcpTokenStore', 'McpTokenStoreError', 'McpLoginRequired', 'IDEMPOTENCY_META_KEY']),
        webhooks: missing(sub.webhooks, ['signWebhook', 'verifyWebhook', 'WebhookVerificationError', 'WEBHOOK_EVENT_TYPES', 'WEBHOOK_HEADERS']),
        background: missing(sub.background, ['createAgentSchedule', 'listAgentSchedules', 'describeAgentSchedule', 'pauseAgentSchedule', 'unpauseAgentSchedule', 'triggerAgentSchedule', 'deleteAgentSchedule', 'startTasks', 'listTaskBatch', 'getTaskBatchResults', 'taskWorkflowIds']),
        rootValues: Object.keys(root).length,
        onRoot: ['loadConfig', 'ConfigError', 'toolsWithConfig', 'startScriptedModel', 'startDevServer', 'webSearch', 'builtinTools', 'EncryptionCodec', 'agentWorkerSizing', 'AgentMetrics', 'MemoryMcpTokenStore', 'settingsProblem', 'newWorkflowId', 'MODEL_CALL_OPTIONS'].filter((n) => n in root),
        mutable: Object.isFrozen(sub.worker.AGENT_WORKER_SIZING) && Object.isFrozen(sub.webhooks.WEBHOOK_HEADERS) ? [] : ['AGENT_WORKER_SIZING or WEBHOOK_HEADERS'],
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    const found = JSON.parse(stdout) as Record<string, unknown>;
    expect(found.rootValues).toBeLessThanOrEqual(30);
    expect({ ...found, rootValues: undefined }).toEqual({ testing: [], encryption: [], worker: [], observability: [], mcp: [], webhooks: [], background: [], onRoot: [], mutable: [] });
  });

  it('type-checks the pages’ library examples against the installed package (tsc, strict)', async () => {
    expect(await compileExamples(project, examples)).toBe('');
    expect(existsSync(path.join(project, 'out', 'own-worker.js'))).toBe(true);
  }, 120_000);

  // What each runnable example prints (each must exit 0; one not listed here only has to).
  const EXPECTED_OUTPUT: Record<string, string> = {
    // A run that calls the typed weather tool completes.
    'own-worker.ts': 'completed Weather: "Paris: sunny +21°C"',
    // The library path to the offline model, through the real SDK and worker: two requests, the tool call, then
    // the answer after the calculator's result.
    'scripted-model.ts': 'completed It is 42. 2',
  };
  for (const example of examples.filter((e) => e.kind === 'runnable')) {
    it(`runs the runnable example ${example.file} (${example.where}) to exit 0`, async () => {
      const stdout = await runExample(project, example, childEnv());
      if (example.file in EXPECTED_OUTPUT) expect(stdout.trim()).toBe(EXPECTED_OUTPUT[example.file]);
    }, 150_000);
  }

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
  describe('a broken example fails the check', () => {
    const broken = (file: string, code: string): MarkedExample[] =>
      markedExamples([{ path: 'docs/broken.md', text: `# Broken\n\n\`\`\`ts runnable=${file}\n${code}\`\`\`\n` }]);
    const missingExport = broken('missing-export.ts', "import { startAgents } from 'durable-agent';\nconsole.log(startAgents);\n");
    const throwing = broken('broken.ts', "import { defaultSettings } from 'durable-agent';\nconsole.log(typeof defaultSettings);\nthrow new Error('the example broke');\n");
    let dir: string;
    let problems: string;
    beforeAll(async () => {
      // A project of its own beside the real one (so the real one's tsc run never sees it), resolving the same
      // installed packages. Both broken examples in one tsc run (a tsc run costs seconds): tsc reports each file's
      // problems under its name, and writes the output of a file without problems all the same.
      dir = path.join(project, 'broken');
      await mkdir(dir);
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'out' }, include: ['src'] }),
      );
      problems = await compileExamples(dir, [...missingExport, ...throwing]);
    }, 120_000);

    it('an example that names an export the package does not have fails to compile, naming it', () => {
      expect(problems).toMatch(/missing-export\.ts.*startAgents/);
    });

    it('an example that fails when run is reported with its page and its error', async () => {
      // It compiles: no problem names it.
      expect(problems).not.toContain('broken.ts');
      await expect(runExample(dir, throwing[0], childEnv())).rejects.toThrow(/broken\.ts \(docs\/broken\.md:3\) failed \(exit 1\)[\s\S]*the example broke/);
    }, 150_000);
  });
});
