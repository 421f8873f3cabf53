// AgentPlugin on a team's own worker: one Worker.create with the team's workflowsPath, its activities and the
// plugin runs both the team's workflow and agent runs on the team's task queue, against the real dev server.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { AgentPlugin } from '../../src/worker/plugin.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { encryptionKeyQueues } from '../../src/worker/key-queues.js';
import { startScriptedModel } from '../../src/scripted/index.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/types.js';
import { scheduledActivities, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
const TEAM_WORKFLOWS = fileURLToPath(new URL('../fixtures/plugin/team-workflows.ts', import.meta.url));

const shout = defineTool({
  name: 'shout',
  description: 'Upper-cases a text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute({ text }) {
    return text.toUpperCase();
  },
});

describe('AgentPlugin', () => {
  it('adds the agent workflow, its activities and tools to a worker that also runs the team’s own workflow', async () => {
    const model = await startScriptedModel({
      script: [
        { content: [{ type: 'tool_use', name: 'shout', input: { text: 'hello plugin' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'It says HELLO PLUGIN.' }], stop_reason: 'end_turn' },
      ],
    });
    const taskQueue = `team-${randomUUID()}`;
    try {
      const worker = await Worker.create({
        connection: env.connection,
        taskQueue,
        workflowsPath: TEAM_WORKFLOWS,
        activities: { greet: async (name: string) => `hello, ${name}` },
        plugins: [new AgentPlugin({ tools: [calculator, shout], model: { apiKey: 'test-key', baseURL: model.url } })],
      });
      const [greeting, result] = await worker.runUntil(async () => {
        const greetingRun = env.client.workflow.execute('greetingWorkflow', {
          taskQueue,
          workflowId: `greeting-${randomUUID()}`,
          args: ['team'],
        });
        const { workflowId } = await startAgent(env.client, {
          task: 'Shout "hello plugin".',
          settings: defaultSettings({ tools: ['shout'] }),
          taskQueue,
        });
        return Promise.all([greetingRun, getAgentResult(env.client, workflowId)]);
      });
      expect(greeting).toBe('hello, team');
      expect(result).toMatchObject({ status: 'completed', text: 'It says HELLO PLUGIN.', toolCalls: 1 });
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual(['callModel', 'runTool', 'callModel']);
      // The model's second request carried the tool's real output: the plugin's tool ran on this worker.
      const body = model.requests[1].body as { messages: Array<{ content: Array<{ type: string; content?: unknown }> }> };
      const toolResult = body.messages.at(-1)!.content;
      expect(toolResult).toEqual([expect.objectContaining({ type: 'tool_result', content: 'HELLO PLUGIN' })]);
    } finally {
      await model.close();
    }
  });

  it('with encryption on, runs encrypted runs on a worker the team creates on the key’s task queue with the same plugin (encryptionKeyQueues), beside its own workflow', async () => {
    const model = await startScriptedModel({ script: [{ content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' }] });
    const taskQueue = `team-${randomUUID()}`;
    const dataConverter = agentDataConverter({ AGENT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` });
    const client = new Client({ connection: env.client.connection, dataConverter });
    try {
      const plugin = new AgentPlugin({ tools: [calculator], model: { apiKey: 'test-key', baseURL: model.url } });
      const options = { connection: env.connection, dataConverter, plugins: [plugin] };
      const worker = await Worker.create({ ...options, taskQueue, workflowsPath: TEAM_WORKFLOWS, activities: { greet: async (name: string) => `hello, ${name}` } });
      expect(encryptionKeyQueues(taskQueue, dataConverter)).toEqual([`${taskQueue}@k1`]);
      const keyWorkers = await Promise.all(encryptionKeyQueues(taskQueue, dataConverter).map((queue) => Worker.create({ ...options, taskQueue: queue })));
      const stopped = Promise.all(keyWorkers.map((w) => w.run()));
      const [greeting, result] = await worker.runUntil(async () => {
        const greetingRun = client.workflow.execute('greetingWorkflow', { taskQueue, workflowId: `greeting-${randomUUID()}`, args: ['team'] });
        const { workflowId } = await startAgent(client, { task: 'Say done.', settings: defaultSettings({ tools: ['calculator'] }), taskQueue });
        return Promise.all([greetingRun, getAgentResult(client, workflowId)]);
      });
      for (const w of keyWorkers) w.shutdown();
      await stopped;
      expect(greeting).toBe('hello, team');
      expect(result).toMatchObject({ status: 'completed', text: 'Done.' });
      expect((await client.workflow.getHandle(result.workflowId).describe()).taskQueue).toBe(`${taskQueue}@k1`);
    } finally {
      await model.close();
    }
  });

  it('a team’s replay worker with the plugin replays a recorded agent history next to its own workflows', async () => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL('../fixtures/histories/france.json', import.meta.url), 'utf8')));
    await Worker.runReplayHistory(
      { workflowsPath: TEAM_WORKFLOWS, dataConverter: agentDataConverter(), plugins: [new AgentPlugin()] },
      history,
      'france',
    );
  });

  it('offers only the calculator when given no tools: the web_search stub (made-up results) is never a default', () => {
    expect(new AgentPlugin().registry.names()).toEqual(['calculator']);
  });

  it('refuses a tool with no execute, or with an input schema that is not an object, where the plugin is made', () => {
    const noExecute = { name: 'half', description: 'Half a tool.', inputSchema: { type: 'object' } } as unknown as typeof calculator;
    const stringSchema = { ...calculator, name: 'echo', inputSchema: { type: 'string' } } as unknown as typeof calculator;
    expect(() => new AgentPlugin({ tools: [noExecute] })).toThrow(/^Tool "half" has no execute: write it with defineTool/);
    expect(() => new AgentPlugin({ tools: [stringSchema] })).toThrow(/^Tool "echo" has an input schema of type "string"/);
  });

  it('refuses a client of another namespace than the worker’s (its transcript reads would find no run), naming both, with createAgentWorker too', async () => {
    const namespace = `team-${randomUUID().slice(0, 8)}`;
    await env.client.connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    await vi.waitFor(() => env.client.connection.workflowService.describeNamespace({ namespace }), { timeout: 10_000 });
    const problem = `the client given to the agent's worker is of namespace "default", but the worker polls namespace "${namespace}": ` +
      `the model calls read runs through it, and would find none; give it a client of namespace "${namespace}" (new Client({ connection, namespace: '${namespace}' }))`;
    await expect(
      Worker.create({ connection: env.connection, namespace, taskQueue: `team-${randomUUID()}`, plugins: [new AgentPlugin({ client: env.client })] }),
    ).rejects.toThrow(problem);
    await expect(createAgentWorker({ connection: env.connection, client: env.client, namespace, taskQueue: `team-${randomUUID()}` })).rejects.toThrow(problem);
  });

  it('refuses a worker that already has an activity named like one of the agent’s, naming it', async () => {
    await expect(
      Worker.create({
        connection: env.connection,
        taskQueue: `team-${randomUUID()}`,
        workflowsPath: TEAM_WORKFLOWS,
        activities: { runTool: async () => 'theirs' },
        plugins: [new AgentPlugin()],
      }),
    ).rejects.toThrow(/already registers an activity named "runTool", which the agent workflow calls/);
  });
});
