// The CLI download is pinned to TEMPORAL_CLI_VERSION and verified: a local server stands in for GitHub's
// releases, serving an archive with a fake `temporal` in it; only the archive whose SHA-256 is the expected one is
// unpacked into the cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadTemporalCli, TEMPORAL_CLI_SHA256, TEMPORAL_CLI_VERSION, temporalCliArchiveName } from '../../src/devserver/download-cli.js';

const asset = temporalCliArchiveName();
let dir: string;
let archive: Buffer;
let server: Server;
let baseUrl: string;
const requested: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cli-download-'));
  const src = path.join(dir, 'src');
  execFileSync('mkdir', ['-p', src]);
  writeFileSync(path.join(src, 'temporal'), '#!/bin/sh\necho "temporal version 1.5.1"\n', { mode: 0o755 });
  spawnSync('tar', ['-czf', path.join(dir, asset), '-C', src, 'temporal']);
  archive = readFileSync(path.join(dir, asset));
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url === `/${TEMPORAL_CLI_VERSION}/${asset}`) res.end(archive);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('downloadTemporalCli', () => {
  it('asks for the pinned version’s release asset and has a pinned SHA-256 for this platform', () => {
    expect(TEMPORAL_CLI_VERSION).toBe('v1.5.1');
    expect(asset).toMatch(/^temporal_cli_1\.5\.1_(linux|darwin)_(amd64|arm64)\.tar\.gz$/);
    expect(TEMPORAL_CLI_SHA256[asset]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an archive whose SHA-256 is not the pinned one, leaving nothing in the cache', async () => {
    const cache = mkdtempSync(path.join(dir, 'cache-'));
    // Our fake archive is not the real release: the real pinned checksums refuse it.
    await expect(downloadTemporalCli(cache, () => {}, { baseUrl })).rejects.toThrow(
      new RegExp(`${asset} from .* has SHA-256 [0-9a-f]{64}, not the pinned ${TEMPORAL_CLI_SHA256[asset]}: refusing to run it`),
    );
    expect(existsSync(path.join(cache, 'temporal'))).toBe(false);
    expect(requested.at(-1)).toBe(`/${TEMPORAL_CLI_VERSION}/${asset}`);
  });

  it('unpacks an archive whose SHA-256 matches into the cache, executable', async () => {
    const cache = mkdtempSync(path.join(dir, 'cache-'));
    const checksums = { [asset]: createHash('sha256').update(archive).digest('hex') };
    const bin = await downloadTemporalCli(cache, () => {}, { baseUrl, checksums });
    expect(bin).toBe(path.join(cache, 'temporal'));
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toContain('1.5.1');
  });
});
