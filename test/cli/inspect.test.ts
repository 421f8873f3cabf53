// `status`, `transcript`, `watch` and `list`, run from the build as child processes against runs that a spawned
// `worker --scripted` executes (or that no worker runs at all).
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { getStatus, getTranscript, type RunSummary, type StatusReport } from '../../src/client/index.js';
import type { MessageParam } from '../../src/core/types.js';
import {
  endTurn,
  expectExit,
  expectUsageError,
  jsonOf,
  stopWorker,
  toolTurn,
  until,
  useCli,
  type CliProcess,
} from '../helpers/cli.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const cli = useCli();
const env = useTestEnv();

/** A run that calls the calculator once, then answers: started with `start`, run by a spawned worker. */
const TWO_STEPS = [toolTurn('6*7', 'let me compute'), endTurn('the answer is 42')];

describe.concurrent('status, transcript, watch, list (the built CLI)', { timeout: 120_000 }, () => {
  it('status of a run whose model call is in flight is live: steps, tokens, stop reason, last text; --json is the report', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    let id: string | undefined;
    try {
      // Step 2's model call is held (never answered): the run stays mid-call while the test looks at it.
      worker = await s.worker([toolTurn('1+1', 'computing first'), { ...endTurn('never sent'), hold: true }]);
      id = await s.startedId(['a slow second step']);
      // Step 1 (the tool call) is done once the transcript holds 3 messages.
      await until(async () => {
        const r = await getStatus(cli.client(), id!);
        return r.live && r.view.messages === 3;
      }, 'the first tool call is done');
      const json = await s.cli(['status', id, '--json']);
      expectExit(json, 0);
      const report = jsonOf<StatusReport>(json);
      if (!report.live) throw new Error(`status is not live: ${json.stdout}`);
      const view = report.view;
      expect(view.workflowId).toBe(id);
      expect(view.status).toBe('running');
      expect(view.steps).toBe(1);
      expect(view.toolCalls).toBe(1);
      expect(view.stopReason).toBe('tool_use');
      expect(view.usage.input_tokens).toBeGreaterThan(0);
      expect(view.lastText).toBe('computing first');
      expect(view.pendingApprovals).toEqual([]);
      expect(view.inFlight).toEqual([]);
      const handle = cli.client().workflow.getHandle(id);
      expect(((await handle.describe()).raw.pendingActivities ?? []).length).toBe(1); // the held model call

      const human = await s.cli(['status', id]);
      expectExit(human, 0);
      expect(human.stdout).toMatch(new RegExp(`^${id} · run \\S+\\n`));
      expect(human.stdout).toMatch(/^status: +running$/m);
      expect(human.stdout).toMatch(/^steps: +1 model call · 1 tool call$/m);
      expect(human.stdout).toMatch(/^tokens: +[\d,]+ \(input /m);
      expect(human.stdout).toMatch(/^cost: +\$\d/m);
      expect(human.stdout).toMatch(/^last stop reason: +tool_use$/m);
      expect(human.stdout).toMatch(/^guard: +none$/m);
      expect(human.stdout).toMatch(/^in flight: +none$/m);
      expect(human.stdout).toMatch(/^pending approvals: +none$/m);
      expect(human.stdout).toMatch(/^runs used: +1$/m);
      expect(human.stdout).toMatch(/^time left: +no deadline$/m);
      expect(human.stdout).toMatch(/last assistant text:\n {2}computing first/);
      expect(human.stdout).not.toMatch(/unavailable/);
      expect(human.stderr).not.toMatch(/unavailable/);
    } finally {
      if (id) await cli.client().workflow.getHandle(id).terminate('test cleanup');
      worker?.kill('SIGKILL');
    }
  });

  it('status of a running run with no worker answers from its history, saying no worker answered', async ({ expect }) => {
    const s = cli.session();
    const started = await s.cli(['start', '--deadline', '1h', 'nobody runs this']);
    expectExit(started, 0);
    const id = started.stdout.trim();
    try {
      const [human, json] = await Promise.all([s.cli(['status', id]), s.cli(['status', id, '--json'])]);
      for (const exit of [human, json]) {
        expectExit(exit, 0);
        // The query waits 3 s for a worker, then the history is read and replayed (a hang would be the test's timeout).
        expect(exit.stderr).toMatch(/no worker answered the status query within 3000 ms/);
        expect(exit.stderr).toMatch(/Is a worker running/);
      }
      expect(human.stdout).toMatch(/^\(read from the run's history: no worker answered/m);
      expect(human.stdout).toMatch(/^status: +running$/m);
      expect(human.stdout).toMatch(/^steps: +0 model calls · 0 tool calls$/m);
      expect(human.stdout).toMatch(/^time left: +\d+m/m);
      expect(human.stdout).toContain(id);
      const report = jsonOf<StatusReport>(json);
      expect(report.live).toBe(false);
      if (report.live) return;
      expect(report.workflowId).toBe(id);
      expect(report.executionStatus).toBe('RUNNING');
      expect(report.reason).toMatch(/no worker answered the status query within 3000 ms/);
      expect(report.view).toMatchObject({ workflowId: id, status: 'running', steps: 0, messages: 1 });
    } finally {
      await cli.client().workflow.getHandle(id).terminate('test cleanup');
    }
  });

  it('after `run` (its worker gone with it), transcript, status and result read the run from the server, without waiting for a worker', async ({ expect }) => {
    const s = cli.session();
    const script = { AGENT_SCRIPT: await cli.scriptFile(TWO_STEPS) };
    const run = await s.cli(['run', '--scripted', '--json', 'what is 6 times 7'], script);
    expectExit(run, 0);
    const id = jsonOf<{ workflowId: string }>(run).workflowId;
    // No worker polls this session's task queue any more; nor is there an API key. That a closed run is read
    // without first waiting for a worker's answer is proven in test/client/history.test.ts (with a query
    // timeout no test could wait out); here, that the CLI reads it at all and says nothing of workers.
    const transcript = await s.cli(['transcript', id, '--json']);
    expectExit(transcript, 0);
    expect(jsonOf<MessageParam[]>(transcript).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(jsonOf(transcript))).toContain('the answer is 42');
    expect(transcript.stderr).not.toMatch(/worker/);

    const [status, result] = await Promise.all([s.cli(['status', id]), s.cli(['result', id, '--json'])]);
    expectExit(status, 0);
    expect(status.stdout).toMatch(/^status: +completed$/m);
    expect(status.stdout).toMatch(/^steps: +2 model calls · 1 tool call$/m);
    expect(status.stdout).toMatch(/last assistant text:\n {2}the answer is 42/);
    expect(status.stderr).not.toMatch(/worker/);
    expectExit(result, 0);
    expect(jsonOf(result)).toMatchObject({ status: 'completed', text: 'the answer is 42', steps: 2 });
  });

  it('a terminated run: status says terminated with the reason, result --json says terminated (exit 1), list marks it', async ({ expect }) => {
    const s = cli.session();
    const id = await s.startedId(['nobody runs this either']);
    await cli.client().workflow.getHandle(id).terminate('stopped by the on-call engineer');
    const [status, result] = await Promise.all([s.cli(['status', id]), s.cli(['result', id, '--json'])]);
    expectExit(status, 0);
    expect(status.stdout).toMatch(/^status: +terminated$/m);
    expect(status.stdout).toMatch(/^terminated: +stopped by the on-call engineer/m);
    expectExit(result, 1);
    expect(jsonOf(result)).toMatchObject({
      status: 'terminated',
      steps: 0,
      text: '',
      error: 'terminated by an operator: stopped by the on-call engineer',
    });
    await until(async () => {
      const list = await s.cli(['list', '--status', 'terminated', '--limit', '1000']);
      return list.stdout.split('\n').some((l) => new RegExp(`^${id} +terminated +`).test(l));
    }, 'list --status terminated shows the run as terminated');
  });

  it('transcript --json is the array of messages of a finished run; the readable form shows roles, tool calls and results', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker(TWO_STEPS);
      const started = await s.cli(['start', 'what is 6 times 7']);
      const id = started.stdout.trim();
      const result = await s.cli(['result', id, '--json']);
      expectExit(result, 0);

      const [json, human] = await Promise.all([s.cli(['transcript', id, '--json']), s.cli(['transcript', id])]);
      expectExit(json, 0);
      const messages = jsonOf<MessageParam[]>(json);
      expect(messages).toEqual([
        { role: 'user', content: 'what is 6 times 7' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'let me compute' },
            { type: 'tool_use', id: 'toolu_0_1', name: 'calculator', input: { expression: '6*7' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0_1', content: '42' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'the answer is 42' }] },
      ]);
      // The same as the client API reads.
      expect(messages).toEqual(await getTranscript(cli.client(), id));

      expectExit(human, 0);
      const blocks = human.stdout.split(/^── /m).filter(Boolean);
      expect(blocks).toHaveLength(4);
      expect(blocks[0]).toMatch(/^1\. user ──\nwhat is 6 times 7/);
      expect(blocks[1]).toMatch(/^2\. assistant ──\nlet me compute\n\[tool_use calculator\] \{"expression":"6\*7"\}/);
      expect(blocks[2]).toMatch(/^3\. user ──\n\[tool_result calculator\] \(toolu_0_1\) 42/);
      expect(blocks[3]).toMatch(/^4\. assistant ──\nthe answer is 42/);
      expect(human.stdout).not.toMatch(/ERROR/);
    } finally {
      await stopWorker(worker);
    }
  });

  it('transcript marks an error result and shows thinking as [thinking]', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([
        {
          content: [
            { type: 'thinking', thinking: 'secret reasoning', signature: 'sig' },
            { type: 'tool_use', name: 'calculator', input: { expression: '1/' } },
          ],
          stop_reason: 'tool_use',
        },
        endTurn('could not compute'),
      ]);
      const id = (await s.cli(['start', '--thinking', '1024', 'break the calculator'])).stdout.trim();
      expectExit(await s.cli(['result', id]), 0);
      const human = await s.cli(['transcript', id]);
      expectExit(human, 0);
      expect(human.stdout).toMatch(/^\[thinking\]$/m);
      expect(human.stdout).not.toContain('secret reasoning');
      expect(human.stdout).toMatch(/^\[tool_result calculator ERROR\] \(toolu_0_1\) /m);
    } finally {
      await stopWorker(worker);
    }
  });

  it('transcript shows a compaction as one line and keeps every earlier message; status counts compactions', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      // 24 KB of text in the first reply: the second request's prompt (about 6,000 tokens) passes --compact-at 5000.
      worker = await s.worker([toolTurn('1+1', `notes ${'n'.repeat(24_000)}`), toolTurn('2+2', 'adding again'), endTurn('four')]);
      const id = (await s.cli(['start', '--compact-at', '5000', 'take long notes'])).stdout.trim();
      expectExit(await s.cli(['result', id]), 0);
      const human = await s.cli(['transcript', id]);
      expectExit(human, 0);
      expect(human.stdout).toMatch(/^— compacted \d{1,3},\d{3} tokens into a \d+-token summary —$/m);
      expect(human.stdout).toMatch(/^── 1\. user ──\ntake long notes$/m); // nothing before the compaction is lost
      expect(human.stdout).toContain('n'.repeat(24_000));
      const status = await s.cli(['status', id]);
      expect(status.stdout).toMatch(/^compactions: +1 · prompt now [\d,]+ tokens$/m);
    } finally {
      await stopWorker(worker);
    }
  });

  it('watch follows a run started elsewhere step by step (model calls, tool calls with results) and ends with the result line and its exit code', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      const started = await s.cli(['start', 'watch me work']);
      const id = started.stdout.trim();
      // watch is up before any worker: it waits, then follows.
      const watch = s.background(['watch', id]);
      await watch.waitForStderr(/waiting: no worker answered/);
      worker = await s.worker([toolTurn('2+3', 'adding'), toolTurn('5*2', 'doubling'), endTurn('ten')]);
      const exit = await watch.exited;
      expectExit(exit, 0);
      const lines = exit.stdout.trimEnd().split('\n');
      expect(lines).toEqual([
        'task: watch me work',
        // Tokens show on the step a poll ended on (several steps may finish between two polls).
        expect.stringMatching(/^step 1 · model call · tool_use( · [\d,]+ tokens( \([\d,]+ in all\)| in all))?$/),
        '  adding',
        '  → calculator {"expression":"2+3"}  (toolu_0_1)',
        '  ← calculator: 5',
        expect.stringMatching(/^step 2 · model call · tool_use( · .*)?$/),
        '  doubling',
        '  → calculator {"expression":"5*2"}  (toolu_1_1)',
        '  ← calculator: 10',
        expect.stringMatching(/^step 3 · model call · end_turn · [\d,]+ tokens/),
        '  ten',
        'ten',
        '',
        expect.stringMatching(new RegExp(`^— completed on end_turn · 3 model calls · 2 tool calls · [\\d,]+ tokens · ${id}$`)),
      ]);
    } finally {
      await stopWorker(worker);
    }
  });

  it('status and watch show the words of a streaming model call while it runs (its heartbeat details)', async ({ expect }) => {
    const s = cli.session();
    const answer = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    // The stream stops after 20 events until the test releases it: the call is mid-stream, its words in its
    // heartbeat details, for as long as `watch` and `status` take to read them. The worker is in this process
    // (on the session's task queue) so the test can release it.
    const script = [{ ...reply([text(answer)]), eventDelayMs: 20, holdAfterEvents: 20 }];
    await withAgent(env, { script, taskQueue: s.taskQueue }, async (h) => {
      const id = await s.startedId(['talk slowly', '--heartbeat-timeout', '3s']);
      const watch = s.background(['watch', id]);
      const [progressLine, watchedWords] = await watch.waitForStdout(/^ {2}… model call attempt \d+ · text · ~\d+ output tokens · [^:]+: (.+)$/m);
      expect(answer).toContain(watchedWords.replace(/^…/, ''));

      const status = await s.cli(['status', id]);
      expectExit(status, 0);
      expect(status.stdout).toMatch(/^model call: +attempt \d+ · text · ~\d+ output tokens · /m);
      const [, statusWords] = status.stdout.match(/^ {2}"(.+)"$/m) ?? [];
      expect(answer).toContain(statusWords.replace(/^…/, ''));

      h.model.release();
      const exit = await watch.exited;
      expectExit(exit, 0);
      expect(exit.stdout).toContain(progressLine);
      // The progress lines come before the step they belong to, which then shows the whole reply.
      expect(exit.stdout.indexOf(progressLine)).toBeLessThan(exit.stdout.search(/^step 1 · model call · end_turn/m));
    });
  });

  it('status and watch during a long local model call (--local-model-calls): the worker is busy, not missing, and watch follows the run to its end', async ({ expect }) => {
    const s = cli.session();
    const script = [reply([text('computing'), toolUse('calculator', { expression: '1+1' })]), { ...reply([text('two')]), hold: true }];
    await withAgent(env, { script, taskQueue: s.taskQueue }, async (h) => {
      const id = await s.startedId(['a held local call', '--local-model-calls', '--tools', 'calculator']);
      await h.model.waitForHeld(1, 20_000); // step 2's call runs inside a workflow task, held
      const task = (await env.client.workflow.getHandle(id).describe()).raw.pendingWorkflowTask?.startedTime;
      expect(task, 'the held call runs inside a started workflow task').toBeTruthy();
      const taskStartedMs = Number(task?.seconds ?? 0) * 1000 + Math.floor((task?.nanos ?? 0) / 1e6);
      const status = await s.cli(['status', id]);
      expectExit(status, 0);
      expect(status.stderr).not.toMatch(/Is a worker running/);
      // Until the task's first heartbeat (8 s after it started) the worker cannot answer, and status says why; on a
      // slow machine the command may outlast that, and the worker's answer is then the live one.
      if (Date.now() < taskStartedMs + 7_500) {
        expect(status.stderr).toMatch(/^note: its worker is inside a workflow task \(a local model call, for one\).*: showing the state recorded in its history\.$/m);
      }
      expect(status.stdout).toMatch(new RegExp(`^${id} · run \\S+\\n`));
      const watch = s.background(['watch', id]);
      await watch.waitForStdout(/^ {2}← calculator: 2$/m);
      h.model.release();
      const exit = await watch.exited;
      expectExit(exit, 0);
      expect(exit.stdout).toMatch(/^step 2 · model call · end_turn/m);
      expect(exit.stderr).not.toMatch(/waiting:/);
    });
  });

  it('watch shows approvals waiting and a guard, and exits 3 for a stopped run', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([toolTurn('1+1'), toolTurn('2+2'), endTurn('never reached')]);
      const id = (await s.cli(['start', '--approve', 'calculator', '--max-steps', '1', '--summary-on', 'none', 'guarded'])).stdout.trim();
      const watch = s.background(['watch', id]);
      const [, toolUseId] = await watch.waitForStdout(/^awaiting approval: calculator \{"expression":"1\+1"\} \((\S+)\)/m);
      expectExit(await s.cli(['approve', id, toolUseId]), 0);
      const exit = await watch.exited;
      expectExit(exit, 3);
      expect(exit.stdout).toMatch(/^ {2}← calculator: 2$/m);
      expect(exit.stdout).toMatch(/^guard max_steps stopped the run$/m);
      expect(exit.stdout).toMatch(/^— stopped by guard max_steps/m);
    } finally {
      await stopWorker(worker);
    }
  });

  it('list shows a finished run with its AgentStatus, steps, tokens and stop reason; --status filters; --json is the array', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    let id: string;
    try {
      worker = await s.worker(TWO_STEPS);
      id = (await s.cli(['start', 'list me'])).stdout.trim();
      expectExit(await s.cli(['result', id]), 0);
    } finally {
      await stopWorker(worker);
    }
    let summary: RunSummary | undefined;
    // Visibility is eventually consistent: the final search attributes may take a moment to show.
    await until(async () => {
      const exit = await s.cli(['list', '--status', 'completed', '--limit', '1000', '--json']);
      expectExit(exit, 0);
      summary = jsonOf<RunSummary[]>(exit).find((r) => r.workflowId === id);
      return summary !== undefined;
    }, 'list --status completed shows the run');
    expect(summary!.attributes).toMatchObject({ status: 'completed', steps: 2, stopReason: 'end_turn' });
    expect(summary!.attributes.tokens).toBeGreaterThan(0);
    expect(summary!.executionStatus).toBe('COMPLETED');

    const [human, stopped] = await Promise.all([
      s.cli(['list', '--limit', '1000']),
      s.cli(['list', '--status', 'stopped', '--limit', '1000', '--json']),
    ]);
    expectExit(human, 0);
    expect(human.stdout.split('\n')[0]).toMatch(/^WORKFLOW ID +STATUS +STEPS +TOKENS +COST +STOP REASON +GUARD +STARTED( +BUILD ID)?( +PARENT)?$/);
    const row = human.stdout.split('\n').find((l) => l.startsWith(`${id} `));
    // Other test files' runs share the namespace: a sub-agent's child among them adds a PARENT column, a run of a
    // versioned worker a BUILD ID column (— for this run).
    expect(row).toMatch(new RegExp(`^${id} +completed +2 +[\\d,]+ +\\$\\d+\\.\\d{4} +end_turn +— +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ( +—){0,2}$`));
    expectExit(stopped, 0);
    expect(jsonOf<RunSummary[]>(stopped).some((r) => r.workflowId === id)).toBe(false);
  });

  it('unknown workflow id, a bad flag or an unreachable server: exit 2 with empty stdout', async () => {
    const s = cli.session();
    const id = `no-such-run-${randomUUID()}`;
    const exits = await Promise.all([
      s.cli(['status', id]),
      s.cli(['transcript', id, '--json']),
      s.cli(['watch', id]),
    ]);
    for (const exit of exits) expectUsageError(exit, new RegExp(`no run with id "${id}"`));
    expectUsageError(await s.cli(['list', '--status', 'sleeping']), /--status must be one of/);
    expectUsageError(await s.cli(['list', '--limit', '0']), /--limit must be at least 1/);
    expectUsageError(await s.cli(['status']), /missing workflowId/);
    const off = cli.session({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const down = await Promise.all([off.cli(['status', 'x']), off.cli(['list']), off.cli(['watch', 'x'])]);
    for (const exit of down) expectUsageError(exit, /127\.0\.0\.1:1\b.*does not answer/);
  });
});
