// startAgent (and resumeAgent) check the settings before anything reaches the server: a bad value is an
// InvalidSettingsError naming the field, and no workflow is started. A run started around the client (a raw
// workflow start, an older client) with such settings fails at once with the same message, instead of hanging.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { describe, expect, it, vi } from 'vitest';
import { AGENT_WORKFLOW, defaultSettings, getAgentResult, InvalidSettingsError, resumeAgent, startAgent } from '../../src/client/index.js';
import type { AgentInput, AgentSettings } from '../../src/core/types.js';
import { reply, text } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

async function runsOn(taskQueue: string): Promise<number> {
  return (await env.client.workflow.count(`TaskQueue = "${taskQueue}"`)).count;
}

describe('startAgent refuses bad settings before any workflow starts', () => {
  it.each<[string, Record<string, unknown>]>([
    ['heartbeatTimeoutMs', { heartbeatTimeoutMs: -1 }],
    ['system', { system: 'p'.repeat(3_000_000) }],
    ['maxSteps', { maxSteps: Number.NaN }],
    ['budgetTokens', { budgetTokens: -1 }],
    ['deadlineMs', { deadlineMs: 0 }],
    ['maxToolOutputChars', { maxToolOutputChars: -1 }],
    ['outputSchema', { outputSchema: { type: 'object', properties: { n: { type: 'numbr' } } } }],
    ['summaryOn', { summaryOn: ['bogus'] }],
    ['tools', { tools: null }],
  ])('%s', async (field, overrides) => {
    const taskQueue = `settings-${randomUUID()}`;
    const settings = { ...defaultSettings(), ...overrides } as AgentSettings;
    const err = await startAgent(env.client, { task: 'a task', settings, taskQueue }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidSettingsError);
    expect((err as InvalidSettingsError).field).toBe(field);
    expect((err as Error).message).toMatch(new RegExp(`^invalid settings: ${field}[ .[][^\\n]+$`));
    expect(await runsOn(taskQueue)).toBe(0);
  });
});

describe('search attributes the namespace does not have', () => {
  it('searchAttributes: true on a namespace without them is refused at the start, naming the field, the attribute and the fix', async () => {
    // A namespace of its own, with none of the Agent* attributes (the test server registers them on `default`).
    const namespace = `no-attributes-${randomUUID().slice(0, 8)}`;
    await env.client.connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const client = new Client({ connection: env.client.connection, namespace });
    const taskQueue = `no-attributes-${randomUUID()}`;
    const start = () => startAgent(client, { task: 'a task', settings: defaultSettings({ tools: ['calculator'], searchAttributes: true }), taskQueue });
    const err = await vi.waitFor(() => start().then(() => new Error('started'), (e: Error) => {
      if (/namespace .* not found/i.test(e.message)) throw e; // registration still being read: ask again
      return e;
    }), { timeout: 10_000 });
    expect(err).toBeInstanceOf(InvalidSettingsError);
    expect((err as InvalidSettingsError).field).toBe('searchAttributes');
    expect(err.message).toMatch(new RegExp(`namespace ${namespace} has no mapping defined for search attribute Agent\\w+`));
    expect(err.message).toContain('temporal operator search-attribute create');
    expect(err.message).toContain('searchAttributes: false');
    // Left to the client's own check (the default), the same start goes ahead, without the attributes.
    const started = await startAgent(client, { task: 'a task', settings: defaultSettings({ tools: ['calculator'] }), taskQueue });
    await client.workflow.getHandle(started.workflowId).terminate('test cleanup');
  });
});

describe("the workflow's own check", () => {
  it('a run started around the client with a negative heartbeat timeout fails at once, naming the field (not RUNNING for ever)', async () => {
    await withAgent(env, { script: [reply([text('never asked')])] }, async (h) => {
      const workflowId = `raw-bad-settings-${randomUUID()}`;
      const input: AgentInput = { task: 'a task', settings: defaultSettings({ tools: ['calculator'], heartbeatTimeoutMs: -1 }) };
      await env.client.workflow.start(AGENT_WORKFLOW, { workflowId, taskQueue: h.taskQueue, args: [input] });
      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'failed', steps: 0 });
      expect(result.error).toMatch(/invalid settings: heartbeatTimeoutMs must be at least 1000 ms \(got -1 ms\)/);
      expect(h.model.requests).toHaveLength(0);

      // Resumed, it is refused the same way: it never got under way, so its settings were never accepted (a resumed
      // run skips the workflow's check, which spares a job accepted by an older version).
      await expect(resumeAgent(env.client, workflowId, { taskQueue: h.taskQueue })).rejects.toThrow(
        /invalid settings: heartbeatTimeoutMs must be at least 1000 ms \(got -1 ms\)/,
      );
      expect((await env.client.workflow.getHandle(workflowId).describe()).runId).toBe(result.runId);
    });
  });
});
