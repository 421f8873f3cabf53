// With AGENT_ENCRYPTION_KEYS set, nothing of a run's content reaches Temporal's history in plain text: not the
// task (workflow input, summary, workflow id), not the model's replies, not tool inputs (arguments, activity
// summaries), tool outputs or tool failures, not the failure message of a failed run. The raw history is read
// without any data converter, as anyone with access to the server's database could.
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { completeToolCall, getAgentResult, getTranscript, ToolCompletionError } from '../../src/client/index.js';
import { decodeCompletionToken } from '../../src/activities/completion-token.js';
import { apiError, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { webSearch } from '../../src/tools/web-search.js';
import { builtinTools } from '../../src/tools/registry.js';
import { useSharedAgent, useTestEnv, withAgent, type AgentHarness, type TestEnv } from '../helpers/harness.js';
import { findPlainText, payloadEncodings, rawHistory, traceHeaders } from '../helpers/plaintext.js';

const tag = randomUUID().slice(0, 8);
const SECRET = {
  task: `task-secret-${tag}-quokka`,
  reply: `reply-secret-${tag}-narwhal`,
  toolInput: `input-secret-${tag}-axolotl`,
  searchQuery: `query-secret-${tag}-pangolin`,
  toolOutput: `output-secret-${tag}-okapi`,
  crash: `crash-secret-${tag}-tapir`,
  failure: `failure-secret-${tag}-dugong`,
};
const ALL = Object.values(SECRET);

const vault = defineTool<{ text: string }>({
  name: 'vault',
  description: 'Echoes its input with a secret.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute({ text: input }) {
    return `vault says ${input} and ${SECRET.toolOutput}`;
  },
});
// An infrastructure failure (not a ToolError) whose message echoes its input: retried, then an error result.
const crashy = defineTool<{ text: string }>({
  name: 'crashy',
  description: 'Always crashes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute({ text: input }) {
    throw new Error(`crashed on ${input} (${SECRET.crash})`);
  },
});
const TOOLS = [vault, crashy, webSearch];

const script: Script = [
  reply([
    text(`Looking into ${SECRET.reply}`),
    toolUse('vault', { text: SECRET.toolInput }),
    toolUse('web_search', { query: SECRET.searchQuery }),
    toolUse('crashy', { text: SECRET.toolInput }),
  ]),
  reply([text(`All done: ${SECRET.reply}`)]),
];

const keys = `k1:${randomBytes(32).toString('base64')}`;
const encrypted = useTestEnv(agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys }));
const plain = useTestEnv(agentDataConverter({}));
let raw: Client;
beforeAll(() => {
  raw = new Client({ connection: encrypted.client.connection });
});
// One worker, with the keys, for the encrypted runs; the control run (no keys) has a worker of its own.
const ticketDefinition = { name: 'ticket', description: 'Opens a ticket; a person answers it.', inputSchema: { type: 'object', properties: {} }, completesLater: true } as const;
const shared = useSharedAgent(encrypted, { tools: [...builtinTools, vault, crashy, ticketDefinition] });

/** A payload stored in plain text. Patch markers (`patched()`) and a local activity's marker data are written by
 * Temporal's core itself, outside the codecs: the patch id, a name from our code; the activity's type, sequence
 * number, attempt and times (its result, `details.result`, goes through the codec). Never run data. */
const notEncrypted = (p: { path: string; encoding: string }) =>
  p.encoding !== 'binary/encrypted' && !/markerRecordedEventAttributes\.details\.(patch-data|data)\b/.test(p.path);

/** Runs the script to completion; `whileWorkerRuns` may query the run (the worker still answers). */
async function completedRun(env: TestEnv, whileWorkerRuns?: (id: string) => Promise<void>): Promise<string> {
  const withWorker = <T>(fn: (h: AgentHarness) => Promise<T>) =>
    env === encrypted ? shared.with({ script, tools: TOOLS }, fn) : withAgent(env, { script, tools: TOOLS }, fn);
  return withWorker(async (h) => {
    const id = await h.start(`Please handle ${SECRET.task}`, { tools: TOOLS.map((t) => t.name) });
    const result = await getAgentResult(env.client, id);
    expect(result.status).toBe('completed');
    expect(result.text).toBe(`All done: ${SECRET.reply}`);
    await whileWorkerRuns?.(id);
    return id;
  });
}

describe('encrypted history', () => {
  it('holds none of the task, replies, tool inputs, outputs and failures in plain text, yet the client reads them all', async () => {
    let transcript = '';
    const id = await completedRun(encrypted, async (runId) => {
      transcript = JSON.stringify(await getTranscript(encrypted.client, runId));
    });
    const history = await rawHistory(raw, id);
    expect(findPlainText(history, ALL)).toEqual([]);
    expect(id).not.toContain('handle');
    // Every payload (input, results, user metadata: summaries and details, failure attributes) is encrypted.
    const encodings = payloadEncodings(history);
    expect(encodings.length).toBeGreaterThan(10);
    expect(encodings.filter(notEncrypted)).toEqual([]);
    // A run started without a trace (this client has no OpenTelemetry interceptor) carries no trace header.
    expect(traceHeaders(history)).toEqual([]);
    // The activity summaries (`vault("…")`) are there, encrypted: one per scheduled activity (two turns with a tool
    // call and the answer; the tools were described in a local activity, whose result is encrypted too).
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.length).toBe(5);
    expect(encodings.filter((p) => /markerRecordedEventAttributes\.details\.result/.test(p.path)).map((p) => p.encoding)).toEqual(['binary/encrypted']);
    for (const e of scheduled) expect(Buffer.from(e.userMetadata!.summary!.metadata!.encoding!).toString()).toBe('binary/encrypted');

    // Through the client with the keys, everything is there.
    for (const s of [SECRET.task, SECRET.reply, SECRET.toolInput, SECRET.searchQuery, SECRET.toolOutput, SECRET.crash]) {
      expect(transcript).toContain(s);
    }
    const description = await encrypted.client.workflow.getHandle(id).describe();
    expect(await description.staticSummary()).toBe(`Please handle ${SECRET.task}`);
  }, 60_000);

  it('refuses an outside completion of an encrypted run from a client without the keys, which would store the result in plain text; one with them completes it encrypted', async () => {
    const tokens: string[] = [];
    const ticket = defineTool({
      ...ticketDefinition,
      execute: async (_input, context) => {
        tokens.push(context.completionToken);
        return context.completeLater();
      },
    });
    const id = await shared.with({ script: [reply([toolUse('ticket', {})]), reply([text('answered')])], tools: [ticket] }, async (h) => {
      const started = await h.start(`Please handle ${SECRET.task}`, { tools: ['ticket'] });
      await vi.waitFor(() => expect(tokens).toHaveLength(1), { timeout: 20_000 });
      const refused = await completeToolCall(plain.client, tokens[0], `the answer is ${SECRET.toolOutput}`).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(ToolCompletionError);
      expect((refused as Error).message).toBe(
        `tool call ${decodeCompletionToken(tokens[0])!.toolUseId} of ${started}: the run's data is encrypted, and this client does not encrypt: ` +
          'the result would be stored in plain text; complete it with the keys the workers use (AGENT_ENCRYPTION_KEYS)',
      );
      await completeToolCall(encrypted.client, tokens[0], `the answer is ${SECRET.toolOutput}`);
      expect(await getAgentResult(encrypted.client, started)).toMatchObject({ status: 'completed', text: 'answered' });
      return started;
    });
    expect(findPlainText(await rawHistory(raw, id), [SECRET.toolOutput])).toEqual([]);
  });

  it('keeps the failure message of a failed run encrypted (the workflow sandbox encodes failures too)', async () => {
    const failing: Script = [apiError(400, 'invalid_request_error', `rejected because of ${SECRET.failure}`)];
    const id = await shared.with({ script: failing }, async (h) => {
      const started = await h.start(`Please handle ${SECRET.task}`);
      const result = await getAgentResult(encrypted.client, started);
      expect(result.status).toBe('failed');
      expect(result.error).toContain(SECRET.failure);
      return started;
    });
    const history = await rawHistory(raw, id);
    const failed = history.events!.find((e) => e.workflowExecutionFailedEventAttributes);
    expect(failed).toBeDefined();
    expect(findPlainText(history, ALL)).toEqual([]);
    expect(payloadEncodings(history).filter(notEncrypted)).toEqual([]);
  }, 60_000);

  it('an encrypted history replays with the project data converter, and does not without the keys', async () => {
    const id = await shared.with({ script: [reply([text(`short ${SECRET.reply}`)])] }, async (h) => {
      const started = await h.start(`Please handle ${SECRET.task}`);
      expect((await getAgentResult(encrypted.client, started)).status).toBe('completed');
      return started;
    });
    const history = await rawHistory(raw, id);
    const workflowBundle = { codePath: inject('encodingWorkflowBundlePath') };
    await Worker.runReplayHistory({ workflowBundle, dataConverter: agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys }) }, history, id);
    await expect(Worker.runReplayHistory({ workflowBundle, dataConverter: agentDataConverter({}) }, history, id)).rejects.toThrow(
      /Replay failed due workflow task failure/,
    );
  }, 60_000);

  it('control: the same run without keys has the secrets in plain text, so the search above can fail', async () => {
    const id = await completedRun(plain);
    const found = findPlainText(await rawHistory(raw, id), ALL).join('\n');
    for (const s of [SECRET.task, SECRET.reply, SECRET.toolInput, SECRET.searchQuery, SECRET.toolOutput, SECRET.crash]) {
      expect(found).toContain(`"${s}"`);
    }
  }, 60_000);
});
