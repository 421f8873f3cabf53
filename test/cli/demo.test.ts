// `durable-agent demo`, the README's first command, end to end from the build: without ANTHROPIC_API_KEY it
// says so, switches to the scripted model by itself, and runs the France task to its answer on a real worker.
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { AgentInput } from '../../src/core/types.js';
import { expectExit, jsonOf, useCli } from '../helpers/cli.js';

const { client, session } = useCli();

describe('durable-agent demo', { timeout: 120_000 }, () => {
  it('without ANTHROPIC_API_KEY says it uses the scripted model and computes 15% of France: 10,290,900 in 3 steps, exit 0', async () => {
    const { cli, taskQueue } = session(); // the session strips ANTHROPIC_* from the environment
    const exit = await cli(['demo', '--json']);
    expectExit(exit, 0);
    expect(exit.stderr).toMatch(/ANTHROPIC_API_KEY is not set: running the demo on the offline SCRIPTED model/);
    const doc = jsonOf<{ workflowId: string; status: string; text: string; steps: number; toolCalls: number }>(exit);
    expect(doc).toMatchObject({ status: 'completed', steps: 3, toolCalls: 2 });
    expect(doc.text).toContain('10,290,900');
    // A real run on the test server, with the seed task as its input.
    const handle = client().workflow.getHandle(doc.workflowId);
    const described = await handle.describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.taskQueue).toBe(taskQueue);
    const history = await handle.fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = defaultPayloadConverter.fromPayload<AgentInput>(payload!);
    expect(input.task).toBe('Search for the population of France and calculate what 15% of that number is');
  });

  it('refuses a task argument: the demo has its own (exit 2, usage on stderr)', async () => {
    const { cli } = session();
    const exit = await cli(['demo', 'some other task']);
    expectExit(exit, 2);
    expect(exit.stdout).toBe('');
    expect(exit.stderr).toMatch(/demo \[--json\]/);
  });
});
