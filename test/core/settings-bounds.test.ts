// One table of run settings (src/core/run-settings.ts): the library's check, the CLI's flags and the body of
// POST /v1/runs refuse the same values with the same words, each naming the setting as its caller wrote it (a
// field, a flag); and the flags, the body's fields and the OpenAPI request body are the table's, not restated.
import { describe, expect, it } from 'vitest';
import { checkAgentSettings, InvalidSettingsError, priorityProblem } from '../../src/core/settings-check.js';
import { defaultSettings } from '../../src/core/settings.js';
import { parseArgs } from '../../src/core/args.js';
import { ALL_SETTINGS, httpFields, RUN_SETTINGS } from '../../src/core/run-settings.js';
import { runInput } from '../../src/config/run-input.js';
import { toolCatalog } from '../../src/config/tool-names.js';
import { runFromFlags, START_FLAGS } from '../../src/cli/settings.js';
import { parseRunRequest } from '../../src/serve/run-request.js';
import { openApiDocument } from '../../src/serve/openapi.js';
import { compileAlone } from '../../src/tools/validate.js';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

/** The same bad value through the three doors: what each says. `body` is what POST /v1/runs gets; `argv` the flags. */
function refusals(settings: Record<string, unknown>, argv: string[], body = settings) {
  const library = message(() => checkAgentSettings(defaultSettings(settings)));
  const cli = message(() => runFromFlags(parseArgs(argv, START_FLAGS).flags));
  // The body is checked when it is parsed (types and bounds), then with the rest of the run's input.
  const http = message(() => runInput(parseRunRequest({ task: 'a task', ...body }).values, toolCatalog({})));
  return { library, cli, http };
}

describe('one table of run settings for the library, the CLI and POST /v1/runs', () => {
  it.each([
    [{ maxSteps: 20_000 }, ['--max-steps', '20000'], 'maxSteps', '--max-steps', 'must be at most 10000 (got 20000)'],
    [{ maxSteps: 0 }, ['--max-steps', '0'], 'maxSteps', '--max-steps', 'must be at least 1 (got 0)'],
    [{ maxOutputTokens: 200_000 }, ['--max-output-tokens', '200000'], 'maxOutputTokens', '--max-output-tokens', 'must be at most 128000 (got 200000)'],
    [{ maxToolOutputChars: 50 }, ['--max-tool-output', '50'], 'maxToolOutputChars', '--max-tool-output', 'must be at least 100 (got 50)'],
    [{ maxAgentDepth: 11 }, ['--max-agent-depth', '11'], 'maxAgentDepth', '--max-agent-depth', 'must be at most 10 (got 11)'],
    [{ budgetUsd: -1 }, ['--budget-usd', '-1'], 'budgetUsd', '--budget-usd', 'must be at least 0 (got -1)'],
    [{ heartbeatTimeoutMs: 500 }, ['--heartbeat-timeout', '500ms'], 'heartbeatTimeoutMs', '--heartbeat-timeout', 'must be at least 1000 ms (got 500 ms)'],
    [{ effort: 'extreme' }, ['--effort', 'extreme'], 'effort', '--effort', 'must be one of low, medium, high, xhigh, max (got "extreme")'],
    [{ summaryOn: ['budget'] }, ['--summary-on', 'budget'], 'summaryOn[0]', '--summary-on', 'must be one of max_steps, repetition, error_streak (got "budget")'],
    [{ webhooks: ['ftp://example.com/h'] }, ['--webhook', 'ftp://example.com/h'], 'webhooks[0]', '--webhook', '"ftp://example.com/h" is not an http:// or https:// URL'],
    [
      { serverTools: { tools: ['web_search'], webSearchMaxUses: 2000 } },
      ['--server-tools', 'web_search', '--web-search-max-uses', '2000'],
      'serverTools.webSearchMaxUses',
      '--web-search-max-uses',
      'must be at most 1000 (got 2000)',
    ],
  ] as const)('%j: the same words from all three', (settings, argv, field, flag, words) => {
    const { library, cli, http } = refusals(settings, [...argv]);
    expect(library).toBe(`invalid settings: ${field} ${words}`);
    expect(cli).toBe(`${flag} ${words}`);
    expect(http).toBe(`${field} ${words}`);
  });

  it('names the other setting of a problem as each caller names it', () => {
    const { library, cli, http } = refusals({ thinkingBudget: 4096, maxOutputTokens: 4096 }, ['--thinking', '4096']);
    expect(library).toBe('invalid settings: thinkingBudget must be less than maxOutputTokens (4096; got 4096)');
    expect(cli).toBe('--thinking must be less than --max-output-tokens (4096; got 4096)');
    expect(http).toBe('thinkingBudget must be less than maxOutputTokens (4096; got 4096)');
    const compaction = refusals({ compactAt: 50_000, compaction: false }, ['--compact-at', '50000', '--no-compaction']);
    expect(compaction.cli).toBe('--compact-at cannot be given with --no-compaction');
    expect(compaction.http).toBe('compactAt cannot be given with compaction: false');
  });

  it("refuses a bad priority with the same words from the library's startAgent check, the CLI and the body", () => {
    expect(priorityProblem({ priorityKey: 9 })).toBe('priority must be at most 5 (got 9)');
    expect(message(() => runFromFlags(parseArgs(['--priority', '9'], START_FLAGS).flags))).toBe('--priority must be at most 5 (got 9)');
    expect(message(() => parseRunRequest({ task: 'x', priority: 9 }))).toBe('priority must be at most 5 (got 9)');
    expect(message(() => runFromFlags(parseArgs(['--fairness-weight', '2'], START_FLAGS).flags))).toBe('--fairness-weight needs --fairness-key (the key it weighs)');
  });

  it('derives every flag, body field and OpenAPI property from the table', () => {
    const flags = START_FLAGS as Record<string, { type: string }>;
    for (const [name, spec] of ALL_SETTINGS) {
      if (spec.flag) expect(flags[spec.flag.name], name).toBeDefined();
      for (const sub of Object.keys(spec.flag?.properties ?? {})) expect(flags[sub], sub).toBeDefined();
    }
    const doc = openApiDocument() as { paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: { properties: object } }> } } }> };
    const body = doc.paths['/v1/runs'].post!.requestBody.content['application/json'].schema.properties as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['id', 'task', ...httpFields().map(([name]) => name)].sort());
    expect(body.maxSteps).toEqual(RUN_SETTINGS.maxSteps.schema);
    expect(body).not.toHaveProperty('searchAttributes');
  });

  it("the OpenAPI request body is a JSON Schema Ajv compiles, and it takes and refuses what the body's check does", () => {
    const doc = openApiDocument() as { paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: object }> } } }> };
    const validate = compileAlone(doc.paths['/v1/runs'].post!.requestBody.content['application/json'].schema);
    const bodies = [
      { task: 'x', maxSteps: 5, serverTools: { tools: ['web_search'], webSearchMaxUses: 3 }, prices: { m: { input: 1, output: 2, cacheWrite: 1, cacheRead: 0 } } },
      { task: 'x', maxSteps: 20_000 },
      { task: 'x', effort: 'extreme' },
      { task: 'x', prices: { m: { input: 1 } } },
      { task: 'x', priority: 6 },
      { task: 'x', maxStep: 3 },
    ];
    const verdicts = bodies.map((body) => [validate(body), message(() => parseRunRequest(body)) === 'accepted']);
    expect(verdicts).toEqual(bodies.map((_, i) => [i === 0, i === 0]));
  });

  it('gives the library the InvalidSettingsError naming the field, its path inside it included', () => {
    const err = (() => {
      try {
        checkAgentSettings(defaultSettings({ serverTools: { tools: ['web_search'], webSearchMaxUses: 0 } }));
      } catch (e) {
        return e as InvalidSettingsError;
      }
    })();
    expect(err).toBeInstanceOf(InvalidSettingsError);
    expect({ field: err?.field, path: err?.path }).toEqual({ field: 'serverTools', path: 'serverTools.webSearchMaxUses' });
  });
});
