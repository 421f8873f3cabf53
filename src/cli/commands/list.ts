// `list`: recent runs from the server's visibility store, one row each with their search attributes as columns.
// `status` and `transcript` are in status.ts and transcript.ts.
import type { RunSummary } from '../../client/index.js';
import { agentClient } from '../lazy-client.js';
import { AGENT_STATUSES, TERMINAL_STATUSES } from '../../core/types.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { table, timeText } from '../format.js';
import { logLine } from '../log.js';
import { JSON_FLAG, printJson, printText } from '../output.js';
import { withTemporal } from '../temporal.js';

const LIST_FLAGS = {
  status: {
    type: 'string',
    choices: AGENT_STATUSES,
    value: 'S',
    help: `only runs with this status: ${AGENT_STATUSES.join(', ')} (terminated and timed_out: as the server closed them)`,
  },
  limit: { type: 'int', min: 1, max: 10_000, help: 'at most N runs, newest first (default 20; with --schedule or --batch, 1000)' },
  schedule: { type: 'string', value: 'NAME', help: 'only the runs this schedule started (schedule create)' },
  batch: { type: 'string', value: 'NAME', help: 'only the runs of this task batch (start --tasks)' },
  ...JSON_FLAG,
} satisfies Record<string, FlagSpec>;

export const list = defineCommand({
  usage: 'list [--status S] [--schedule NAME] [--batch NAME] [--limit N] [--json]',
  description: `Recent runs from the server's visibility store, with their search attributes as columns. The earlier
runs of an id (continue-as-new, resume, temporal workflow reset) are marked "(earlier run)". A SCHEDULE or BATCH
column appears when a run listed came from a schedule or a task batch.`,
  flags: LIST_FLAGS,
  examples: ['list', 'list --status awaiting_approval --limit 5', 'list --schedule nightly-triage', 'list --batch issues --status failed'],
  run: listCommand,
});

async function listCommand({ flags, positionals }: Parsed<typeof LIST_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], 'list [--status S] [--schedule NAME] [--batch NAME] [--limit N] [--json]');
  for (const f of ['schedule', 'batch'] as const) {
    if (flags[f] !== undefined && !/^[\w.@-]{1,100}$/.test(flags[f])) throw new UsageError(`--${f}: "${flags[f].slice(0, 60)}" is not a ${f} name (letters, digits and . _ @ -)`);
  }
  const { schedule, batch } = flags;
  return withTemporal(async (temporal) => {
    const { listRuns } = await agentClient();
    const limit = flags.limit ?? (schedule || batch ? 1000 : 20);
    const runs = await listRuns(temporal.client, { status: flags.status, limit, schedule, batch });
    if (flags.json) printJson(runs);
    else printText(formatList(runs));
    const of = [schedule ? ` started by schedule ${schedule}` : '', batch ? ` in batch ${batch}` : '', flags.status ? ` with AgentStatus ${flags.status}` : ''].join('');
    if (!flags.json && runs.length === 0) logLine(`no runs${of}`);
    return 0;
  });
}

/** Columns shown only when some run has a value: a versioned worker's build id (a Worker Deployment version), a
 * sub-agent's parent run, the schedule or the task batch a run came from. */
const OPTIONAL_COLUMNS: ReadonlyArray<[string, (r: RunSummary) => string | undefined]> = [
  ['BUILD ID', (r) => r.buildId],
  ['PARENT', (r) => r.parentWorkflowId],
  ['SCHEDULE', (r) => r.schedule],
  ['BATCH', (r) => r.taskBatch],
];

export function formatList(runs: readonly RunSummary[]): string {
  const optional = OPTIONAL_COLUMNS.filter(([, cell]) => runs.some(cell));
  const header = ['WORKFLOW ID', 'STATUS', 'STEPS', 'TOKENS', 'COST', 'STOP REASON', 'GUARD', 'STARTED', ...optional.map(([name]) => name)];
  const rows = runs.map((r) => {
    const a = r.attributes;
    const status = `${statusCell(r)}${r.current ? '' : ' (earlier run)'}`;
    return [
      r.workflowId,
      status,
      a.steps !== undefined ? String(a.steps) : '—',
      a.tokens !== undefined ? a.tokens.toLocaleString('en-US') : '—',
      a.costUsd !== undefined ? `$${a.costUsd.toFixed(4)}` : '—',
      a.stopReason ?? '—',
      a.guard ?? '—',
      timeText(r.startTime),
      ...optional.map(([, cell]) => cell(r) ?? '—'),
    ];
  });
  return table(header, rows, [2, 3, 4]);
}

/** The run's status as the workflow last published it, unless the server closed the run without the workflow
 * saying so (terminated, timed out) or the run went on in another (continue-as-new). */
function statusCell(r: RunSummary): string {
  const byServer: Record<string, string> = { TERMINATED: 'terminated', TIMED_OUT: 'timed_out', CONTINUED_AS_NEW: 'continued as new' };
  if (byServer[r.executionStatus]) return byServer[r.executionStatus];
  const a = r.attributes;
  const closedUnsaid = r.executionStatus !== 'RUNNING' && (!a.status || !TERMINAL_STATUSES.includes(a.status));
  return (a.status ?? '—') + (closedUnsaid ? ` (${r.executionStatus})` : '');
}
