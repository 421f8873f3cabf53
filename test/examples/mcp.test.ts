// The MCP commands of docs/tools-and-mcp.md, run as a user runs them (the built CLI, a config file, the example notes server
// written with the MCP SDK): over stdio, spawned by the CLI's worker and stopped with it; and over streamable
// HTTP with a bearer token read from the environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectExit, ROOT, useCli } from '../helpers/cli.js';

const { session } = useCli();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-mcp-example-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Processes (other than this one) whose environment holds `marker`: Linux's /proc. */
function processesWithEnv(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

describe('the MCP examples', () => {
  it('stdio: the documented command spawns the notes server, the run calls notes__add_note and notes__list_notes, and the server stops with the command', async () => {
    const notesFile = path.join(dir, `notes-${randomUUID()}.json`);
    const { cli } = session();
    const exit = await cli(['run', '--config', 'examples/mcp/durable-agent.config.mjs', 'Note: buy milk'], { NOTES_FILE: notesFile });
    expectExit(exit, 0);
    expect(exit.stdout).toMatch(/^Noted\. The notebook now reads:\n1\. buy milk\n\n— completed on end_turn · 3 model calls · 2 tool calls · /);
    expect(exit.stderr).toContain('MCP servers notes');
    // The note was written once, under the idempotency key of its call.
    const notes = JSON.parse(await readFile(notesFile, 'utf8'));
    expect(notes).toEqual([{ key: expect.stringMatching(/^agent-note-buy-milk-\S+\/toolu_/), text: 'buy milk' }]);
    expect(processesWithEnv(`NOTES_FILE=${notesFile}`)).toEqual([]);
  });

  it('HTTP: the documented commands, the token from the environment, refused without it', async () => {
    const notesFile = path.join(dir, `notes-${randomUUID()}.json`);
    const token = `token-${randomUUID()}`;
    const server: ChildProcess = spawn(process.execPath, ['examples/mcp/notes-server.mjs', '--http', '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, NOTES_TOKEN: token, NOTES_FILE: notesFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        server.stderr!.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const m = /on (http:\/\/\S+)/.exec(err);
          if (m) resolve(m[1]);
        });
        server.on('exit', () => reject(new Error(`the notes server exited: ${err}`)));
      });
      const { cli } = session();
      const args = ['run', '--config', 'examples/mcp/http.config.mjs', 'Note: call the bank'];
      const exit = await cli(args, { NOTES_TOKEN: token, NOTES_URL: url });
      expectExit(exit, 0);
      expect(exit.stdout).toMatch(/^Noted\. The notebook now reads:\n1\. call the bank\n\n— completed on end_turn · /);

      const refused = await cli(args, { NOTES_URL: url });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        'mcpServers.notes.headers.Authorization refers to ${NOTES_TOKEN}, but the environment variable NOTES_TOKEN is not set on this worker; set it',
      );
    } finally {
      server.kill('SIGKILL');
    }
  });
});
