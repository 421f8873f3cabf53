// What the CLI writes reaches its reader whole, and text from the model or a tool cannot drive the terminal:
// - a multi-megabyte transcript and result piped through a slow reader arrive byte for byte (a bare
//   process.exit used to cut piped stdout at 64 KB);
// - control sequences in a reply (clear screen, window title, bell, 8-bit CSI) are shown as visible escapes by
//   every command that prints for a person, and kept exactly by --json.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getTranscript } from '../../src/client/index.js';
import { expectExit, jsonOf, stopWorker, useCli, type CliProcess, type Exit } from '../helpers/cli.js';

const { client, session } = useCli();

/** Reads the child's stdout slowly (a burst every 10 ms), as a pager or a slow network pipe would: far slower than
 * the CLI writes, so its pipe is full long before it has written everything (a bare exit would cut it there). */
function readSlowly(proc: CliProcess): Promise<Exit> {
  const stdout = proc.child.stdout!;
  stdout.pause();
  const timer = setInterval(() => {
    stdout.resume();
    setImmediate(() => stdout.pause());
  }, 10);
  return proc.exited.finally(() => clearInterval(timer));
}

describe('output is never cut', () => {
  it('transcript --json, transcript and result --json of a multi-megabyte run arrive whole through a slow reader', async () => {
    const { spawn, worker: startWorker, startedId } = session();
    // A 1.2 MB task (from --task-file) and a 1.5 MB answer: a transcript of about 2.7 MB.
    const task = `Summarise this log.\n${'task line with some words in it\n'.repeat(38_000)}END OF TASK`;
    const answer = `${'answer line, long enough to matter\n'.repeat(43_000)}END OF ANSWER`;
    const taskFile = path.join(tmpdir(), `task-${randomUUID()}.txt`);
    await writeFile(taskFile, task);
    const worker = await startWorker([{ content: [{ type: 'text', text: answer }], stop_reason: 'end_turn' }]);
    try {
      const id = await startedId(['--task-file', taskFile]);
      const result = await readSlowly(spawn(['result', id, '--json']));
      expectExit(result, 0);
      const doc = jsonOf<{ text: string; status: string }>(result);
      expect(doc.status).toBe('completed');
      expect(doc.text).toBe(answer);

      const [json, human] = await Promise.all([readSlowly(spawn(['transcript', id, '--json'])), readSlowly(spawn(['transcript', id]))]);
      expectExit(json, 0);
      expectExit(human, 0);
      // The test's client keeps gRPC's 4 MB answer limit (the CLI's has 128 MB, src/client/connection.ts): this read
      // goes through the history's fallback to smaller pages (src/client/history.ts), the CLI's above did not need it.
      const messages = await getTranscript(client(), id);
      const expected = `${JSON.stringify(messages, null, 2)}\n`;
      expect(Buffer.byteLength(expected)).toBeGreaterThan(2_500_000);
      expect(json.stdout.length).toBe(expected.length);
      expect(json.stdout === expected).toBe(true);
      expect(human.stdout.length).toBeGreaterThan(2_500_000);
      expect(human.stdout).toContain('END OF TASK');
      expect(human.stdout.trimEnd().endsWith('END OF ANSWER')).toBe(true);
    } finally {
      await stopWorker(worker);
    }
  }, 180_000);
});

describe('terminal control sequences in model and tool text are neutralised for a person, exact in --json', () => {
  const ESC = '\u001b';
  const hostile = `clear${ESC}[2J title${ESC}]0;pwned\u0007 csi\u009b31m bell\u0007 back\rover`;
  const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it('run, result, status, transcript and watch show the escapes as text; --json keeps the reply byte-exact', async () => {
    const { cli, worker: startWorker, startedId } = session();
    const script = [
      {
        content: [
          { type: 'text', text: `first ${hostile}` },
          { type: 'tool_use', name: 'calculator', input: { expression: `1+${ESC}[2J` } },
        ],
        stop_reason: 'tool_use',
      },
      { content: [{ type: 'text', text: `final ${hostile}` }], stop_reason: 'end_turn' },
    ];
    const worker = await startWorker(script);
    try {
      const id = await startedId(['compute something']);
      const [result, resultJson] = await Promise.all([cli(['result', id]), cli(['result', id, '--json'])]);
      const [status, transcript, transcriptJson, watch] = await Promise.all([
        cli(['status', id]),
        cli(['transcript', id]),
        cli(['transcript', id, '--json']),
        cli(['watch', id]),
      ]);
      for (const [name, exit] of Object.entries({ result, status, transcript, watch })) {
        expectExit(exit, 0);
        expect(RAW_CONTROLS.test(exit.stdout), `${name} printed a raw control character:\n${JSON.stringify(exit.stdout)}`).toBe(false);
        expect(exit.stdout, name).toContain('\\x1b[2J');
      }
      expect(result.stdout).toContain('final clear\\x1b[2J title\\x1b]0;pwned\\x07 csi\\x9b31m bell\\x07 back\\x0dover');
      expect(transcript.stdout).toContain('first clear\\x1b[2J');
      // --json: the exact text, escaped only as JSON escapes it.
      expect(jsonOf<{ text: string }>(resultJson).text).toBe(`final ${hostile}`);
      const messages = jsonOf<Array<{ content: Array<{ type: string; text?: string }> }>>(transcriptJson);
      expect(messages[1].content[0].text).toBe(`first ${hostile}`);
      // JSON itself escapes C0 controls (ESC, BEL, CR), so even --json cannot clear the screen.
      expect(/[\u0000-\u0009\u000b-\u001f]/.test(resultJson.stdout)).toBe(false);

      // run prints the same neutralised answer (its own worker, same script).
      const run = await cli(['run', '--scripted', 'compute something'], { AGENT_SCRIPT: await writeScript(script) });
      expectExit(run, 0);
      expect(RAW_CONTROLS.test(run.stdout)).toBe(false);
      expect(run.stdout).toContain('final clear\\x1b[2J');
    } finally {
      await stopWorker(worker);
    }
  }, 180_000);
});

async function writeScript(script: unknown): Promise<string> {
  const file = path.join(tmpdir(), `script-${randomUUID()}.json`);
  await writeFile(file, JSON.stringify(script));
  return file;
}
