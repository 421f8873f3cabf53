// Step (d) of finding the Temporal CLI: the release archive of the pinned version, from the CLI's GitHub releases,
// verified against its SHA-256 before anything in it is run. The cache folder is named after the version, so a
// pinned download is what fills it (an unpinned "latest" would not be what the folder says).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_BIN = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
export const TEMPORAL_CLI_RELEASES = 'https://github.com/temporalio/cli/releases/download';

/** SHA-256 of the v1.5.1 release archives (as published in the release's checksums file; the same values are in
 * two independent package managers' manifests, cashapp/hermit-packages among them). A new version gets new
 * values here, or its download is refused. */
export const TEMPORAL_CLI_SHA256: Readonly<Record<string, string>> = Object.freeze({
  'temporal_cli_1.5.1_linux_amd64.tar.gz': 'ddc95e08b0b076efd4ea9733a3f488eb7d2be875f8834e616cd2a37358b4852d',
  'temporal_cli_1.5.1_linux_arm64.tar.gz': 'bd1b0db9f18b051026de8bf6cc1505f2510f14bbb7a8b9a4a91fff46c77454f5',
  'temporal_cli_1.5.1_darwin_amd64.tar.gz': 'bbb73e2a31135abe50a1f1cdb35030c42961df618e8ce9c60ae89f201540c5d9',
  'temporal_cli_1.5.1_darwin_arm64.tar.gz': 'cca01b7ea35ad56e2a328d9ae596bf716bd22313ef63c7a761c88354457c2415',
});

/** The release asset for this machine: `temporal_cli_1.5.1_linux_amd64.tar.gz`. */
export function temporalCliArchiveName(platform: string = process.platform, arch: string = process.arch): string {
  const goArch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[arch];
  const goOs = ({ linux: 'linux', darwin: 'darwin' } as Record<string, string>)[platform];
  if (!goArch || !goOs) throw new Error(`no prebuilt Temporal CLI for ${platform}/${arch}`);
  return `temporal_cli_${TEMPORAL_CLI_VERSION.slice(1)}_${goOs}_${goArch}.tar.gz`;
}

export interface DownloadOptions {
  /** Where the release assets are (tests serve them locally). Default: the CLI's GitHub releases. */
  baseUrl?: string;
  /** Expected SHA-256 by asset name. Default: TEMPORAL_CLI_SHA256. */
  checksums?: Readonly<Record<string, string>>;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Downloads, verifies and unpacks the pinned CLI into `cacheDir`; resolves with the binary's path. Fails in seconds
 * offline (DNS error or a 10 s timeout), and on a checksum that is not the pinned one, before unpacking. */
export async function downloadTemporalCli(cacheDir: string, log: (msg: string) => void, options: DownloadOptions = {}): Promise<string> {
  const asset = temporalCliArchiveName();
  const expected = (options.checksums ?? TEMPORAL_CLI_SHA256)[asset];
  if (!expected) throw new Error(`no pinned SHA-256 for ${asset}: not downloading an archive that cannot be verified`);
  const url = `${options.baseUrl ?? TEMPORAL_CLI_RELEASES}/${TEMPORAL_CLI_VERSION}/${asset}`;
  log(`downloading the Temporal CLI ${TEMPORAL_CLI_VERSION} from ${url}`);
  const ctl = new AbortController();
  // 10 s to get response headers, then 5 minutes for the (~50 MB) body.
  let timer = setTimeout(() => ctl.abort(new Error('no response within 10 s')), 10_000);
  const tmp = await fs.mkdtemp(path.join(cacheDir, '.download-'));
  try {
    const res = await fetch(url, { signal: ctl.signal }).catch((err: unknown) => {
      const e = err as Error & { cause?: Error };
      throw new Error(`GET ${url} failed: ${e.cause?.message ?? e.message}`);
    });
    clearTimeout(timer);
    if (!res.ok || !res.body) throw new Error(`GET ${url} answered HTTP ${res.status}`);
    timer = setTimeout(() => ctl.abort(new Error('download took over 5 minutes')), 300_000);
    const archive = path.join(tmp, asset);
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(archive));
    const actual = await sha256Of(archive);
    if (actual !== expected) {
      throw new Error(`${asset} from ${url} has SHA-256 ${actual}, not the pinned ${expected}: refusing to run it (a corrupted or altered download)`);
    }
    const tar = spawnSync('tar', ['-xzf', archive, '-C', tmp], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`tar failed: ${tar.error?.message ?? tar.stderr}`);
    const dest = path.join(cacheDir, TEMPORAL_CLI_BIN);
    await fs.chmod(path.join(tmp, TEMPORAL_CLI_BIN), 0o755);
    await fs.rename(path.join(tmp, TEMPORAL_CLI_BIN), dest); // same filesystem, so atomic: readers never see half a binary
    log(`Temporal CLI ${TEMPORAL_CLI_VERSION} downloaded (SHA-256 verified) to ${dest}`);
    return dest;
  } finally {
    clearTimeout(timer);
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
