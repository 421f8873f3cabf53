// `start --tasks FILE.jsonl`: one run per line of a JSON Lines file. A line is what `POST /v1/runs` takes (`task`,
// optional `id` and settings in camelCase: `{"task": "...", "maxSteps": 5}`), read by the same function
// (src/serve/run-request.ts) and checked by the same checks as the command line's flags, which it adds to (a
// line's own settings win). Every line is checked before anything starts: a bad line is exit 2 naming its number.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, type FlagSpec } from '../core/args.js';
import { canonicalJson } from '../core/canonical.js';
import type { RunPriority } from '../core/priority.js';
import type { AgentSettings } from '../core/types.js';
import type { ToolCatalog } from '../config/tool-names.js';
import { runInput } from '../config/run-input.js';
import { SettingsInputError } from '../core/settings-check.js';
import { validateJsonSchema } from '../tools/validate.js';
import { parseRunRequest, RequestError } from '../serve/run-request.js';

export const TASKS_FLAGS = {
  tasks: {
    type: 'string',
    value: 'FILE',
    help: 'start a run per line of FILE (JSON Lines: {"task": ..., "id"?, settings as in POST /v1/runs}); the flags apply to every line',
  },
  concurrency: { type: 'int', min: 1, max: 10_000, help: "with --tasks: at most N of the file's runs running at once (the command waits for runs to end)" },
  'tasks-name': {
    type: 'string',
    value: 'NAME',
    help: "with --tasks: the batch's name, for list --batch and result --batch (default: the file's name without .jsonl)",
  },
} satisfies Record<string, FlagSpec>;

/** At most this many bad lines are listed (a file of 10,000 bad lines would bury the first). */
const MAX_REPORTED = 20;

export interface TaskLine {
  /** 1-based, as an editor numbers it. */
  line: number;
  task: string;
  id?: string;
  /** The line's own settings, by the table's names. */
  values: Record<string, unknown>;
  /** The line as canonical JSON: what its run's id is derived from. */
  key: string;
}

export interface CheckedTaskLine extends TaskLine {
  settings: AgentSettings;
  priority?: RunPriority;
}

/** The batch's name: `--tasks-name`, else the file's base name without its extension. */
export function batchNameOf(file: string, name: string | undefined): string {
  return name ?? path.basename(file).replace(/\.[^.]*$/, '');
}

/** Reads and parses the file: each line a JSON object with a task. The lines that are not (`problems`, each naming
 * its line) are for the caller to report with those its settings check finds (refuse). An unreadable or empty
 * file is refused here. */
export async function readTaskLines(file: string): Promise<{ lines: TaskLine[]; problems: string[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--tasks: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines: TaskLine[] = [];
  const problems: string[] = [];
  // A byte order mark (Windows editors save UTF-8 with one) is no part of the first line.
  for (const [i, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    if (!raw.trim()) continue; // blank lines (a trailing newline) are no task
    try {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch (err) {
        throw new RequestError(`not a JSON object: ${(err as Error).message.split('\n')[0]}`);
      }
      const request = parseRunRequest(body);
      lines.push({ line: i + 1, task: request.task, ...(request.id ? { id: request.id } : {}), values: request.values, key: canonicalJson(body) });
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      problems.push(`line ${i + 1}: ${err.message}`);
    }
  }
  if (lines.length === 0 && problems.length === 0) throw new UsageError(`--tasks: ${file} holds no task (one JSON object a line: {"task": "..."})`);
  const ids = new Map<string, number>();
  for (const l of lines) {
    if (l.id && ids.has(l.id)) problems.push(`line ${l.line}: id "${l.id}" is also line ${ids.get(l.id)}'s: each run needs its own id`);
    if (l.id) ids.set(l.id, l.line);
  }
  return { lines, problems };
}

/** Each line's settings: the command line's values (from its flags), then the line's own, through the one settings
 * check (runInput); a problem names the line and the line's field. Refuses the file, naming every bad line (those
 * `earlier` names too: the lines that did not parse), in the order of the file. */
export function checkTaskLines(file: string, lines: readonly TaskLine[], commandValues: Record<string, unknown>, catalog: ToolCatalog, earlier: readonly string[] = []): CheckedTaskLine[] {
  const problems: string[] = [...earlier];
  const checked: CheckedTaskLine[] = [];
  for (const l of lines) {
    try {
      const { settings, priority } = runInput({ ...commandValues, ...l.values }, catalog, { compileSchema: validateJsonSchema });
      checked.push({ ...l, settings, ...(priority ? { priority } : {}) });
    } catch (err) {
      if (!(err instanceof SettingsInputError)) throw err;
      problems.push(`line ${l.line}: ${err.message}`);
    }
  }
  refuse(file, problems);
  return checked;
}

/** The tool names some line (or the command line) gives: the worker's catalog is needed to check them. */
export function toolsNamed(lines: readonly TaskLine[], commandValues: Record<string, unknown>): Array<string[] | undefined> {
  const tools = (v: Record<string, unknown>) => v.tools as string[] | undefined;
  return [tools(commandValues), ...lines.map((l) => tools(l.values) ?? tools(commandValues))];
}

/** Refuses the file when some line is bad, listing the bad lines in the order of the file. */
export function refuse(file: string, problems: string[]): void {
  if (problems.length === 0) return;
  const lineOf = (p: string) => Number(/^line (\d+)/.exec(p)?.[1] ?? 0);
  problems.sort((a, b) => lineOf(a) - lineOf(b));
  const more = problems.length > MAX_REPORTED ? `\n(and ${problems.length - MAX_REPORTED} more bad lines)` : '';
  throw new UsageError(
    `--tasks: ${file} has ${problems.length === 1 ? 'a bad line' : `${problems.length} bad lines`}; nothing was started:\n` +
      `${problems.slice(0, MAX_REPORTED).join('\n')}${more}`,
  );
}

