// Where the OAuth tokens of MCP servers live between `durable-agent mcp login` and the workers that use them: an
// interface (a team can keep them in a secret manager), and a file by default (`.durable-agent/mcp-tokens.json`,
// mode 0600, AES-256-GCM with the first key of AGENT_ENCRYPTION_KEYS when it is set). Workers write refreshed
// tokens back. A store that cannot be read or decrypted is a McpTokenStoreError: one line naming the file and the fix.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { ENCRYPTION_KEYS_VARIABLE, keyRingFromEnv, type KeyRing } from '../codec/keys.js';
import { isObject } from '../core/is-object.js';

/** What one MCP server's authorization is: the SDK's own objects, stored as it hands them over. */
export interface McpAuthRecord {
  /** The server's URL when it was authorized: tokens are bound to it (their resource indicator). */
  url: string;
  tokens?: OAuthTokens;
  /** When the access token expires (epoch ms, from `expires_in` when it was saved). */
  expiresAt?: number;
  clientInformation?: OAuthClientInformationMixed;
  discoveryState?: OAuthDiscoveryState;
  /** The scope the server asked for when a worker last needed a person (a step-up): the next `mcp login` asks for it. */
  scopeWanted?: string;
  /** The loopback redirect URI the client was registered with. */
  redirectUrl?: string;
  /** When the tokens were last written (epoch ms). */
  savedAt: number;
}

/** Where MCP OAuth tokens are kept. Every call reads or writes the current state (several workers share one). */
export interface McpTokenStore {
  /** Where it is, for messages (`.durable-agent/mcp-tokens.json`). */
  readonly where: string;
  load(server: string): Promise<McpAuthRecord | undefined>;
  save(server: string, record: McpAuthRecord): Promise<void>;
  /** Reads the server's record, changes it and writes it as one step no other writer (another worker refreshing
   * the same tokens) can come between: `change` gets the stored record and returns the one to keep. */
  update(server: string, change: (stored: McpAuthRecord | undefined) => McpAuthRecord): Promise<McpAuthRecord>;
  delete(server: string): Promise<boolean>;
  list(): Promise<Record<string, McpAuthRecord>>;
}

/** The store cannot be read (not JSON, a wrong key, no key for an encrypted file, no permission). */
export class McpTokenStoreError extends Error {
  override name = 'McpTokenStoreError';
}

export const DEFAULT_MCP_TOKEN_FILE = '.durable-agent/mcp-tokens.json';
/** Another place for the file store (`AGENT_MCP_TOKENS=/secrets/mcp-tokens.json`). */
export const MCP_TOKENS_VARIABLE = 'AGENT_MCP_TOKENS';

const LOCK_POLL_MS = 10;
const STALE_LOCK_MS = 10_000;

interface StoreFile {
  version: 1;
  servers: Record<string, McpAuthRecord>;
}
interface EncryptedFile {
  version: 1;
  encrypted: { keyId: string; iv: string; tag: string; data: string };
}

/** The default store: AGENT_MCP_TOKENS, else `.durable-agent/mcp-tokens.json` in the working directory. */
export function defaultMcpTokenStore(env: NodeJS.ProcessEnv = process.env): McpTokenStore {
  return new FileMcpTokenStore(env[MCP_TOKENS_VARIABLE] || DEFAULT_MCP_TOKEN_FILE, { env });
}

export class FileMcpTokenStore implements McpTokenStore {
  readonly where: string;
  readonly #file: string;
  readonly #keys: KeyRing | null;
  /** Writes of this process, one after another (a read-modify-write each). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string, options: { env?: NodeJS.ProcessEnv } = {}) {
    this.#file = path.resolve(file);
    this.where = file;
    this.#keys = keyRingFromEnv(options.env ?? process.env);
  }

  async load(server: string): Promise<McpAuthRecord | undefined> {
    return (await this.#read()).servers[server];
  }

  async list(): Promise<Record<string, McpAuthRecord>> {
    return (await this.#read()).servers;
  }

  save(server: string, record: McpAuthRecord): Promise<void> {
    return this.update(server, () => record).then(() => undefined);
  }

  async update(server: string, change: (stored: McpAuthRecord | undefined) => McpAuthRecord): Promise<McpAuthRecord> {
    let kept: McpAuthRecord | undefined;
    await this.#update((servers) => {
      kept = change(servers[server]);
      servers[server] = kept;
      return true;
    });
    return kept!;
  }

  delete(server: string): Promise<boolean> {
    return this.#update((servers) => {
      if (!(server in servers)) return false;
      delete servers[server];
      return true;
    });
  }

  #update(change: (servers: Record<string, McpAuthRecord>) => boolean): Promise<boolean> {
    // One writer at a time in this process (the queue) and across processes (a lock folder beside the file): each
    // write is a read-modify-write, and two workers refreshing two servers' tokens at once must not lose one.
    const next = this.#queue.then(() =>
      this.#locked(async () => {
        const state = await this.#read();
        if (!change(state.servers)) return false;
        await this.#write(state);
        return true;
      }),
    );
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #locked<T>(fn: () => Promise<T>): Promise<T> {
    const lock = `${this.#file}.lock`;
    const owner = path.join(lock, 'owner');
    const me = `${process.pid}-${randomBytes(8).toString('hex')}`;
    await mkdir(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    for (;;) {
      try {
        await mkdir(lock);
        await writeFile(owner, me);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new McpTokenStoreError(`the MCP token store ${this.where} cannot be locked (${(err as NodeJS.ErrnoException).code}): check the folder's owner and mode`);
        // A lock left by a process that died while writing is taken over once it is old (a write takes
        // milliseconds); a lock that is merely busy is waited for, however long others keep taking it.
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
        else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
    }
    try {
      return await fn();
    } finally {
      // Only our own lock: one taken over from us (we were stalled past STALE_LOCK_MS) is its new owner's.
      if ((await readFile(owner, 'utf8').catch(() => '')) === me) await rm(lock, { recursive: true, force: true });
    }
  }

  async #read(): Promise<StoreFile> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw new McpTokenStoreError(`the MCP token store ${this.where} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check its owner and mode`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new McpTokenStoreError(`the MCP token store ${this.where} is not JSON: delete it and run durable-agent mcp login <server> again`);
    }
    if (isObject(parsed) && isObject(parsed.encrypted)) return this.#decrypt(parsed as unknown as EncryptedFile);
    if (!isObject(parsed) || !isObject(parsed.servers)) {
      throw new McpTokenStoreError(`the MCP token store ${this.where} is not a token store ({ version, servers }): delete it and run durable-agent mcp login <server> again`);
    }
    return parsed as unknown as StoreFile;
  }

  #decrypt(file: EncryptedFile): StoreFile {
    const { keyId, iv, tag, data } = file.encrypted;
    if (!this.#keys) {
      throw new McpTokenStoreError(`the MCP token store ${this.where} is encrypted (key id "${keyId}") and ${ENCRYPTION_KEYS_VARIABLE} is not set: set it to the keys it was written with`);
    }
    const key = this.#keys.byId.get(keyId);
    if (!key) {
      throw new McpTokenStoreError(`the MCP token store ${this.where} is encrypted with key id "${keyId}", which ${ENCRYPTION_KEYS_VARIABLE} does not list: add that key`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64'));
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as StoreFile;
    } catch {
      throw new McpTokenStoreError(`the MCP token store ${this.where} does not decrypt with key "${keyId}" of ${ENCRYPTION_KEYS_VARIABLE}: give the key it was written with`);
    }
  }

  async #write(state: StoreFile): Promise<void> {
    const json = JSON.stringify(state);
    let body: string;
    if (this.#keys) {
      const { id, key } = this.#keys.current;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(id, 'utf8'));
      const data = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
      const encrypted: EncryptedFile = {
        version: 1,
        encrypted: { keyId: id, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') },
      };
      body = JSON.stringify(encrypted);
    } else {
      body = JSON.stringify(state, null, 2);
    }
    await mkdir(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    // Written beside it and renamed: a reader (another worker) sees the old file or the new one, never half.
    const temporary = `${this.#file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, `${body}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, this.#file);
    } catch (err) {
      await rm(temporary, { force: true });
      throw new McpTokenStoreError(`the MCP token store ${this.where} cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check the folder's owner and mode`);
    }
  }
}

/** A store in memory (tests, the conformance client, a worker given tokens another way). */
export class MemoryMcpTokenStore implements McpTokenStore {
  readonly where = 'memory';
  readonly #records = new Map<string, McpAuthRecord>();
  load(server: string): Promise<McpAuthRecord | undefined> {
    const record = this.#records.get(server);
    return Promise.resolve(record && structuredClone(record));
  }
  save(server: string, record: McpAuthRecord): Promise<void> {
    this.#records.set(server, structuredClone(record));
    return Promise.resolve();
  }
  update(server: string, change: (stored: McpAuthRecord | undefined) => McpAuthRecord): Promise<McpAuthRecord> {
    const kept = structuredClone(change(this.#records.get(server) && structuredClone(this.#records.get(server)!)));
    this.#records.set(server, kept);
    return Promise.resolve(structuredClone(kept));
  }
  delete(server: string): Promise<boolean> {
    return Promise.resolve(this.#records.delete(server));
  }
  list(): Promise<Record<string, McpAuthRecord>> {
    return Promise.resolve(Object.fromEntries([...this.#records].map(([k, v]) => [k, structuredClone(v)])));
  }
}
