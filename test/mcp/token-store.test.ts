// The MCP OAuth token store: a file of mode 0600, written whole (renamed into place), encrypted with
// AGENT_ENCRYPTION_KEYS when set, and one clear line when it cannot be read, is not a store, or does not decrypt.
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultMcpTokenStore, FileMcpTokenStore, McpTokenStoreError, type McpAuthRecord } from '../../src/mcp/token-store.js';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const record: McpAuthRecord = { url: 'https://mcp.example.com/mcp', tokens: { access_token: 'at-secret', token_type: 'Bearer', refresh_token: 'rt-secret' }, savedAt: 1 };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-token-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileMcpTokenStore', () => {
  it('writes a mode-0600 file in a folder it creates, keeps each server apart, and deletes one', async () => {
    const file = path.join(dir, 'nested', 'mcp-tokens.json');
    const store = new FileMcpTokenStore(file, { env: {} });
    expect(await store.load('docs')).toBeUndefined();
    await Promise.all([store.save('docs', record), store.save('crm', { ...record, url: 'https://crm.example.com/mcp' })]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Object.keys(await store.list()).sort()).toEqual(['crm', 'docs']);
    expect(await new FileMcpTokenStore(file, { env: {} }).load('docs')).toEqual(record);
    expect(await store.delete('docs')).toBe(true);
    expect(await store.delete('docs')).toBe(false);
    expect(Object.keys(await store.list())).toEqual(['crm']);
  });

  it('loses no server when several processes write at once (a lock beside the file), and takes over a stale lock', async () => {
    const file = path.join(dir, 'mcp-tokens.json');
    // Separate store objects stand for separate processes: they share nothing but the file.
    await Promise.all(Array.from({ length: 20 }, (_, i) => new FileMcpTokenStore(file, { env: {} }).save(`s${i}`, record)));
    expect(Object.keys(await new FileMcpTokenStore(file, { env: {} }).list())).toHaveLength(20);
    await mkdir(`${file}.lock`);
    await utimes(`${file}.lock`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await new FileMcpTokenStore(file, { env: {} }).save('late', record);
    expect(await new FileMcpTokenStore(file, { env: {} }).load('late')).toEqual(record);
  });

  it('encrypts with the first key of AGENT_ENCRYPTION_KEYS and reads back with any listed key', async () => {
    const file = path.join(dir, 'mcp-tokens.json');
    await new FileMcpTokenStore(file, { env: { AGENT_ENCRYPTION_KEYS: `new:${key(1)}` } }).save('docs', record);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('secret');
    expect(JSON.parse(text)).toMatchObject({ version: 1, encrypted: { keyId: 'new' } });
    const rotated = new FileMcpTokenStore(file, { env: { AGENT_ENCRYPTION_KEYS: `newer:${key(2)},new:${key(1)}` } });
    expect(await rotated.load('docs')).toEqual(record);
  });

  it('says in one line what is wrong with a store it cannot read, and how to fix it', async () => {
    const file = path.join(dir, 'mcp-tokens.json');
    await new FileMcpTokenStore(file, { env: { AGENT_ENCRYPTION_KEYS: `k1:${key(1)}` } }).save('docs', record);
    const fails = (env: NodeJS.ProcessEnv) => new FileMcpTokenStore(file, { env }).list();
    await expect(fails({})).rejects.toThrow(new McpTokenStoreError(`the MCP token store ${file} is encrypted (key id "k1") and AGENT_ENCRYPTION_KEYS is not set: set it to the keys it was written with`));
    await expect(fails({ AGENT_ENCRYPTION_KEYS: `k2:${key(1)}` })).rejects.toThrow(`is encrypted with key id "k1", which AGENT_ENCRYPTION_KEYS does not list: add that key`);
    await expect(fails({ AGENT_ENCRYPTION_KEYS: `k1:${key(3)}` })).rejects.toThrow(`does not decrypt with key "k1" of AGENT_ENCRYPTION_KEYS: give the key it was written with`);
    await writeFile(file, '{ half');
    await expect(fails({})).rejects.toThrow(`the MCP token store ${file} is not JSON: delete it and run durable-agent mcp login <server> again`);
    await writeFile(file, '[1, 2]');
    await expect(fails({})).rejects.toThrow('is not a token store ({ version, servers })');
  });

  it('is at AGENT_MCP_TOKENS when set, else .durable-agent/mcp-tokens.json', () => {
    expect(defaultMcpTokenStore({}).where).toBe('.durable-agent/mcp-tokens.json');
    expect(defaultMcpTokenStore({ AGENT_MCP_TOKENS: '/secrets/t.json' }).where).toBe('/secrets/t.json');
  });
});
