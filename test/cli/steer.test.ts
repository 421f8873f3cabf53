// `approve`, `deny`, `send`, `close`, `cancel`, `resume`, and the `--approve`, `--chat`, `--idle-timeout` flags of
// run/start: the built CLI as child processes, with a spawned `worker --scripted` running the runs.
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { getStatus, type StatusReport } from '../../src/client/index.js';
import type { AgentInput, AgentResult, AgentStatusView, MessageParam, ToolResultBlockParam } from '../../src/core/types.js';
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
import { eventKinds } from '../helpers/history.js';

const cli = useCli();

/** Waits (through the client API: cheaper than a process per poll) until the live view satisfies `ok`. */
async function statusUntil(id: string, what: string, ok: (view: AgentStatusView) => boolean): Promise<AgentStatusView> {
  let view: AgentStatusView | undefined;
  await until(async () => {
    const report = await getStatus(cli.client(), id);
    view = report.live ? report.view : undefined;
    return view !== undefined && ok(view);
  }, what);
  return view!;
}

async function inputOf(id: string): Promise<AgentInput> {
  const history = await cli.client().workflow.getHandle(id).fetchHistory();
  const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  return cli.client().options.loadedDataConverter.payloadConverter.fromPayload<AgentInput>(payload);
}

describe.concurrent('approve, deny, send, close, cancel, resume (the built CLI)', { timeout: 120_000 }, () => {
  it('start --approve calculator: status shows the pending approval; a bogus toolUseId is refused (exit 2); approve runs it and the run completes', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([toolTurn('6*7'), endTurn('42 it is')]);
      const id = await s.startedId(['--approve', 'calculator', 'multiply with approval']);
      expect((await inputOf(id)).settings.approve).toEqual(['calculator']);

      await statusUntil(id, 'the tool call waits for approval', (v) => v.pendingApprovals.length > 0);
      const json = await s.cli(['status', id, '--json']);
      expectExit(json, 0);
      const report = jsonOf<StatusReport>(json);
      if (!report.live) throw new Error(`status is not live: ${json.stdout}`);
      const view = report.view;
      expect(view.status).toBe('awaiting_approval');
      expect(view.pendingApprovals).toEqual([{ toolUseId: 'toolu_0_1', name: 'calculator', input: { expression: '6*7' } }]);
      expect(view.toolCalls).toBe(0);
      const human = await s.cli(['status', id]);
      expect(human.stdout).toMatch(/^status: +awaiting_approval$/m);
      expect(human.stdout).toMatch(/^pending approvals: +1$/m);
      expect(human.stdout).toMatch(/^ {2}toolu_0_1 {2}calculator \{"expression":"6\*7"\}$/m);

      const bogus = await s.cli(['approve', id, 'toolu_bogus']);
      expectUsageError(bogus, /no tool call toolu_bogus is waiting for approval \(pending: toolu_0_1\)/);

      const approved = await s.cli(['approve', id]);
      expectExit(approved, 0);
      expect(approved.stdout).toBe('approved toolu_0_1\n');

      const result = await s.cli(['result', id, '--json']);
      expectExit(result, 0);
      const doc = jsonOf<AgentResult>(result);
      expect(doc.status).toBe('completed');
      expect(doc.toolCalls).toBe(1);
      expect(doc.text).toBe('42 it is');
    } finally {
      await stopWorker(worker);
    }
  });

  it('two calls waiting: approve without a toolUseId is refused, a decided call cannot be decided again; each result follows its decision', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([
        {
          content: [
            { type: 'tool_use', name: 'calculator', input: { expression: '2+2' } },
            { type: 'tool_use', name: 'calculator', input: { expression: '3+3' } },
          ],
          stop_reason: 'tool_use',
        },
        endTurn('one of two'),
      ]);
      const id = await s.startedId(['--approve', 'calculator', 'two calls']);
      await statusUntil(id, 'both calls wait', (v) => v.pendingApprovals.length === 2);
      expectUsageError(await s.cli(['approve', id]), /2 tool calls are waiting for approval: name one of toolu_0_0, toolu_0_1/);
      expect((await s.cli(['approve', id, 'toolu_0_0'])).stdout).toBe('approved toolu_0_0\n');
      expectUsageError(await s.cli(['deny', id, 'toolu_0_0']), /tool call toolu_0_0 has already been decided/);
      expect((await s.cli(['deny', id, '--reason', 'not this one'])).stdout).toBe('denied toolu_0_1\n');
      expectExit(await s.cli(['result', id]), 0);
      const messages = jsonOf<MessageParam[]>(await s.cli(['transcript', id, '--json']));
      expect(messages[2].content).toEqual([
        { type: 'tool_result', tool_use_id: 'toolu_0_0', content: '4' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_0_1',
          content: 'A human reviewer denied this call to calculator: not this one',
          is_error: true,
        },
      ]);
    } finally {
      await stopWorker(worker);
    }
  });

  it('deny --reason "no": the model\'s next request carries an is_error tool_result with the reason', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([toolTurn('1+1'), endTurn('fine, I will not')]);
      const id = await s.startedId(['--approve', 'calculator', 'deny me']);
      await statusUntil(id, 'the tool call waits for approval', (v) => v.pendingApprovals.length === 1);
      const denied = await s.cli(['deny', id, 'toolu_0_1', '--reason', 'no']);
      expectExit(denied, 0);
      expect(denied.stdout).toBe('denied toolu_0_1\n');
      expectExit(await s.cli(['result', id]), 0);

      const transcript = await s.cli(['transcript', id, '--json']);
      expectExit(transcript, 0);
      const messages = jsonOf<MessageParam[]>(transcript);
      expect(messages).toHaveLength(4);
      const results = messages[2].content as ToolResultBlockParam[];
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_0_1', is_error: true });
      expect(results[0].content).toMatch(/denied.*: no$/);
      // The model's second request ended with that message: it answered turn 1.
      expect(messages[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'fine, I will not' }] });
    } finally {
      await stopWorker(worker);
    }
  });

  it('start --chat: the run waits after its answer; send adds a user turn, close ends it; the transcript has both user turns', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([endTurn('hello there'), endTurn('the second answer')]);
      const id = await s.startedId(['--chat', '--idle-timeout', '5m', 'say hello']);
      expect((await inputOf(id)).settings).toMatchObject({ chat: true, idleTimeoutMs: 300_000 });
      await statusUntil(id, 'the chat waits for a message', (v) => v.waitingForMessage);

      const sent = await s.cli(['send', id, 'and once more']);
      expectExit(sent, 0);
      expect(sent.stdout).toBe('');
      expect(sent.stderr).toMatch(/message sent/);
      const closed = await s.cli(['close', id]);
      expectExit(closed, 0);

      const result = await s.cli(['result', id, '--json']);
      expectExit(result, 0);
      const doc = jsonOf<AgentResult>(result);
      expect(doc.status).toBe('completed');
      expect(doc.steps).toBe(2);
      expect(doc.text).toBe('the second answer');

      const messages = jsonOf<MessageParam[]>(await s.cli(['transcript', id, '--json']));
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(messages[0].content).toBe('say hello');
      expect(messages[2].content).toEqual([{ type: 'text', text: 'and once more' }]);
      // The run has ended: a further message is refused.
      expectUsageError(await s.cli(['send', id, 'too late']), /has ended/);
    } finally {
      await stopWorker(worker);
    }
  });

  it('cancel while the model call is in flight: exit 0 with a confirmation on stderr; result is cancelled with exit 4', async ({ expect }) => {
    const s = cli.session();
    let worker: CliProcess | undefined;
    try {
      worker = await s.worker([endTurn('too slow', 20_000)]);
      // Its call acknowledges the cancel at its next heartbeat: every 667 ms with a 2 s timeout (3 s by default).
      const id = await s.startedId(['--heartbeat-timeout', '2s', 'cancel me']);
      const handle = cli.client().workflow.getHandle(id);
      await until(async () => ((await handle.describe()).raw.pendingActivities ?? []).length > 0, 'the model call is pending');
      const cancelled = await s.cli(['cancel', id]);
      expectExit(cancelled, 0);
      expect(cancelled.stdout).toBe('');
      expect(cancelled.stderr).toMatch(new RegExp(`cancellation requested for ${id}`));

      const result = await s.cli(['result', id, '--json']);
      expectExit(result, 4);
      expect(jsonOf<AgentResult>(result).status).toBe('cancelled');
      // The 20 s model call was cancelled (acknowledged at a heartbeat), not waited out: it never completed.
      const kinds = eventKinds((await handle.fetchHistory()).events);
      expect(kinds.slice(kinds.indexOf('ActivityTaskCancelRequested'))).toEqual(expect.arrayContaining(['ActivityTaskCanceled', 'WorkflowExecutionCompleted']));
      expect(kinds.slice(kinds.indexOf('ActivityTaskCancelRequested'))).not.toContain('ActivityTaskCompleted');
      expectUsageError(await s.cli(['cancel', id]), /has ended/);
    } finally {
      await stopWorker(worker);
    }
  });

  it('resume of a run stopped by max_steps, with --max-steps 5 and its own worker, completes (exit 0) and names the run it resumes', async ({ expect }) => {
    const s = cli.session();
    const script = [toolTurn('1+2'), endTurn('resumed and done')];
    let worker: CliProcess | undefined;
    let id: string;
    let firstRunId: string;
    try {
      worker = await s.worker(script);
      id = await s.startedId(['--max-steps', '1', '--summary-on', 'none', 'a step too short']);
      const stopped = await s.cli(['result', id, '--json']);
      expectExit(stopped, 3);
      const doc = jsonOf<AgentResult>(stopped);
      expect(doc.guard).toBe('max_steps');
      firstRunId = doc.runId;
    } finally {
      await stopWorker(worker);
    }
    // No worker runs now: resume brings its own, like run.
    const resumed = await s.cli(['resume', id, '--max-steps', '5', '--scripted', '--json'], {
      AGENT_SCRIPT: await cli.scriptFile(script),
    });
    expectExit(resumed, 0);
    const doc = jsonOf<AgentResult>(resumed);
    expect(doc.status).toBe('completed');
    expect(doc.text).toBe('resumed and done');
    expect(doc.steps).toBe(2);
    expect(doc.resumedFrom).toEqual({ workflowId: id, runId: firstRunId });
    expect(doc.runId).not.toBe(firstRunId);
    expect(resumed.stderr).toMatch(new RegExp(`resumed run ${id} \\(it was stopped by guard max_steps\\)`));

    // A completed run has nothing to resume; resume needs the key or --scripted.
    expectUsageError(await s.cli(['resume', id, '--scripted']), /completed: there is nothing to resume/);
    expectUsageError(await s.cli(['resume', id]), /ANTHROPIC_API_KEY/);
  });

  it('Ctrl-C ends a send that waits for a worker (none polls the queue): exit 130, saying the message may still reach the run, which it does once a worker comes', async ({ expect }) => {
    const s = cli.session();
    const id = await s.startedId(['nobody takes this run']);
    const send = s.spawn(['send', id, 'hello?']);
    await send.waitForStderr(/waiting for a worker to take it/);
    send.kill('SIGINT');
    const exit = await send.exited;
    expectExit(exit, 130);
    expect(exit.stderr).toMatch(new RegExp(`stopped waiting \\(SIGINT\\): the message may still reach run ${id} once a worker takes it; .*status ${id} shows whether it did`));

    // The server held the message for the run: the worker that comes delivers it.
    const worker = await s.worker([endTurn('hi there'), endTurn('hello to you')]);
    try {
      expectExit(await s.cli(['result', id]), 0);
      const transcript = await s.cli(['transcript', id, '--json']);
      expect(jsonOf<MessageParam[]>(transcript).map((m) => m.content)).toContainEqual([{ type: 'text', text: 'hello?' }]);
    } finally {
      await stopWorker(worker);
    }
  });

  it('a send whose run ends while it waits for a worker says the run has ended (exit 2), not that there is no such run', async ({ expect }) => {
    const s = cli.session();
    const id = await s.startedId(['nobody takes this run either']);
    const send = s.spawn(['send', id, 'hello?']);
    await send.waitForStderr(/waiting for a worker to take it/);
    await cli.client().workflow.getHandle(id).terminate('an operator ended it');
    const exit = await send.exited;
    expectUsageError(exit, new RegExp(`cannot send a message to run ${id}: it has ended \\(TERMINATED\\)`));
    expect(exit.stderr).not.toMatch(/no run with id/);
  });

  it('resume of a running run is refused with exit 2', async () => {
    const s = cli.session();
    const id = await s.startedId(['still going']);
    try {
      expectUsageError(await s.cli(['resume', id, '--scripted']), /still running/);
    } finally {
      await cli.client().workflow.getHandle(id).terminate('test cleanup');
    }
  });

  it('close on a run started without --chat is exit 2 saying so (the run ignores a close; it ends at its own end_turn), and sends nothing', async ({ expect }) => {
    const s = cli.session(); // no worker polls its queue: the run stays open, with no model call made
    const id = await s.startedId(['a plain run']);
    try {
      const closed = await s.cli(['close', id]);
      expectUsageError(closed, new RegExp(`cannot close run ${id}: it was started without --chat, and ends at its own end_turn; \`cancel ${id}\` ends it now`));
      const signals = ((await cli.client().workflow.getHandle(id).fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
      expect(signals).toHaveLength(0);
    } finally {
      await cli.client().workflow.getHandle(id).terminate('test over').catch(() => undefined);
    }
  });

  it('bad flags and ids: --approve with an unknown tool, --idle-timeout without --chat or with a bad duration, unknown workflow ids: exit 2, nothing started', async ({ expect }) => {
    const s = cli.session();
    const id = `no-such-run-${randomUUID()}`;
    const exits = await Promise.all([
      s.cli(['start', '--approve', 'rm_rf', 'x']),
      s.cli(['start', '--tools', 'calculator', '--approve', 'web_search', 'x']),
      s.cli(['run', '--scripted', '--approve', 'nope', 'x']),
      s.cli(['start', '--idle-timeout', '5m', 'x']),
      s.cli(['start', '--chat', '--idle-timeout', '5', 'x']),
      s.cli(['approve', id]),
      s.cli(['deny', id, 'toolu_x', '--reason', 'no']),
      s.cli(['send', id, 'hello']),
      s.cli(['close', id]),
      s.cli(['cancel', id]),
      s.cli(['resume', id, '--scripted']),
      s.cli(['send', id, '  ']),
      s.cli(['approve']),
      s.cli(['approve', id, 'a', 'b']),
      s.cli(['approve', id, '--reason', 'x']),
      s.cli(['resume', id, '--deadline', 'soon']),
    ]);
    const expected = [
      /unknown tool "rm_rf" in --approve/,
      /--approve names "web_search", which the run may not use/,
      /unknown tool "nope" in --approve/,
      /--idle-timeout applies to chat runs only/,
      /--idle-timeout: invalid duration "5"/,
      ...[0, 1, 2, 3, 4, 5].map(() => new RegExp(`no run with id "${id}"`)),
      /the message is empty/,
      /missing workflowId/,
      /unexpected argument "b"/,
      /unknown option --reason/,
      /--deadline: invalid duration "soon"/,
    ];
    exits.forEach((exit, i) => expectUsageError(exit, expected[i]));
    const runs = cli.client().workflow.list({ query: `TaskQueue = "${s.taskQueue}"` });
    for await (const run of runs) expect.fail(`a run was started: ${run.workflowId}`);
  });
});
