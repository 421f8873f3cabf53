// The CLI as a user runs it, against the dev server that global-setup started: its entry point called in the test
// process with an environment, stdin, stdout and stderr of its own, or `node bin/durable-agent.js <command>` (the
// BUILT output, dist/) as a child process where the process is what is tested (test/helpers/cli.ts). stdout, stderr
// and the exit code are checked separately: stdout must carry the command's output and nothing else.
//
// Every test gets its own task queue (AGENT_TASK_QUEUE), so workers in concurrent tests never take each other's
// runs; ANTHROPIC_* / AGENT_* / TEMPORAL_* variables of the outer environment never leak into a command.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { AgentInput } from '../../src/core/types.js';
import { endTurn, expectExit, expectUsageError, jsonOf, toolTurn, until, useCli, type Exit } from '../helpers/cli.js';

const FRANCE = 'Search for the population of France and calculate what 15% of that number is';
const FRANCE_ANSWER = '10,290,900';

const { client, session, scriptFile } = useCli();

// ---------------------------------------------------------------------------------------------------------------
// What the output must look like

const STATUSES = ['completed', 'stopped', 'failed', 'cancelled', 'terminated', 'timed_out'];

interface ResultDoc {
  workflowId: string;
  runId: string;
  status: string;
  stopReason: string | null;
  guard: string | null;
  text: string;
  steps: number;
  toolCalls: number;
  usage: Record<'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens', number>;
  error: string | null;
}

/** stdout is exactly one JSON document (JSON.parse rejects a second one or any log line) with every contract field. */
function resultDoc(exit: Exit): ResultDoc {
  const doc = jsonOf(exit);
  expect(doc).toBeTypeOf('object');
  expect(Array.isArray(doc)).toBe(false);
  const d = doc as ResultDoc;
  expect(Object.keys(d)).toEqual(
    expect.arrayContaining(['workflowId', 'runId', 'status', 'stopReason', 'guard', 'text', 'steps', 'toolCalls', 'usage', 'error']),
  );
  expect(d.workflowId).toMatch(/\S/);
  expect(d.runId).toMatch(/\S/);
  expect(STATUSES).toContain(d.status);
  expect(d.stopReason === null || typeof d.stopReason === 'string').toBe(true);
  expect(d.guard === null || typeof d.guard === 'string').toBe(true);
  expect(d.text).toBeTypeOf('string');
  expect(Number.isInteger(d.steps)).toBe(true);
  expect(Number.isInteger(d.toolCalls)).toBe(true);
  expect(d.error === null || typeof d.error === 'string').toBe(true);
  for (const k of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
    expect(Number.isInteger(d.usage[k]), `usage.${k}`).toBe(true);
  }
  return d;
}

/** The France demo's result: the computed answer after search → calculate → answer. */
function expectFranceCompleted(doc: ResultDoc): void {
  expect(doc.status).toBe('completed');
  expect(doc.stopReason).toBe('end_turn');
  expect(doc.guard).toBeNull();
  expect(doc.error).toBeNull();
  expect(doc.steps).toBe(3);
  expect(doc.toolCalls).toBe(2);
  expect(doc.text).toContain(FRANCE_ANSWER);
  expect(doc.usage.input_tokens).toBeGreaterThan(0);
  expect(doc.usage.output_tokens).toBeGreaterThan(0);
}

/** The human form: the answer, then one summary line `— <status> … · <workflowId>`, and nothing else. */
function humanOutput(stdout: string): { answer: string; summary: string } {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(stdout.endsWith('\n')).toBe(true);
  const summary = lines.pop()!;
  expect(summary).toMatch(/^— (completed|stopped|failed|cancelled)\b/);
  return { answer: lines.join('\n'), summary };
}

/** `— completed on end_turn · 3 model calls · 2 tool calls · 1,753 tokens · <workflowId>` (more parts may come). */
function expectFranceSummary(summary: string, workflowId: RegExp): void {
  expect(summary).toMatch(/^— completed on end_turn · /);
  expect(summary).toContain(' · 3 model calls · 2 tool calls · ');
  expect(summary).toMatch(/ · [\d,]+ tokens\b/);
  expect(summary).toMatch(new RegExp(` · ${workflowId.source}$`));
}

async function workflowInput(workflowId: string): Promise<{ input: AgentInput; taskQueue: string }> {
  const history = await client().workflow.getHandle(workflowId).fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  return {
    input: defaultPayloadConverter.fromPayload<AgentInput>(started.input!.payloads![0]),
    taskQueue: started.taskQueue!.name!,
  };
}

async function modelCalls(workflowId: string): Promise<number> {
  const history = await client().workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length;
}

async function statusOf(workflowId: string): Promise<string> {
  return (await client().workflow.getHandle(workflowId).describe()).status.name;
}

// Script turns (toolTurn and endTurn come from the helper).
/** A model call that is never answered (the scripted server holds it until the client goes away). */
const heldTurn = { hold: true, content: [{ type: 'text', text: 'never sent' }], stop_reason: 'end_turn' };

// ---------------------------------------------------------------------------------------------------------------

// One concurrent suite: every test has its own task queue, and withSlot() bounds the CPU the processes use.
// A test runs several processes in turn, each slower when the machine is busy: more time than the default 60 s.
describe.concurrent('durable-agent CLI, run from the build as child processes', { timeout: 120_000 }, () => {
  describe('durable-agent run --scripted: the France demo end to end', () => {
    it('run --scripted --json prints exactly one JSON document with every contract field, completed in 3 steps and 2 tool calls, exit 0', async ({ expect }) => {
      const { cli, taskQueue } = session();
      const exit = await cli(['run', '--scripted', '--json', FRANCE]);
      expectExit(exit, 0);
      const doc = resultDoc(exit);
      expectFranceCompleted(doc);
      expect(exit.stdout.trim().startsWith('{')).toBe(true);
      // The logs went to stderr.
      expect(exit.stderr).toMatch(/SCRIPTED model/);
      expect(exit.stderr).toContain(`started run ${doc.workflowId}`);
      // The document describes the real run on the server, started on this test's task queue.
      const described = await client().workflow.getHandle(doc.workflowId).describe();
      expect(described.runId).toBe(doc.runId);
      expect(described.status.name).toBe('COMPLETED');
      expect(described.taskQueue).toBe(taskQueue);
      expect(await modelCalls(doc.workflowId)).toBe(3);
    });

    it('run --scripted without --json prints the answer and one summary line, and nothing else on stdout, exit 0', async ({ expect }) => {
      const { cli } = session();
      const exit = await cli(['run', '--scripted', FRANCE]);
      expectExit(exit, 0);
      const { answer, summary } = humanOutput(exit.stdout);
      expect(answer).toContain(FRANCE_ANSWER);
      expect(answer.split('\n')).toHaveLength(1);
      expectFranceSummary(summary, /agent-\S+/);
      // No log line leaked to stdout.
      expect(exit.stdout).not.toMatch(/SCRIPTED|started run|Worker state|\[INFO\]|\[WARN\]/);
      expect(exit.stderr).toMatch(/started run agent-/);
    });

    it('accepts flags after the task and in --k=v form: --max-steps=2 after the task stops the 3-step demo by guard max_steps (exit 3)', async ({ expect }) => {
      const { cli } = session();
      const exit = await cli(['run', FRANCE, '--scripted', '--max-steps=2', '--json=true']);
      expectExit(exit, 3);
      const doc = resultDoc(exit);
      expect(doc.status).toBe('stopped');
      expect(doc.guard).toBe('max_steps');
      // Two tool turns ran, then the cap stopped the loop (steps may include the closing summary call).
      expect(doc.toolCalls).toBe(2);
      expect(doc.steps).toBeGreaterThanOrEqual(2);
      expect(await modelCalls(doc.workflowId)).toBe(doc.steps);
    });

    it('passes --model, --system, --max-output-tokens, --max-steps and --tools (mixed forms, before and after the task) into the run settings', async ({ expect }) => {
      const { cli, taskQueue } = session();
      const exit = await cli([
        'run',
        '--model=claude-cli-test',
        '--system',
        'You are terse.',
        FRANCE,
        '--max-output-tokens',
        '1234',
        '--max-steps=7',
        '--tools=calculator',
        '--scripted',
        '--json',
      ]);
      expectExit(exit, 0);
      const doc = resultDoc(exit);
      // The demo script sees only the calculator tool, so it says it cannot do the search.
      expect(doc.status).toBe('completed');
      expect(doc.text).toMatch(/does not offer web_search/);
      const { input, taskQueue: queue } = await workflowInput(doc.workflowId);
      expect(queue).toBe(taskQueue);
      expect(input.task).toBe(FRANCE);
      expect(input.settings).toMatchObject({
        model: 'claude-cli-test',
        system: 'You are terse.',
        maxOutputTokens: 1234,
        maxSteps: 7,
        tools: ['calculator'],
      });
    });

    it('passes the guard, limit and model-option flags of start into the run settings carried in the workflow input', async ({ expect }) => {
      const { cli } = session();
      const exit = await cli([
        'start',
        'settings check',
        '--budget-tokens=5000',
        '--budget-usd',
        '0.5',
        '--deadline',
        '1h30m',
        '--summary-on=max_steps',
        '--effort',
        'high',
        '--thinking=2048',
        '--no-prompt-cache',
        '--approve',
        'calculator',
        '--chat',
        '--idle-timeout=10m',
        '--heartbeat-timeout',
        '5s',
        '--continue-as-new-after=50',
        '--max-tool-output',
        '2000',
        '--context-clear-at=90000',
        '--compact-at',
        '60000',
      ]);
      expectExit(exit, 0);
      const id = exit.stdout.trim();
      const { input } = await workflowInput(id);
      expect(input.settings).toMatchObject({
        budgetTokens: 5000,
        budgetUsd: 0.5,
        deadlineMs: 90 * 60_000,
        summaryOn: ['max_steps'],
        effort: 'high',
        thinkingBudget: 2048,
        promptCaching: false,
        approve: ['calculator'],
        chat: true,
        idleTimeoutMs: 10 * 60_000,
        heartbeatTimeoutMs: 5000,
        continueAsNewAfterSteps: 50,
        maxToolOutputChars: 2000,
        contextClearAtTokens: 90_000,
        compactAt: 60_000,
      });
      await client().workflow.getHandle(id).terminate('test cleanup');
    });

    it('uses AGENT_MODEL as the default model of start, and --model over it', async ({ expect }) => {
      const { cli } = session({ AGENT_MODEL: 'claude-from-env' });
      const [fromEnv, fromFlag] = await Promise.all([
        cli(['start', 'which model', '--json']),
        cli(['start', '--model', 'claude-from-flag', 'which model']),
      ]);
      expectExit(fromEnv, 0);
      expectExit(fromFlag, 0);
      const envId = (JSON.parse(fromEnv.stdout) as { workflowId: string }).workflowId;
      const flagId = fromFlag.stdout.trim();
      expect((await workflowInput(envId)).input.settings.model).toBe('claude-from-env');
      expect((await workflowInput(flagId)).input.settings.model).toBe('claude-from-flag');
      await Promise.all([envId, flagId].map((id) => client().workflow.getHandle(id).terminate('test cleanup')));
    });
  });

  describe('usage and configuration errors: exit 2, a message on stderr, nothing on stdout', () => {
    it('run rejects --max-steps 0, --max-steps abc, --bogus, --tools nope, an empty task and an unquoted task with exit 2 and empty stdout', async () => {
      const { cli } = session();
      const cases: Array<[string[], RegExp]> = [
        [['run', '--scripted', '--max-steps', '0', FRANCE], /--max-steps must be at least 1 \(got 0\)/],
        [['run', '--scripted', FRANCE, '--max-steps', 'abc'], /--max-steps must be a whole number \(got "abc"\)/],
        [['run', '--scripted', FRANCE, '--bogus'], /unknown option --bogus.*--json.*--max-steps/],
        [['run', '--scripted', '--tools=calculator,nope', FRANCE], /unknown tool "nope".*calculator.*web_search/],
        [['run', '--scripted', '  '], /the task is empty/],
        [['run', '--scripted', 'two', 'words'], /unexpected argument "words" \(quote a task that has spaces\)/],
      ];
      const exits = await Promise.all(cases.map(([args]) => cli(args)));
      exits.forEach((exit, i) => expectUsageError(exit, cases[i][1]));
    });

    it('start, result and worker reject bad flags and arguments, and an unknown command is refused, with exit 2 and empty stdout', async () => {
      const { cli } = session();
      const cases: Array<[string[], RegExp]> = [
        [['start', '--tools', 'nope', FRANCE], /unknown tool "nope"/],
        [['start', '--scripted', FRANCE], /unknown option --scripted/],
        [['start', '--summary-on', 'budget', FRANCE], /--summary-on must be one of max_steps, repetition, error_streak \(got "budget"\)/],
        [['start', '--deadline', '10 minutes', FRANCE], /--deadline: invalid duration/],
        [['start', '--budget-usd', '1', '--model', 'no-such-model', FRANCE], /--budget-usd needs the price of model "no-such-model"/],
        [['result'], /missing workflowId/],
        [['worker', 'extra'], /unexpected argument "extra"/],
        [['frobnicate'], /unknown command "frobnicate"/],
      ];
      const exits = await Promise.all(cases.map(([args]) => cli(args)));
      exits.forEach((exit, i) => expectUsageError(exit, cases[i][1]));
    });

    it('rejects an empty --id or --model value with exit 2 and empty stdout (a bad value, not a crash or a run with model "")', async () => {
      const { cli } = session();
      const [id, model] = await Promise.all([cli(['start', '--id=', 'empty id']), cli(['start', '--model=', 'empty model'])]);
      expectUsageError(id, /--id/);
      expectUsageError(model, /--model/);
    });

    it('refuses a plain run without ANTHROPIC_API_KEY and without --scripted: exit 2 naming both ANTHROPIC_API_KEY and --scripted', async ({ expect }) => {
      const { cli, taskQueue } = session();
      const [unset, empty] = await Promise.all([cli(['run', FRANCE]), cli(['run', '--json', FRANCE], { ANTHROPIC_API_KEY: '' })]);
      for (const exit of [unset, empty]) {
        expectUsageError(exit, /ANTHROPIC_API_KEY/);
        expect(exit.stderr).toContain('--scripted');
      }
      // Nothing was started.
      const runs = client().workflow.list({ query: `TaskQueue = "${taskQueue}"` });
      for await (const run of runs) throw new Error(`a run was started: ${run.workflowId}`);
    });

    it('fails with exit 2 when TEMPORAL_ADDRESS does not answer (run, start, result, worker), and starts no embedded server', async ({ expect }) => {
      const { cli } = session({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
      const exits = await Promise.all([
        cli(['run', '--scripted', '--json', FRANCE]),
        cli(['start', FRANCE]),
        cli(['result', 'some-id', '--json']),
        cli(['worker', '--scripted']),
      ]);
      for (const exit of exits) {
        expectUsageError(exit, /127\.0\.0\.1:1\b.*does not answer/);
        expect(exit.stderr).not.toMatch(/starting the embedded/);
      }
    });

    it('a Temporal profile that does not exist is a configuration error: exit 2 naming it, no stack trace', async () => {
      const { cli } = session({ TEMPORAL_PROFILE: 'no-such-profile' });
      const exits = await Promise.all([cli(['status', 'some-id']), cli(['start', FRANCE])]);
      for (const exit of exits) {
        expectUsageError(exit, /Temporal connection settings cannot be read.*no-such-profile/);
        expect(exit.stderr).not.toMatch(/\n\s+at /);
      }
    });

    it('prints the help on stdout with exit 0 for --help, and on stderr with exit 2 when no command is given', async ({ expect }) => {
      const { cli } = session();
      const [help, none] = await Promise.all([cli(['--help']), cli([])]);
      expectExit(help, 0);
      expect(help.stdout).toMatch(/^durable-agent: /);
      expect(help.stdout).toMatch(/exit codes: 0 completed, 1 failed, 2 usage/);
      expectExit(none, 2);
      expect(none.stdout).toBe('');
      expect(none.stderr).toMatch(/usage: durable-agent <command>/);
    });
  });

  describe('start, worker and result', () => {
    it('start --json prints {workflowId, runId}; result waits for a worker --scripted started later and prints the same document as run (exit 0); the worker exits 0 on SIGTERM', async ({ expect }) => {
      const { cli, spawn, background, taskQueue } = session();
      const started = await cli(['start', '--json', FRANCE]);
      expectExit(started, 0);
      const ids = JSON.parse(started.stdout) as { workflowId: string; runId: string };
      expect(Object.keys(ids).sort()).toEqual(['runId', 'workflowId']);
      expect(started.stdout.trim().split('\n')).toHaveLength(1);
      // No worker inside `start`: the run waits on the task queue.
      expect(await statusOf(ids.workflowId)).toBe('RUNNING');
      expect(await modelCalls(ids.workflowId)).toBe(0);

      // `result` is waiting before any worker exists.
      const waiting = background(['result', ids.workflowId, '--json']);
      // A process: its exit on a real SIGTERM is part of what this test proves.
      const worker = spawn(['worker', '--scripted']);
      try {
        await worker.waitForStderr(new RegExp(`worker polling task queue "${taskQueue}"`));
        const exit = await waiting.exited;
        expectExit(exit, 0);
        const doc = resultDoc(exit);
        expectFranceCompleted(doc);
        expect(doc.workflowId).toBe(ids.workflowId);
        expect(doc.runId).toBe(ids.runId);

        // Without --json, result prints the human form, like run.
        const human = await cli(['result', ids.workflowId]);
        expectExit(human, 0);
        const { answer, summary } = humanOutput(human.stdout);
        expect(answer).toContain(FRANCE_ANSWER);
        expectFranceSummary(summary, new RegExp(ids.workflowId));
      } finally {
        worker.kill('SIGTERM');
      }
      const stopped = await worker.exited;
      expectExit(stopped, 0);
      expect(stopped.signal).toBeNull();
      expect(stopped.stdout).toBe('');
      expect(stopped.stderr).toMatch(/worker stopped/);
    });

    it('start without --json prints only the workflow id; the run exists on AGENT_TASK_QUEUE and no worker ran it', async ({ expect }) => {
      const { cli, taskQueue } = session();
      const exit = await cli(['start', 'count the stars']);
      expectExit(exit, 0);
      expect(exit.stdout).toMatch(/^agent-count-the-stars-[a-z0-9]+\n$/);
      const workflowId = exit.stdout.trim();
      const described = await client().workflow.getHandle(workflowId).describe();
      expect(described.taskQueue).toBe(taskQueue);
      expect(described.status.name).toBe('RUNNING');
      await client().workflow.getHandle(workflowId).terminate('test cleanup');
    });

    it('result of an unknown workflow id exits 2 naming the id, with empty stdout (with and without --json)', async () => {
      const { cli } = session();
      const id = `no-such-id-${randomUUID()}`;
      const exits = await Promise.all([cli(['result', id]), cli(['result', id, '--json'])]);
      for (const exit of exits) expectUsageError(exit, new RegExp(`no run with id "${id}"`));
    });

    it('worker without --scripted and without a key warns about ANTHROPIC_API_KEY on stderr and exits 0 on SIGINT', async ({ expect }) => {
      const { spawn, taskQueue } = session();
      const worker = spawn(['worker']);
      await worker.waitForStderr(new RegExp(`worker polling task queue "${taskQueue}"`));
      worker.kill('SIGINT');
      const exit = await worker.exited;
      expectExit(exit, 0);
      expect(exit.stdout).toBe('');
      expect(exit.stderr).toMatch(/warning: ANTHROPIC_API_KEY is not set/);
      expect(exit.stderr).toMatch(/worker stopped/);
    });

    it('result of a terminated run prints status terminated with the operator\'s reason and exits 1', async ({ expect }) => {
      const { cli } = session();
      const started = await cli(['start', 'to be terminated']);
      expectExit(started, 0);
      const workflowId = started.stdout.trim();
      await client().workflow.getHandle(workflowId).terminate('stopped by the test');
      const exit = await cli(['result', workflowId, '--json']);
      expectExit(exit, 1);
      const doc = resultDoc(exit);
      expect(doc.status).toBe('terminated');
      expect(doc.error).toBe('terminated by an operator: stopped by the test');
    });
  });

  describe('--output-schema', () => {
    it('adds submit_answer: the run ends when it is called with valid input, and the result carries the answer as output', async ({ expect }) => {
      const { cli } = session();
      const schema = await scriptFile({ type: 'object', properties: { population: { type: 'integer' } }, required: ['population'] });
      const script = await scriptFile([
        { content: [{ type: 'tool_use', name: 'submit_answer', input: { population: 'many' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'tool_use', name: 'submit_answer', input: { population: 68606000 } }], stop_reason: 'tool_use' },
      ]);
      const exit = await cli(['run', '--scripted', '--json', '--output-schema', schema, 'population?'], { AGENT_SCRIPT: script });
      expectExit(exit, 0);
      const doc = resultDoc(exit);
      expect(doc).toMatchObject({ status: 'completed', output: { population: 68606000 }, steps: 2, toolCalls: 2 });
    });

    it('refuses a schema file that is not valid JSON Schema with exit 2, naming the file', async ({ expect }) => {
      const { cli } = session();
      const bad = await scriptFile({ type: 'no-such-type' });
      const exit = await cli(['start', '--output-schema', bad, 'x']);
      expectExit(exit, 2);
      expect(exit.stderr).toContain(bad);
    });
  });

  describe('--id makes run and start idempotent', () => {
    it('a second run --id X attaches to the closed run X (stderr says so) and returns its workflowId and runId without a second model conversation', async ({ expect }) => {
      const { cli } = session();
      const id = `cli-test-idem-${randomUUID()}`;
      const first = await cli(['run', '--scripted', '--json', '--id', id, FRANCE]);
      expectExit(first, 0);
      const a = resultDoc(first);
      expect(a.workflowId).toBe(id);
      expect(first.stderr).toContain(`started run ${id}`);

      // The second process's model would answer differently: its answer must not appear.
      const other = await scriptFile([endTurn('SECOND CONVERSATION')]);
      const second = await cli(['run', '--scripted', '--json', `--id=${id}`, FRANCE], { AGENT_SCRIPT: other });
      expectExit(second, 0);
      const b = resultDoc(second);
      expect(second.stderr).toMatch(new RegExp(`attached to existing run ${id}`));
      expect(second.stderr).not.toContain(`started run ${id}`);
      expect(b.workflowId).toBe(a.workflowId);
      expect(b.runId).toBe(a.runId);
      expect(b).toEqual(a);
      expect(b.text).not.toContain('SECOND CONVERSATION');
      expect(await modelCalls(id)).toBe(3);
    });

    it('start --id X twice attaches to the running run (same runId, stderr says so); run --id X then attaches and finishes it', async ({ expect }) => {
      const { cli } = session();
      const id = `cli-test-idem-running-${randomUUID()}`;
      const first = await cli(['start', '--json', '--id', id, FRANCE]);
      expectExit(first, 0);
      const ids = JSON.parse(first.stdout) as { workflowId: string; runId: string };
      expect(ids.workflowId).toBe(id);

      const second = await cli(['start', '--json', `--id=${id}`, FRANCE]);
      expectExit(second, 0);
      expect(JSON.parse(second.stdout)).toEqual(ids);
      expect(second.stderr).toMatch(new RegExp(`${id}.*already exists`));

      // The run is still RUNNING (no worker yet): run --id attaches to it, and its in-process worker runs it.
      const run = await cli(['run', '--scripted', '--json', '--id', id, FRANCE]);
      expectExit(run, 0);
      expect(run.stderr).toMatch(new RegExp(`attached to existing run ${id}`));
      const doc = resultDoc(run);
      expectFranceCompleted(doc);
      expect(doc.runId).toBe(ids.runId);
      expect(await modelCalls(id)).toBe(3);
    });
  });

  describe('how a run ends: status and exit code', () => {
    it('a script whose first turn is a refusal ends with status stopped, stopReason refusal and exit 3', async ({ expect }) => {
      const { cli } = session();
      const script = await scriptFile([{ content: [{ type: 'text', text: 'I will not do that.' }], stop_reason: 'refusal' }]);
      const json = await cli(['run', '--scripted', '--json', 'do something bad'], { AGENT_SCRIPT: script });
      expectExit(json, 3);
      const doc = resultDoc(json);
      expect(doc.status).toBe('stopped');
      expect(doc.stopReason).toBe('refusal');
      expect(doc.guard).toBeNull();
      expect(doc.toolCalls).toBe(0);
      expect(doc.error).toMatch(/refusal/);
    });

    it('a 401 from the model ends with status failed, an error naming the API key / ANTHROPIC_API_KEY, and exit 1', async ({ expect }) => {
      const { cli } = session();
      const script = await scriptFile([{ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }]);
      const [json, human] = await Promise.all([
        cli(['run', '--scripted', '--json', 'hello'], { AGENT_SCRIPT: script }),
        cli(['run', '--scripted', 'hello'], { AGENT_SCRIPT: script }),
      ]);
      expectExit(json, 1);
      const doc = resultDoc(json);
      expect(doc.status).toBe('failed');
      expect(doc.error).toMatch(/API key/i);
      expect(doc.error).toMatch(/ANTHROPIC_API_KEY/);
      expect(doc.steps).toBe(0);
      expectExit(human, 1);
      expect(human.stdout).toMatch(/^error: .*ANTHROPIC_API_KEY/m);
      expect(humanOutput(human.stdout).summary).toMatch(/^— failed/);
    });

    it('--max-steps 1 with a script that always asks for a tool ends with status stopped, guard max_steps and exit 3', async ({ expect }) => {
      const { cli } = session();
      const script = await scriptFile([1, 2, 3, 4, 5, 6].map((n) => toolTurn(`${n} + 1`, `step ${n}: computing`)));
      const json = await cli(['run', '--scripted', '--json', '--max-steps', '1', 'count forever'], { AGENT_SCRIPT: script });
      expectExit(json, 3);
      const doc = resultDoc(json);
      expect(doc.status).toBe('stopped');
      expect(doc.guard).toBe('max_steps');
      expect(doc.toolCalls).toBeGreaterThanOrEqual(1);
    });

    it('SIGINT while run waits detaches with exit 130, nothing on stdout, a reattach command on stderr, and the run goes on on the server', async ({ expect }) => {
      const { spawn } = session();
      const script = await scriptFile([heldTurn]);
      const run = spawn(['run', '--scripted', '--json', 'wait for ever'], { AGENT_SCRIPT: script });
      const [, workflowId] = await run.waitForStderr(/started run (\S+)/);
      run.kill('SIGINT');
      const exit = await run.exited;
      expectExit(exit, 130);
      expect(exit.stdout).toBe('');
      expect(exit.stderr).toMatch(/detached/);
      expect(exit.stderr).toContain(`reattach with: durable-agent run --id ${workflowId}`);
      expect(await statusOf(workflowId)).toBe('RUNNING');
      await client().workflow.getHandle(workflowId).terminate('test cleanup');
    });

    it('a run cancelled while its model call is in flight ends with status cancelled and exit 4', async ({ expect }) => {
      const { background } = session();
      const script = await scriptFile([heldTurn]);
      const run = background(['run', '--scripted', '--json', 'cancel me'], { AGENT_SCRIPT: script });
      const [, workflowId] = await run.waitForStderr(/started run (\S+)/);
      const handle = client().workflow.getHandle(workflowId);
      await until(async () => ((await handle.describe()).raw.pendingActivities ?? []).length > 0, 'the model call is pending', 20_000);
      await handle.cancel();
      const exit = await run.exited;
      const doc = resultDoc(exit);
      expect(doc.status).toBe('cancelled');
      expectExit(exit, 4);
    });
  });
});
