// Where a task comes from: the argument, a file (`--task-file FILE`), or standard input (`-`, or
// `--task-file -`): argv stops around 128 KB, a long task does not. Its size is checked before anything starts,
// since the task travels in the workflow input, one Temporal payload.
import { readFile, stat } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { UsageError } from '../core/args.js';
import { MAX_INPUT_BYTES, taskSizeProblem, tooLargeFix } from '../core/run-settings.js';

/** The task text, or '' when none was given and `optional` (`run --id ID` reattaching). */
export async function readTask(
  positionals: string[],
  taskFile: string | undefined,
  usage: string,
  optional = false,
): Promise<string> {
  if (taskFile !== undefined && positionals.length > 0) {
    throw new UsageError(`give the task either as an argument or with --task-file, not both\nusage: ${usage}`);
  }
  if (positionals.length > 1) {
    const extra = positionals.slice(1).map((p) => JSON.stringify(p));
    throw new UsageError(`unexpected argument ${extra.join(' ')} (quote a task that has spaces)\nusage: ${usage}`);
  }
  const source = taskFile ?? positionals[0];
  if (source === undefined) {
    if (optional) return '';
    throw new UsageError(`missing task\nusage: ${usage}`);
  }
  const task = source === '-' ? await readStdin() : taskFile !== undefined ? await readTaskFile(taskFile) : source;
  if (!task.trim()) throw new UsageError(`the task is empty${source === '-' ? ' (nothing on standard input)' : taskFile ? ` (${taskFile})` : ''}`);
  checkTaskSize(task);
  return task;
}

/** A task too large for one payload is refused here, naming the limit, instead of failing the start. */
function checkTaskSize(task: string): void {
  const problem = taskSizeProblem(task);
  if (problem) throw new UsageError(`the task ${problem}`);
}

async function readTaskFile(file: string): Promise<string> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new UsageError(`--task-file ${file} is a directory, not a file`);
    // Refuse before reading gigabytes into memory.
    if (info.size > 4 * MAX_INPUT_BYTES) throw new UsageError(`the task is ${(info.size / 1_000_000).toFixed(1)} MB: ${tooLargeFix('task')}`);
    return await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--task-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError('the task is "-" (standard input), but standard input is a terminal: pipe the task in, or use --task-file FILE');
  }
  return text(process.stdin);
}
