// `replay <workflowId>… | --query Q`: recorded runs as a regression suite. Each recorded tool call is made again with
// the current tools (built-ins, --config's, its MCP servers') and its result compared with the recorded one; with
// --live-model, the model is asked again at every step. Exit 0 when nothing diverges, 1 when something does.
import { toolsWithConfig } from '../../config/check.js';
import { UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { CONFIG_FLAG, loadCliConfig } from '../config.js';
import { agentClient } from '../lazy-client.js';
import { logLine } from '../log.js';
import { printJson, printText } from '../output.js';
import { withTemporal } from '../temporal.js';
import { requireModelAccess } from './run.js';
import type { ReplayReport, RunReplay } from '../../client/replay-runs.js';

const REPLAY_FLAGS = {
  query: { type: 'string', value: 'Q', help: "a visibility query naming the runs: \"WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Completed'\"" },
  limit: { type: 'int', min: 1, max: 10_000, help: 'at most N runs from --query (default 200)' },
  'all-tools': { type: 'boolean', help: 'call the tools not declared read-only too (they may change the world again)' },
  'live-model': { type: 'boolean', help: 'ask the model again at every recorded step and compare the tool calls it asks for' },
  scripted: { type: 'boolean', help: 'with --live-model: the offline scripted model (AGENT_SCRIPT or the config\'s) instead of Claude' },
  system: { type: 'string', help: "with --live-model: this system prompt instead of the run's" },
  model: { type: 'string', value: 'ID', help: "with --live-model: this model instead of the run's" },
  tools: { type: 'list', help: "with --live-model: offer these tools instead of the run's" },
  json: { type: 'boolean', help: 'print exactly one JSON document (for CI)' },
  ...CONFIG_FLAG,
} satisfies Record<string, FlagSpec>;

const USAGE = 'replay <workflowId>… | --query Q [--config FILE] [--all-tools] [--live-model [--scripted] [--system S] [--model M]] [--json]';

export const replay = defineCommand({
  usage: USAGE,
  description: `Replay recorded runs with the current code, reading them only (nothing is written to them, no workflow
starts): each recorded tool call is made again with the current tool on the recorded input (read-only tools only,
unless --all-tools) and its result compared with the recorded one; with --live-model, the conversation up to each
step is sent to the model with the current settings and the tool calls it asks for compared with the recorded ones.
Prints, per run, the steps checked, the first divergent step (recorded vs new) and the tools skipped. Exit 0 when
nothing diverges, 1 when something does, 2 on bad input.`,
  flags: REPLAY_FLAGS,
  examples: [
    'replay nightly-report-1 nightly-report-2 --config durable-agent.config.js',
    `replay --query "WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Completed' AND StartTime > '2026-11-29T00:00:00Z'" --json`,
    'replay nightly-report --live-model --system "Prefer the search tool over guessing"',
  ],
  run: replayCommand,
});

async function replayCommand({ flags, positionals }: Parsed<typeof REPLAY_FLAGS>): Promise<number> {
  if (positionals.length === 0 && !flags.query) throw new UsageError(`name the runs to replay: workflow ids, or --query (${USAGE})`);
  if (positionals.length > 0 && flags.query) throw new UsageError('give workflow ids or --query, not both');
  const liveOnly = (['scripted', 'system', 'model', 'tools'] as const).find((f) => flags[f] !== undefined);
  if (liveOnly && !flags['live-model']) throw new UsageError(`--${liveOnly} applies to --live-model only: add --live-model`);
  const { config } = await loadCliConfig(flags.config);
  if (flags['live-model'] && !flags.scripted) requireModelAccess();
  let closeModel = async () => {};
  let connection: { apiKey?: string; baseURL?: string } = {};
  if (flags['live-model'] && flags.scripted) {
    const { loadScript, openScriptedModel } = await import('../scripted.js');
    const model = await openScriptedModel(await loadScript(config));
    connection = model.connection;
    closeModel = model.close;
  }
  const tools = toolsWithConfig(config);
  const mcpServers = config.mcpServers ?? {};
  const mcp = Object.keys(mcpServers).length ? await (await import('../../mcp/tools.js')).connectMcpServers(mcpServers, { log: () => undefined }) : null;
  try {
    return await withTemporal(async (temporal) => {
      const { replayRuns } = await agentClient();
      const { createToolRegistry } = await import('../../tools/registry.js');
      const registry = mcp ? (await import('../../mcp/tools.js')).withMcpTools(createToolRegistry(tools), mcp) : createToolRegistry(tools);
      // A ReplayInputError (no run named, a query matching none) is exit 2 with its message (src/cli/errors.ts).
      const report = await replayRuns(temporal.client, {
        ...(flags.query ? { query: flags.query } : { workflowIds: positionals }),
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        tools: registry,
        allTools: flags['all-tools'] ?? false,
        ...(flags['live-model']
          ? {
              liveModel: {
                ...connection,
                settings: {
                  ...(flags.system !== undefined ? { system: flags.system } : {}),
                  ...(flags.model !== undefined ? { model: flags.model } : {}),
                  ...(flags.tools !== undefined ? { tools: flags.tools } : {}),
                },
              },
            }
          : {}),
      });
      // Runs named that do not exist, and nothing else: a typo, the caller's to fix.
      const notFound = report.runs.filter((r) => r.error && /not found/i.test(r.error));
      if (notFound.length > 0 && notFound.length === report.runs.length) {
        throw new UsageError(notFound.map((r) => `run ${r.workflowId}: ${r.error}`).join('; '));
      }
      if (flags.json) printJson(report);
      else printText(formatReplay(report));
      logLine(replaySummary(report));
      return report.diverged ? 1 : 0;
    });
  } finally {
    await mcp?.close();
    await closeModel();
  }
}

/** The last line on stderr: whether something diverged, and how many runs could not be replayed (not read, or a step's
 * request refused by the model: they are not compared). */
function replaySummary(report: ReplayReport): string {
  const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
  const unreadable = report.runs.filter((r) => r.error).length;
  const notRead = unreadable > 0 ? `${runs(unreadable)} could not be replayed` : '';
  if (report.runs.some((r) => r.firstDivergence)) return `replay: something diverged${notRead ? `; ${notRead}` : ''}`;
  return notRead ? `replay: ${notRead}` : `replay: ${runs(report.runs.length)}, every step agrees`;
}

/** One paragraph per run: steps checked and agreeing, the first divergence (recorded vs new), the tools skipped. */
export function formatReplay(report: ReplayReport): string {
  return report.runs.map(formatRun).join('\n\n');
}

function formatRun(run: RunReplay): string {
  if (run.error) return `${run.workflowId}: ${run.error}`;
  const agreeing = run.steps.filter((s) => s.agrees).length;
  const calls = run.steps.reduce((n, s) => n + s.tools.filter((t) => t.status !== 'skipped').length, 0);
  const askedAt = run.steps.filter((s) => s.model).length;
  const asked = askedAt > 0 ? `, the model asked again at ${askedAt} step${askedAt === 1 ? '' : 's'}` : '';
  const lines = [`${run.workflowId}: ${run.steps.length} steps checked (${calls} tool calls made again${asked}), ${agreeing} agree`];
  const d = run.firstDivergence;
  if (d) {
    lines.push(`  first divergence: step ${d.step}, ${d.what}`);
    for (const line of d.diff.split('\n')) lines.push(`    ${line}`);
  } else lines.push('  every step agrees');
  for (const s of run.skippedTools) lines.push(`  skipped: ${s}`);
  return lines.join('\n');
}
