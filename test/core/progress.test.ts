import { describe, expect, it } from 'vitest';
import { progressDetails } from '../../src/core/progress.js';
import type { AgentStatusView } from '../../src/core/types.js';

const view: AgentStatusView = {
  workflowId: 'wf',
  runId: 'r',
  status: 'awaiting_input',
  steps: 1,
  toolCalls: 0,
  usage: { input_tokens: 10, output_tokens: 5 } as AgentStatusView['usage'],
  costUsd: null,
  stopReason: 'tool_use',
  guard: null,
  inFlight: [],
  pendingApprovals: [],
  lastText: '',
  messages: 2,
  deadlineAt: null,
  runsUsed: 1,
  waitingForMessage: false,
  clearedUpTo: 0,
  model: 'claude-x',
};

describe('progressDetails', () => {
  it("shows a pending MCP question's id, server, message and requested schema in the UI's current details", () => {
    const details = progressDetails(
      {
        ...view,
        pendingQuestions: [
          { id: 'toolu_1/1', toolUseId: 'toolu_1', index: 0, key: 'k', server: 'fx', message: 'Which region?', requestedSchema: { type: 'object', properties: { region: { type: 'string' } } } },
        ],
      },
      0,
    );
    expect(details.split('\n\n')[0]).toMatch(/^\*\*awaiting_input\*\*/);
    expect(details).toContain('question toolu_1/1 from MCP server "fx": Which region? (`answer`) · schema: `{"type":"object","properties":{"region":{"type":"string"}}}`');
  });
});
