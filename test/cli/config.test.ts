// `--config FILE`: a tool module the CLI loads (test/fixtures/config/word-tools.config.mjs, which imports
// defineConfig/defineTool from 'durable-agent' as a user's file does), its tools offered to runs and checked in
// --tools, and every way the file can be wrong refused with exit 2 and a one-line message naming the file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endTurn, expectExit, expectUsageError, jsonOf, stopWorker, useCli, type CliProcess } from '../helpers/cli.js';

const WORD_TOOLS = 'test/fixtures/config/word-tools.config.mjs';
const { client, session, scriptFile } = useCli();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-cli-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function badConfig(name: string, source: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, source);
  return file;
}

const wordCountTurn = (text: string) => ({
  content: [
    { type: 'text', text: 'Counting.' },
    { type: 'tool_use', name: 'word_count', input: { text } },
  ],
  stop_reason: 'tool_use',
});

/** The results of the run's runTool activities, as recorded in its history. */
async function toolOutcomes(workflowId: string): Promise<unknown[]> {
  const history = await client().workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  const outcomes: unknown[] = [];
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(event.eventId), s.activityType?.name ?? '');
    const c = event.activityTaskCompletedEventAttributes;
    if (c && scheduled.get(String(c.scheduledEventId)) === 'runTool') {
      outcomes.push(defaultPayloadConverter.fromPayload(c.result!.payloads![0]));
    }
  }
  return outcomes;
}

interface Message {
  role: string;
  content: string | Array<{ type: string; content?: unknown; is_error?: boolean }>;
}

describe('--config', () => {
  it('an MCP server command that does not exist stops the worker with exit 2 and one line naming the server', async () => {
    const { cli } = session();
    const file = await badConfig('no-such-server.mjs', "export default { mcpServers: { nope: { command: 'no-such-command-for-this-test' } } };\n");
    const exit = await cli(['worker', '--scripted', '--config', file]);
    expectUsageError(exit, /^error: MCP server "nope" \(no-such-command-for-this-test\) did not start: spawn no-such-command-for-this-test ENOENT$/m);
    expect(exit.stderr.match(/ENOENT/g)).toHaveLength(1);
    expect(exit.stderr).not.toContain('DEBUG=durable-agent');
  });

  it('run --config: the scripted model calls the config file’s tool, which runs on the worker run hosts', async () => {
    const { cli } = session();
    const script = await scriptFile([wordCountTurn('the quick brown fox'), endTurn('The text has 4 words.')]);
    const exit = await cli(['run', '--scripted', '--config', WORD_TOOLS, '--json', 'How many words in "the quick brown fox"?'], {
      AGENT_SCRIPT: script,
    });
    expectExit(exit, 0);
    const doc = jsonOf<{ workflowId: string; status: string; text: string; toolCalls: number }>(exit);
    expect(doc).toMatchObject({ status: 'completed', text: 'The text has 4 words.', toolCalls: 1 });
    expect(exit.stderr).toMatch(/config test\/fixtures\/config\/word-tools\.config\.mjs: tools word_count/);
    // The tool really ran: its answer is the tool activity's recorded result, not an "unknown tool" error.
    expect(await toolOutcomes(doc.workflowId)).toEqual([{ isError: false, content: '4 words' }]);
  });

  it('the documented command (docs/tools-and-mcp.md): examples/tools/durable-agent.config.mjs runs on its scriptedModel without a key, calling word_count', async () => {
    const { cli } = session();
    const exit = await cli(['run', '--config', 'examples/tools/durable-agent.config.mjs', 'How many words are in "the quick brown fox"?']);
    expectExit(exit, 0);
    expect(exit.stdout).toMatch(/^"the quick brown fox" has 4 words\.\n\n— completed on end_turn · 2 model calls · 1 tool call · /);
    const workflowId = exit.stdout.match(/(agent-how-many-words\S+)\n$/)![1];
    expect(await toolOutcomes(workflowId)).toEqual([{ isError: false, content: '4 words' }]);
  });

  it('worker --config registers the tool next to the built-ins, and start --config may name it in --tools', async () => {
    const { cli, spawn } = session();
    let worker: CliProcess | undefined;
    try {
      worker = spawn(['worker', '--scripted', '--config', WORD_TOOLS], {
        AGENT_SCRIPT: await scriptFile([wordCountTurn(''), endTurn('It was empty.')]),
      });
      await worker.waitForStderr(/worker polling task queue/);
      const started = await cli(['start', '--config', WORD_TOOLS, '--tools', 'word_count,calculator', 'count nothing']);
      expectExit(started, 0);
      const result = await cli(['result', started.stdout.trim(), '--json']);
      expectExit(result, 0);
      expect(jsonOf(result)).toMatchObject({ status: 'completed', text: 'It was empty.', toolCalls: 1 });
      // The tool's ToolError reached the model as an is_error result (not retried as a crash).
      const transcript = await cli(['transcript', started.stdout.trim(), '--json']);
      expectExit(transcript, 0);
      const toolResult = jsonOf<Message[]>(transcript)
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .find((b) => b.type === 'tool_result');
      expect(toolResult).toMatchObject({ is_error: true, content: expect.stringMatching(/The text is empty/) });
    } finally {
      await stopWorker(worker);
    }
  });

  it('--tools checks names against the config’s tools too, suggesting the nearest one for a typo', async () => {
    const { cli } = session();
    const [typo, withoutConfig, approveTypo] = await Promise.all([
      cli(['start', '--config', WORD_TOOLS, '--tools', 'word_cont,calculator', 'x']),
      cli(['start', '--tools', 'word_count', 'x']),
      cli(['start', '--config', WORD_TOOLS, '--approve', 'wordcount', 'x']),
    ]);
    expectUsageError(typo, /unknown tool "word_cont" \(did you mean "word_count"\?\) in --tools \(available: calculator, web_search, word_count\)/);
    expectUsageError(withoutConfig, /unknown tool "word_count" in --tools \(available: calculator, web_search\)/);
    expectUsageError(approveTypo, /unknown tool "wordcount" \(did you mean "word_count"\?\) in --approve/);
  });

  it('a missing file, no default export, a tools entry that is not a tool, a syntax error: exit 2, one line naming the file', async () => {
    const { cli } = session();
    const noDefault = await badConfig('no-default.mjs', 'export const tools = [];\n');
    const notATool = await badConfig('not-a-tool.mjs', "export default { tools: [{ name: 'weather' }] };\n");
    const syntax = await badConfig('syntax.mjs', "export default {\n  tools: [,\n  mcpServers: }\n};\n");
    const cases: Array<[string[], RegExp]> = [
      [['start', '--config', 'nope.config.mjs', 'x'], /^error: --config nope\.config\.mjs: no such file \(give the path of an ES module/m],
      [['run', '--scripted', '--config', noDefault, 'x'], /no-default\.mjs has no default export: end it with `export default defineConfig/],
      [['worker', '--config', notATool], /not-a-tool\.mjs: tools\[0\] is not a tool \(an object named "weather", missing description, inputSchema, execute\)/],
      [['demo', '--config', syntax], /syntax error in .*syntax\.mjs at line 3: Unexpected token/],
      [['resume', 'some-id', '--scripted', '--config', syntax], /syntax error in .*syntax\.mjs at line 3/],
    ];
    const exits = await Promise.all(cases.map(([args]) => cli(args)));
    exits.forEach((exit, i) => {
      expectUsageError(exit, cases[i][1]);
      expect(exit.stderr.trim().split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    });
  });
  it('a tool whose input schema is not an object, a top-level await that never settles, a process.exit, an MCP server\'s unset ${VAR}: exit 2, one line', async () => {
    const { cli, taskQueue } = session({ AGENT_CONFIG_LOAD_TIMEOUT: '1s' });
    const stringSchema = await badConfig(
      'string-schema.mjs',
      "export default { tools: [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'string' }, execute: async (x) => String(x) }] };\n",
    );
    const hangs = await badConfig('hangs.mjs', 'await new Promise(() => {});\nexport default {};\n');
    const exits = await badConfig('exits.mjs', 'process.exit(0);\nexport default {};\n');
    const unsetVar = await badConfig(
      'unset-var.mjs',
      "export default { mcpServers: { files: { command: 'node', args: ['x.js'], env: { TOKEN: '${NO_SUCH_VAR_26}' } } } };\n",
    );
    const schema = /string-schema\.mjs: Tool "echo" has an input schema of type "string": the Messages API takes only an object schema/;
    const cases: Array<[string[], RegExp]> = [
      [['start', '--config', stringSchema, 'x'], schema],
      [['run', '--scripted', '--config', stringSchema, 'x'], schema],
      [['worker', '--scripted', '--config', stringSchema], schema],
      [['start', '--config', hangs, 'x'], /hangs\.mjs did not finish loading within 1 s: a top-level await in it never settles/],
      [['start', '--config', exits, 'x'], /exits\.mjs called process\.exit\(0\) while loading: a config file must export its config/],
      [['worker', '--scripted', '--config', unsetVar], /mcpServers\.files\.env\.TOKEN refers to \$\{NO_SUCH_VAR_26\}, but the environment variable NO_SUCH_VAR_26 is not set/],
      [['run', '--scripted', '--config', unsetVar, 'x'], /NO_SUCH_VAR_26 is not set on this worker/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    results.forEach((exit, i) => {
      expectUsageError(exit, cases[i][1]);
      expect(exit.stderr.trim().split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    });
    expect((await client().workflow.count(`TaskQueue = "${taskQueue}"`)).count).toBe(0);
  });
});
