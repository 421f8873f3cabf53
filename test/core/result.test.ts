// One AgentResult builder for the workflow's end and the client's reading of a run the server closed.
import { describe, expect, it } from 'vitest';
import { agentResult, type ResultFields } from '../../src/core/result.js';

const fields: ResultFields = {
  workflowId: 'w',
  runId: 'r',
  status: 'completed',
  stopReason: 'end_turn',
  guard: null,
  text: 'done',
  steps: 2,
  toolCalls: 1,
  usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  costUsd: null,
  error: null,
  runsUsed: 1,
};

describe('agentResult', () => {
  it('is partial unless the run completed', () => {
    expect(agentResult(fields).partial).toBe(false);
    expect(agentResult({ ...fields, status: 'stopped', guard: 'max_steps' }).partial).toBe(true);
    expect(agentResult({ ...fields, status: 'terminated' }).partial).toBe(true);
  });

  it('carries output, runsUsed and resumedFrom only where they say something', () => {
    const plain = agentResult(fields);
    expect('runsUsed' in plain || 'resumedFrom' in plain || 'output' in plain).toBe(false);
    const full = agentResult({ ...fields, output: { answer: 42 }, runsUsed: 3, resumedFrom: { workflowId: 'w', runId: 'r0' } });
    expect(full).toMatchObject({ output: { answer: 42 }, runsUsed: 3, resumedFrom: { workflowId: 'w', runId: 'r0' } });
  });
});
