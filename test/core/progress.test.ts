import { describe, expect, it, vi } from 'vitest';
import { groupThousands, progressDetails } from '../../src/core/progress.js';
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

describe('groupThousands', () => {
  it("writes an integer as toLocaleString('en-US') does (1,234,567), negative and zero included", () => {
    for (const n of [0, 7, 42, 999, 1000, 12_345, 123_456, 1_234_567, 999_999_999, -1, -1234, -123_456_789, Number.MAX_SAFE_INTEGER]) {
      expect(groupThousands(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('leaves a fraction to Intl, as before', () => {
    expect(groupThousands(1234.5)).toBe((1234.5).toLocaleString('en-US'));
  });
});

describe('progressDetails, built at every step of every run', () => {
  it('formats the token count without Intl (toLocaleString), with the same text', () => {
    const spy = vi.spyOn(Number.prototype, 'toLocaleString');
    try {
      const details = progressDetails({ ...view, status: 'running', usage: { input_tokens: 1_234_000, output_tokens: 567, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, 0);
      expect(details.split('\n\n')[0]).toContain('1,234,567 tokens');
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
