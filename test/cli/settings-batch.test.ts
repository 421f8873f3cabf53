// Batch mode from the CLI and the HTTP API: `--batch` / `"modelCalls": "batch"` become `modelCalls: 'batch'` in the workflow
// input, and what cannot go with it is refused before anything starts (exit 2 from the CLI), naming the flag.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/core/args.js';
import { settingsFromFlags, START_FLAGS } from '../../src/cli/settings.js';
import { parseRunRequest, RequestError } from '../../src/serve/run-request.js';
import { runInput } from '../../src/config/run-input.js';
import { toolCatalog } from '../../src/config/tool-names.js';
import { cliCommand, expectExit, jsonOf, useCli } from '../helpers/cli.js';
import { scheduledActivities } from '../helpers/harness.js';

const { client, session } = useCli();
const flags = (...argv: string[]) => parseArgs(argv, START_FLAGS).flags;

describe('batch mode settings from the CLI and POST /v1/runs', () => {
  it('--batch and --batch-fallback become modelCalls and batchFallback; a run without them makes direct calls', () => {
    expect(settingsFromFlags(flags('--batch'))).toMatchObject({ modelCalls: 'batch' });
    expect(settingsFromFlags(flags('--batch', '--batch-fallback', 'direct'))).toMatchObject({ modelCalls: 'batch', batchFallback: 'direct' });
    expect(settingsFromFlags(flags()).modelCalls).toBeUndefined();
  });

  it('"modelCalls": "batch" in a POST /v1/runs body is --batch', () => {
    const request = parseRunRequest({ task: 'triage', modelCalls: 'batch', batchFallback: 'retry' });
    expect(runInput(request.values, toolCatalog({})).settings).toMatchObject({ modelCalls: 'batch', batchFallback: 'retry' });
    expect(() => parseRunRequest({ task: 'triage', modelCalls: 'yes' })).toThrow(RequestError);
  });

  it('refuses --batch with --local-model-calls and --batch-fallback without --batch, naming the flags', () => {
    expect(() => settingsFromFlags(flags('--batch', '--local-model-calls'))).toThrow(UsageError);
    expect(() => settingsFromFlags(flags('--batch', '--local-model-calls'))).toThrow(/--batch cannot be combined with --local-model-calls/);
    expect(() => settingsFromFlags(flags('--batch-fallback', 'direct'))).toThrow(/--batch-fallback applies to batch runs only: add --batch/);
    expect(() => settingsFromFlags(flags('--batch', '--batch-fallback', 'later'))).toThrow(/--batch-fallback must be one of retry, direct/);
  });

  it('the CLI exits 2 on --batch with --local-model-calls, before starting anything', async () => {
    const exit = await cliCommand(['start', '--batch', '--local-model-calls', 'a task']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/--batch cannot be combined with --local-model-calls/);
  });

  it("`worker --batch-window` longer than 60 s exits 2 naming the flag, before the worker starts", async () => {
    const exit = await cliCommand(['worker', '--batch-window', '2m']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/--batch-window must be at most 60000 \(got 120000\)/);
  });

  it('`run --scripted --batch` runs the France demo offline with every model call a batch request: the answer, exit 0', { timeout: 120_000 }, async () => {
    const { cli } = session();
    const exit = await cli(['run', '--scripted', '--batch', '--json', 'Search for the population of France and calculate what 15% of that number is']);
    expectExit(exit, 0);
    const doc = jsonOf<{ workflowId: string; status: string; text: string; steps: number }>(exit);
    expect(doc).toMatchObject({ status: 'completed', steps: 3 });
    expect(doc.text).toContain('10,290,900');
    const activities = await scheduledActivities(client(), doc.workflowId);
    expect(activities.filter((a) => a === 'submitModelBatchRequest')).toHaveLength(3);
    expect(activities).not.toContain('callModel');
  });
});
