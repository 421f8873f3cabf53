// Unit tests for the CLI lookup order. Fake `temporal` scripts stand in for the real binary; the download and Go
// steps are injected, so nothing here touches the network or builds anything.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTemporalCli, goBuildTemporalCli, temporalCliBuildDir, temporalCliCacheDir } from '../../src/devserver/find-temporal.js';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'find-temporal-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Writes an executable script that answers `--version` like the real CLI (or like something else). */
async function fakeExe(dir: string, name: string, versionLine = 'temporal version 9.9.9 (fake)'): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await fs.writeFile(file, `#!/bin/sh\necho "${versionLine}"\n`, { mode: 0o755 });
  return file;
}

/** An environment with nothing usable: empty PATH, cache in the temp dir. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: path.join(root, 'empty-path'), DURABLE_AGENT_CACHE_DIR: path.join(root, 'cache'), ...extra };
}

const offline = { allowDownload: false, allowGoBuild: false } as const;

describe('temporalCliCacheDir', () => {
  it('prefers DURABLE_AGENT_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(temporalCliCacheDir({ DURABLE_AGENT_CACHE_DIR: '/a', XDG_CACHE_HOME: '/b' })).toBe('/a/temporal-cli-v1.5.1');
    expect(temporalCliCacheDir({ XDG_CACHE_HOME: '/b' })).toBe('/b/durable-agent/temporal-cli-v1.5.1');
    expect(temporalCliCacheDir({})).toBe(path.join(os.homedir(), '.cache/durable-agent/temporal-cli-v1.5.1'));
    expect(temporalCliBuildDir({ XDG_CACHE_HOME: '/b' })).toBe('/b/durable-agent/temporal-cli-v1.5.1-sqlite-v1.44.3');
  });
});

describe('findTemporalCli', () => {
  it('fails right away, naming the variable, when TEMPORAL_CLI_PATH does not exist', async () => {
    // A usable binary on PATH must not hide the misconfiguration.
    const pathDir = path.join(root, 'bin');
    await fakeExe(pathDir, 'temporal');
    const missing = path.join(root, 'nope', 'temporal');
    await expect(findTemporalCli({ env: env({ TEMPORAL_CLI_PATH: missing, PATH: pathDir }) })).rejects.toThrow(
      /TEMPORAL_CLI_PATH.*does not exist/,
    );
  });

  it('rejects a TEMPORAL_CLI_PATH that is not executable or not the Temporal CLI', async () => {
    const plain = path.join(root, 'plain');
    await fs.writeFile(plain, 'x', { mode: 0o644 });
    await expect(findTemporalCli({ ...offline, env: env({ TEMPORAL_CLI_PATH: plain }) })).rejects.toThrow(
      /TEMPORAL_CLI_PATH.*not executable/,
    );
    const other = await fakeExe(path.join(root, 'other'), 'temporal', 'something else 1.0');
    await expect(findTemporalCli({ ...offline, env: env({ TEMPORAL_CLI_PATH: other }) })).rejects.toThrow(
      /TEMPORAL_CLI_PATH.*temporal version/,
    );
  });

  it('follows the order TEMPORAL_CLI_PATH > PATH > cache', async () => {
    const explicit = await fakeExe(path.join(root, 'explicit'), 'temporal');
    const onPath = await fakeExe(path.join(root, 'bin'), 'temporal');
    const cached = await fakeExe(temporalCliCacheDir(env()), 'temporal');
    const pathEnv = `${path.join(root, 'empty')}${path.delimiter}${path.join(root, 'bin')}`;
    expect(await findTemporalCli({ ...offline, env: env({ TEMPORAL_CLI_PATH: explicit, PATH: pathEnv }) })).toBe(explicit);
    expect(await findTemporalCli({ ...offline, env: env({ PATH: pathEnv }) })).toBe(onPath);
    expect(await findTemporalCli({ ...offline, env: env() })).toBe(cached);
  });

  it('prefers a Go build (it links the fixed SQLite driver) over a release download in the cache', async () => {
    const downloaded = await fakeExe(temporalCliCacheDir(env()), 'temporal');
    expect(await findTemporalCli({ ...offline, env: env() })).toBe(downloaded);
    const built = await fakeExe(temporalCliBuildDir(env()), 'temporal');
    expect(await findTemporalCli({ ...offline, env: env() })).toBe(built);
  });

  it('skips an unrelated program called temporal on PATH', async () => {
    await fakeExe(path.join(root, 'bin'), 'temporal', 'Temporal: a time tracker');
    const cached = await fakeExe(temporalCliCacheDir(env()), 'temporal');
    expect(await findTemporalCli({ ...offline, env: env({ PATH: path.join(root, 'bin') }) })).toBe(cached);
  });

  it('downloads into the cache when nothing is installed, and removes the lock', async () => {
    const e = env();
    let calls = 0;
    const download = async (dir: string) => {
      calls++;
      return fakeExe(dir, 'temporal');
    };
    const got = await findTemporalCli({ env: e, allowGoBuild: false, download });
    expect(got).toBe(path.join(temporalCliCacheDir(e), 'temporal'));
    expect(calls).toBe(1);
    await expect(fs.stat(path.join(temporalCliCacheDir(e), '.lock'))).rejects.toThrow(/ENOENT/);
  });

  it('lets a concurrent caller wait for the first download instead of downloading again', async () => {
    const e = env();
    let calls = 0;
    // The first download lasts until the second caller says it waits for it (not a fixed time hoped to be enough).
    let secondWaits!: () => void;
    const waiting = new Promise<void>((resolve) => (secondWaits = resolve));
    const log = (m: string) => void (/waiting for another process/.test(m) && secondWaits());
    const download = async (dir: string) => {
      calls++;
      await waiting;
      return fakeExe(dir, 'temporal');
    };
    const [a, b] = await Promise.all([
      findTemporalCli({ env: e, allowGoBuild: false, download, log }),
      findTemporalCli({ env: e, allowGoBuild: false, download, log }),
    ]);
    expect(a).toBe(b);
    expect(calls).toBe(1);
  });

  it('builds with Go when the download fails and go is on PATH', async () => {
    const goDir = path.join(root, 'go-bin');
    const fakeGo = await fakeExe(goDir, 'go', 'go version go1.99 fake');
    const e = env({ PATH: goDir });
    const seen: string[] = [];
    const got = await findTemporalCli({
      env: e,
      download: async () => {
        throw new Error('getaddrinfo ENOTFOUND temporal.download');
      },
      goBuild: async (dir, goPath) => {
        seen.push(goPath);
        return fakeExe(dir, 'temporal');
      },
    });
    expect(got).toBe(path.join(temporalCliBuildDir(e), 'temporal'));
    expect(seen).toEqual([fakeGo]);
  });

  it('lists every failed step and what to install when all fail', async () => {
    const err = await findTemporalCli({
      env: env(),
      download: async () => {
        throw new Error('getaddrinfo ENOTFOUND temporal.download');
      },
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(/\(a\) TEMPORAL_CLI_PATH: not set/);
    expect(msg).toMatch(/\(b\) PATH: no executable "temporal"/);
    expect(msg).toMatch(/\(c\) cache: .*temporal-cli-v1\.5\.1-sqlite-v1\.44\.3\/temporal does not exist/);
    expect(msg).toMatch(/\(c\) cache: .*temporal-cli-v1\.5\.1\/temporal does not exist/);
    expect(msg).toMatch(/\(d\) download: getaddrinfo ENOTFOUND/);
    expect(msg).toMatch(/\(e\) go build: no "go" on PATH/);
    expect(msg).toMatch(/https:\/\/docs\.temporal\.io\/cli#install/);
    expect(msg).toMatch(/TEMPORAL_CLI_PATH/);
    expect(msg).toMatch(/Go >= 1\.23/);
  });

  it('reports disabled steps as disabled', async () => {
    const msg = await findTemporalCli({ ...offline, env: env() }).catch((e: Error) => e.message);
    expect(msg).toMatch(/\(d\) download: disabled/);
    expect(msg).toMatch(/\(e\) go build: disabled/);
  });
});

describe('goBuildTemporalCli', () => {
  /** A stand-in for `go`: records its arguments and its module's go.mod, prints a line per "module" on `get`,
   * writes a fake binary where `build -o` says (or fails). */
  async function fakeGo(exitCode: number): Promise<string> {
    const file = path.join(root, 'go');
    await fs.writeFile(
      file,
      `#!/bin/sh\necho "$@" >> "${root}/go-calls"\n` +
        `if [ "$1" = get ]; then cat go.mod >> "${root}/go-calls"; for i in $(seq 1 160); do echo "go: downloading example.com/module$i v1.0.0" >&2; done; exit 0; fi\n` +
        (exitCode === 0 ? `printf '#!/bin/sh\\necho temporal version 1.5.1\\n' > "$3"; chmod +x "$3"\n` : 'for i in $(seq 1 20); do echo "compile: package $i" >&2; done; echo "compile: out of memory" >&2\n') +
        `exit ${exitCode}\n`,
    );
    await fs.chmod(file, 0o755);
    return file;
  }

  it('builds v1.5.1 in a module of its own that requires the fixed SQLite driver, and leaves that module behind it removed', async () => {
    const cache = path.join(root, 'cache');
    const bin = await goBuildTemporalCli(cache, await fakeGo(0), () => {});
    expect(bin).toBe(path.join(cache, 'temporal'));
    const calls = await fs.readFile(path.join(root, 'go-calls'), 'utf8');
    expect(calls).toContain('get github.com/temporalio/cli/cmd/temporal@v1.5.1 modernc.org/sqlite@v1.44.3');
    expect(calls).toContain('module durable-agent.local/temporal-cli-build');
    expect(calls).toContain(`build -o ${bin} github.com/temporalio/cli/cmd/temporal`);
    expect((await fs.readdir(cache)).filter((f) => f.startsWith('.module-'))).toEqual([]);
  });

  it("keeps Go's download lines in a log file, saying where, instead of printing them", async () => {
    const logs: string[] = [];
    const cache = path.join(root, 'cache');
    const bin = await goBuildTemporalCli(cache, await fakeGo(0), (m) => logs.push(m));
    expect(bin).toBe(path.join(cache, 'temporal'));
    expect(logs.some((l) => l.includes('downloading'))).toBe(false);
    expect(logs[0]).toContain(`the build's output: ${path.join(cache, 'go-build.log')}`);
    expect((await fs.readFile(path.join(cache, 'go-build.log'), 'utf8')).trim().split('\n')).toHaveLength(160);
  });

  it('shows the tail of the output and names the log file when the build fails', async () => {
    const logs: string[] = [];
    const cache = path.join(root, 'cache');
    await expect(goBuildTemporalCli(cache, await fakeGo(1), (m) => logs.push(m))).rejects.toThrow(
      /go build exited with 1 \(its output: .*go-build\.log\): .*compile: out of memory/,
    );
    expect(logs.filter((l) => l.startsWith('go: '))).toHaveLength(15);
  });
});
