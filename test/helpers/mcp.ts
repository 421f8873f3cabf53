// Real MCP servers for the tests: the fixture under test/fixtures/mcp/, over stdio (spawned by the worker)
// or over streamable HTTP (spawned here, on 127.0.0.1 and a free port).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig } from '../../src/config/types.js';

export const MCP_FIXTURE = fileURLToPath(new URL('../fixtures/mcp/server.mjs', import.meta.url));

/** A directory where the fixture leaves traces of its calls (MCP_STATE_DIR). */
export function stateDir(): { dir: string; calls(): Array<{ tool: string; key: string | null; pid: number }>; read(file: string): string | null; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-state-'));
  const read = (file: string) => (existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : null);
  return {
    dir,
    read,
    calls: () => (read('calls.log') ?? '').split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function stdioFixture(options: { stateDir?: string; args?: string[] } = {}): McpStdioServerConfig {
  return {
    command: process.execPath,
    args: [MCP_FIXTURE, ...(options.args ?? [])],
    ...(options.stateDir ? { env: { MCP_STATE_DIR: options.stateDir } } : {}),
  };
}

export interface HttpFixture {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the fixture as a streamable-HTTP server in a child process and waits for its URL. */
export async function startHttpFixture(options: { args?: string[]; env?: NodeJS.ProcessEnv; port?: number } = {}): Promise<HttpFixture> {
  const args = [MCP_FIXTURE, '--http', ...(options.port ? ['--port', String(options.port)] : []), ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the HTTP MCP fixture exited with ${code} before listening`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether a process with this pid is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every payload of a history (the proto object, or its JSON where data is base64) decoded to text, one after
 * another: what a search of the history for a string must look at. */
export function decodedPayloads(history: unknown): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const node = value as Record<string, unknown>;
    if (node.metadata && typeof node.metadata === 'object') {
      if (node.data instanceof Uint8Array) texts.push(Buffer.from(node.data).toString('utf8'));
      else if (typeof node.data === 'string') texts.push(Buffer.from(node.data, 'base64').toString('utf8'));
    }
    Object.values(node).forEach(walk);
  };
  walk(history);
  return texts.join('\n');
}
