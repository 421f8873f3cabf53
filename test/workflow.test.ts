// `durable-agent/workflow`, the entry point a team's own workflow imports to run the agent as its child: it bundles
// with bundleWorkflowCode (which refuses any Node-only import), and a team workflow bundled with it runs the agent as
// a child workflow on a worker with AgentPlugin, the child writing its search attributes.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { AgentStatus } from '../src/core/search-attributes.js';
import { AgentPlugin } from '../src/worker/plugin.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { agentInput } from '../src/core/settings.js';
import { useTestEnv } from './helpers/harness.js';

const env = useTestEnv();
const ENTRY = fileURLToPath(new URL('../src/workflow.ts', import.meta.url));
const TEAM_PARENT = fileURLToPath(new URL('./fixtures/workflow-entry/team-parent.ts', import.meta.url));
const quiet = new DefaultLogger('WARN');

describe('durable-agent/workflow', () => {
  it('bundles as workflow code: nothing Node-only is imported (the bundler refuses node:fs and the like)', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: ENTRY, logger: quiet });
    expect(code).toContain('agentWorkflow');
    expect(code).not.toMatch(/require\("(node:)?(fs|child_process|net|crypto)"\)/);
  });

  it('agentInput fills in the defaults, search attributes on', () => {
    const input = agentInput('a task', { tools: ['calculator'] });
    expect(input).toEqual({ task: 'a task', settings: expect.objectContaining({ tools: ['calculator'], maxSteps: 20, searchAttributes: true }) });
    expect(agentInput('t', { searchAttributes: false }).settings.searchAttributes).toBe(false);
  });

  it("a team's workflow importing it runs the agent as its child, which writes its search attributes", async () => {
    const model = await startScriptedModel({ script: [reply([toolUse('calculator', { expression: '6 * 7' })]), reply([text('It is 42.')])] });
    const taskQueue = `team-${randomUUID()}`;
    try {
      const plugin = new AgentPlugin({ model: { apiKey: 'test-key', baseURL: model.url } });
      const workflowBundle = await bundleWorkflowCode({ workflowsPath: TEAM_PARENT, plugins: [plugin], logger: quiet });
      const worker = await Worker.create({ connection: env.connection, taskQueue, workflowBundle, plugins: [plugin] });
      const id = `team-parent-${randomUUID()}`;
      const result = await worker.runUntil(env.client.workflow.execute('teamParentWorkflow', { taskQueue, workflowId: id, args: [id] }));
      expect(result).toMatchObject({ status: 'completed', text: 'It is 42.', toolCalls: 1 });
      const child = await env.client.workflow.getHandle(`${id}-agent`).describe();
      expect(child.parentExecution?.workflowId).toBe(id);
      expect(child.typedSearchAttributes.get(AgentStatus)).toBe('completed');
    } finally {
      await model.close();
    }
  });
});
