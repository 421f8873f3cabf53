// `durable-agent/workflow`: the agent as a child of your own workflow. Workflow-safe (a test bundles it with
// bundleWorkflowCode, which refuses any Node-only import): the workflow, the types of its input and result, the
// messages it answers, and `agentInput` with the defaults filled in.
//
//   import { executeChild } from '@temporalio/workflow';
//   import { agentInput, agentWorkflow } from 'durable-agent/workflow';
//   const result = await executeChild(agentWorkflow, { args: [agentInput('Summarise the report', { tools: ['calculator'] })] });
//
// The worker running your workflow needs AgentPlugin (its activities, and the agent workflow in your bundle).
export { agentWorkflow } from './workflows/agent.js';
export { AGENT_WORKFLOW, agentStatus, closeChat, decideToolCall, runState, sendMessage, transcriptPage } from './workflows/definitions.js';
export { agentInput, defaultSettings } from './core/settings.js';
export type {
  AgentInput,
  AgentResult,
  AgentSettings,
  AgentStatusView,
  ChildRunRecord,
  ForkOrigin,
  GuardName,
  RunState,
  RunStatus,
  ServerToolSettings,
  SubAgentDefinition,
  Usage,
} from './core/types.js';

