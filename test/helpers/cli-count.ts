// Counts the `durable-agent` processes the tests spawn: each spawner calls countCliProcess, which appends a line to a
// file in the folder global-setup names (DURABLE_AGENT_CLI_COUNT_DIR); global-setup's teardown prints the total and
// the files that spawned the most. The suite's budget: fewer than 60 in a full run (issue 41).
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export const CLI_COUNT_FILE = 'cli-processes.log';

export function countCliProcess(args: string[]): void {
  const dir = process.env.DURABLE_AGENT_CLI_COUNT_DIR;
  if (!dir) return;
  let file = '?';
  try {
    file = path.relative(process.cwd(), expect.getState().testPath ?? '?');
  } catch {
    // outside a test (a hook): the file is unknown
  }
  appendFileSync(path.join(dir, CLI_COUNT_FILE), `${file}\t${args[0] ?? ''}\n`);
}
