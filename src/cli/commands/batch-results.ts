// `result --batch NAME`: waits for every run of a task batch (start --tasks) and prints one line per run, or with
// --json one array of their results. The exit code is 0 when every run completed, else that of the first that did
// not (in the list's order), so a script can tell "all done" from "look at the list".
import { UsageError } from '../../core/args.js';
import { oneLine } from '../../core/transcript.js';
import type { AgentResult } from '../../core/types.js';
import { logLine } from '../log.js';
import { exitCodeFor, printJson, printText } from '../output.js';
import { withTemporal } from '../temporal.js';

export function batchResults(batch: string, json: boolean): Promise<number> {
  return withTemporal(async (temporal) => {
    const { checkBatchName, getTaskBatchResults, listTaskBatch } = await import('../../client/task-file.js');
    try {
      checkBatchName(batch);
    } catch (err) {
      throw new UsageError(`--batch: ${(err as Error).message}`);
    }
    const runs = await listTaskBatch(temporal.client, batch);
    if (runs.length === 0) throw new UsageError(`no runs in batch "${batch}" on this Temporal server (start them with start --tasks FILE)`);
    const running = runs.filter((r) => r.executionStatus === 'RUNNING').length;
    if (running > 0) logLine(`batch ${batch}: waiting for ${running} of ${runs.length} runs to end (Ctrl-C stops waiting, not the runs)`);
    const results = await getTaskBatchResults(temporal.client, batch);
    if (json) printJson(results);
    else printText(formatBatch(results));
    const notCompleted = results.find((r) => r.status !== 'completed');
    return notCompleted ? exitCodeFor(notCompleted.status) : 0;
  });
}

/** One line per run: its id, status, cost and the first line of its answer (or error). */
export function formatBatch(results: readonly AgentResult[]): string {
  const width = Math.max(...results.map((r) => r.workflowId.length));
  const lines = results.map((r) => {
    const cost = r.costUsd === null ? '$?' : `$${r.costUsd.toFixed(4)}`;
    const said = oneLine(r.error ?? (r.text || '(no answer text)'), 100);
    return `${r.workflowId.padEnd(width)}  ${r.status.padEnd(9)}  ${cost}  ${said}`;
  });
  const done = results.filter((r) => r.status === 'completed').length;
  return `${lines.join('\n')}\n— ${done} of ${results.length} completed\n`;
}
