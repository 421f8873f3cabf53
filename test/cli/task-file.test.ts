// Reading a task file (`start --tasks FILE.jsonl`): its lines as tasks, the lines that are not named by number.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTaskLines } from '../../src/cli/task-file.js';

async function fileOf(text: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'tasks-')), 'tasks.jsonl');
  await writeFile(file, text);
  return file;
}

describe('readTaskLines', () => {
  it('reads a file saved with a byte order mark (as Windows editors save UTF-8) from its first line, not refusing it as "not a JSON object"', async () => {
    const { lines, problems } = await readTaskLines(await fileOf('\uFEFF{"task": "one"}\r\n{"task": "two"}\r\n'));
    expect(problems).toEqual([]);
    expect(lines.map((l) => [l.line, l.task])).toEqual([[1, 'one'], [2, 'two']]);
  });
});
