// Bad input is one line on stderr, exit 2, nothing on stdout and nothing started: a namespace that does not exist,
// an AGENT_SCRIPT that is garbage, missing, a directory or empty, `--tools ""`, a bad `--webhook`, a task too large for one payload.
// A long task can come from a file or standard input. An endpoint that answers 200 with something other than a
// Messages API message fails the run at once, naming the endpoint (not after minutes of retries).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentInput } from '../../src/core/types.js';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';

const { client, session, scriptFile } = useCli();
const STACK_FRAME = /\n\s+at .+:\d+:\d+/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bad-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runsOn(taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of client().workflow.list({ query: `TaskQueue = "${taskQueue}"` })) ids.push(run.workflowId);
  return ids;
}

async function taskOf(workflowId: string): Promise<string> {
  const history = await client().workflow.getHandle(workflowId).fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  return defaultPayloadConverter.fromPayload<AgentInput>(started.input!.payloads![0]).task;
}

describe('bad input: one line, exit 2', () => {
  it('a namespace that does not exist: start, worker, status and result name it, without a Status{…} dump', async () => {
    const { cli } = session({ TEMPORAL_NAMESPACE: 'no-such-namespace' });
    const exits = await Promise.all([
      cli(['start', 'a task']),
      cli(['worker', '--scripted']),
      cli(['status', 'some-id']),
      cli(['result', 'some-id']),
    ]);
    for (const exit of exits) {
      expectUsageError(exit, /namespace "no-such-namespace" does not exist on the Temporal server at .*TEMPORAL_NAMESPACE/);
      expect(exit.stderr).not.toMatch(/Status\{|STACK/);
      expect(exit.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it('an AGENT_SCRIPT that is garbage, missing, a directory or [] is refused before anything starts (run and worker)', async () => {
    const { cli, taskQueue } = session();
    const garbage = path.join(dir, 'garbage.json');
    await writeFile(garbage, 'this is {not json');
    const cases: Array<[string, RegExp]> = [
      [garbage, /AGENT_SCRIPT: .*garbage\.json: not valid JSON/],
      [path.join(dir, 'missing.json'), /AGENT_SCRIPT: .*missing\.json: cannot read the script file/],
      [dir, /AGENT_SCRIPT: .*cannot read the script file.*EISDIR/],
      [await scriptFile([]), /AGENT_SCRIPT: .*holds no turns/],
      [await scriptFile({ content: [] }), /AGENT_SCRIPT: .*must hold a JSON array of turns/],
    ];
    const exits = await Promise.all(
      cases.flatMap(([file]) => [
        cli(['run', '--scripted', 'a task'], { AGENT_SCRIPT: file }),
        cli(['worker', '--scripted'], { AGENT_SCRIPT: file }),
      ]),
    );
    exits.forEach((exit, i) => {
      expectUsageError(exit, cases[Math.floor(i / 2)][1]);
      expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    });
    expect(await runsOn(taskQueue)).toEqual([]);
  });

  it('--tools "" (no tool names) is refused rather than starting a run without tools', async () => {
    const { cli, taskQueue } = session();
    const [run, start] = await Promise.all([cli(['run', '--scripted', '--tools', '', 'a task']), cli(['start', '--tools=', 'a task'])]);
    expectUsageError(run, /--tools needs at least one name/);
    expectUsageError(start, /--tools needs at least one name/);
    expect(await runsOn(taskQueue)).toEqual([]);
  });

  it('--webhook that is not an http(s) URL, or holds credentials, is one line naming the flag (start, run, serve); repeated, it adds up', async () => {
    const { cli, taskQueue } = session();
    const exits = await Promise.all([
      cli(['start', '--webhook', 'ftp://example.com/h', 'a task']),
      cli(['run', '--scripted', '--webhook=https://user:pw@example.com/h', 'a task']),
      cli(['serve', '--insecure-no-auth', '--webhook', 'not a url']),
    ]);
    expectUsageError(exits[0], /--webhook "ftp:\/\/example.com\/h" is not an http:\/\/ or https:\/\/ URL/);
    expectUsageError(exits[1], /--webhook .* holds credentials/);
    expectUsageError(exits[2], /--webhook "not a url" is not an http/);
    for (const exit of exits) expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    expect(await runsOn(taskQueue)).toEqual([]);
    const started = await cli(['start', '--json', '--tools', 'calculator', '--webhook', 'https://a.example/h', '--webhook', 'https://b.example/h', 'a task']);
    expectExit(started, 0);
    const { workflowId } = jsonOf<{ workflowId: string }>(started);
    const history = await client().workflow.getHandle(workflowId).fetchHistory();
    const input = defaultPayloadConverter.fromPayload<AgentInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
    expect(input.settings.webhooks).toEqual(['https://a.example/h', 'https://b.example/h']);
    await client().workflow.getHandle(workflowId).terminate('test over');
  });

  it('--compact-at below 5,000, above the model window, or with --no-compaction is one line naming the flag', async () => {
    const { cli, taskQueue } = session();
    const exits = await Promise.all([
      cli(['start', '--compact-at', '4999', 'a task']),
      cli(['run', '--scripted', '--compact-at=250000', 'a task']),
      cli(['start', '--compact-at', '50000', '--no-compaction', 'a task']),
    ]);
    expectUsageError(exits[0], /--compact-at must be at least 5000/);
    expectUsageError(exits[1], /--compact-at 250000 is above the context window of claude-sonnet-5-5 \(200000 tokens\)/);
    expectUsageError(exits[2], /--compact-at cannot be given with --no-compaction/);
    for (const exit of exits) expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    expect(await runsOn(taskQueue)).toEqual([]);
  });

  it('a 5 MB task, from a file or from standard input, is refused before any run starts, naming the 2 MB payload limit', async () => {
    const { cli, taskQueue } = session();
    const big = 'x'.repeat(5_000_000);
    const file = path.join(dir, 'big-task.txt');
    await writeFile(file, big);
    const [fromFile, fromStdin, run] = await Promise.all([
      cli(['start', '--task-file', file]),
      cli(['start', '-'], {}, big),
      cli(['run', '--scripted', '--task-file', file]),
    ]);
    for (const exit of [fromFile, fromStdin, run]) {
      expectUsageError(exit, /the task is 5\.0 MB: a run's input \(task and settings\) is one Temporal payload, at most 2 MB/);
    }
    expect(await runsOn(taskQueue)).toEqual([]);
  });

  it('--task-file that is missing or a directory, and a task given twice, are one-line errors', async () => {
    const { cli } = session();
    const [missing, directory, both, empty] = await Promise.all([
      cli(['start', '--task-file', path.join(dir, 'nope.txt')]),
      cli(['start', '--task-file', dir]),
      cli(['start', '--task-file', path.join(dir, 'nope.txt'), 'a task']),
      cli(['start', '-']),
    ]);
    expectUsageError(missing, /--task-file: cannot read .*nope\.txt: ENOENT/);
    expectUsageError(directory, /--task-file .* is a directory/);
    expectUsageError(both, /either as an argument or with --task-file, not both/);
    expectUsageError(empty, /the task is empty \(nothing on standard input\)/);
  });
});

describe('a long task from a file or standard input', () => {
  it('start --task-file FILE and start - carry the whole text (300 KB, beyond what argv takes) into the run', async () => {
    const { cli } = session();
    const task = `Review this.\n${'a line of a long document\n'.repeat(12_000)}THE END`;
    const file = path.join(dir, 'long-task.md');
    await writeFile(file, task);
    const [fromFile, fromStdin, dashFile] = await Promise.all([
      cli(['start', '--task-file', file]),
      cli(['start', '-'], {}, task),
      cli(['start', '--task-file', '-', '--json'], {}, task),
    ]);
    for (const exit of [fromFile, fromStdin, dashFile]) expectExit(exit, 0);
    const ids = [fromFile.stdout.trim(), fromStdin.stdout.trim(), jsonOf<{ workflowId: string }>(dashFile).workflowId];
    for (const id of ids) expect(await taskOf(id)).toBe(task);
    await Promise.all(ids.map((id) => client().workflow.getHandle(id).terminate('test cleanup')));
  });
});

describe('an endpoint that does not speak the Messages API', () => {
  let server: Server;
  let url: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      req.resume();
      if (req.url?.startsWith('/html')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html><body>Welcome to nginx!</body></html>');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a 200 with an HTML page or {} fails the run at once (one request, not retried), naming the endpoint', async () => {
    // Two sessions: each `run` hosts a worker, which must not take the other's run.
    const [html, empty] = await Promise.all([
      session({ ANTHROPIC_API_KEY: 'test-key' }).cli(['run', '--json', 'a task'], { ANTHROPIC_BASE_URL: `${url}/html` }),
      session({ ANTHROPIC_API_KEY: 'test-key' }).cli(['run', '--json', 'a task'], { ANTHROPIC_BASE_URL: `${url}/empty` }),
    ]);
    for (const [exit, base, what] of [
      [html, `${url}/html`, /an HTML page/],
      [empty, `${url}/empty`, /a JSON object without content, usage, stop_reason/],
    ] as const) {
      expectExit(exit, 1);
      const doc = jsonOf<{ status: string; error: string }>(exit);
      expect(doc.status).toBe('failed');
      expect(doc.error).toContain(`the endpoint ${base} did not answer like the Messages API`);
      expect(doc.error).toMatch(what);
      expect(doc.error).toContain('ANTHROPIC_BASE_URL');
    }
    expect(requests.filter((r) => r.startsWith('/html')).length).toBe(1);
    expect(requests.filter((r) => r.startsWith('/empty')).length).toBe(1);
  });
});

describe('bad sub-agents in the config: one line at load time naming it, exit 2, nothing started', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['an agent name that is not a valid tool name', `{ 'research team': { description: 'd' } }`, /agent name "research team" is not a valid tool name/],
    ['a sub-agent naming a tool that does not exist', `{ researcher: { description: 'd', tools: ['wether'] } }`, /agents\.researcher\.tools names "wether", which is not a tool/],
    ['a sub-agent naming an agent that does not exist', `{ researcher: { description: 'd', tools: ['agent__writer'] } }`, /agents\.researcher\.tools names agent__writer, but there is no agent "writer"/],
    ['a cycle', `{ a: { description: 'd', tools: ['agent__b'] }, b: { description: 'd', tools: ['agent__a'] } }`, /agents: a → b → a is a cycle/],
    [
      'a chain deeper than the depth limit',
      `{ a: { description: 'd', tools: ['agent__b'] }, b: { description: 'd', tools: ['agent__c'] }, c: { description: 'd' } }`,
      /agents\.a delegates 3 levels deep, beyond the depth limit of 2/,
    ],
  ];
  it.each(cases)('%s', async (_what, agents, message) => {
    const { cli, taskQueue } = session();
    const file = path.join(dir, `agents-${cases.findIndex((c) => c[1] === agents)}.config.mjs`);
    await writeFile(file, `export default { agents: ${agents} };\n`);
    const exits = await Promise.all([cli(['start', '--config', file, 'a task']), cli(['worker', '--config', file])]);
    for (const exit of exits) {
      expectUsageError(exit, message);
      expect(exit.stderr.trim().split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    }
    expect(await runsOn(taskQueue)).toEqual([]);
  });

  it('--agents naming an agent the config does not define', async () => {
    const { cli } = session();
    const file = path.join(dir, 'agents-ok.config.mjs');
    await writeFile(file, `export default { agents: { researcher: { description: 'd', tools: ['calculator'] } } };\n`);
    expectUsageError(await cli(['start', '--config', file, '--agents', 'reseacher', 'a task']), /unknown agent "reseacher" \(did you mean "researcher"\?\) in --agents/);
  });
});
