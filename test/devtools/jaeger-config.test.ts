// The local Jaeger's config: every listener on loopback on the ports chosen for it, so several run side by side
// and none takes the all-in-one defaults (4317, 4318, 8888, 16685, 16686).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jaegerConfig } from '../../devtools/jaeger-config.js';
import { ensureJaeger, startJaeger } from '../../devtools/jaeger.js';

const ports = { otlpHttp: 20001, queryHttp: 20002, queryGrpc: 20003 };

describe('jaegerConfig', () => {
  it('listens only on loopback, on the three ports given, with its own metrics off', () => {
    const yaml = jaegerConfig(ports);
    const endpoints = [...yaml.matchAll(/endpoint: (\S+)/g)].map((m) => m[1]);
    expect(endpoints.sort()).toEqual(['127.0.0.1:20001', '127.0.0.1:20002', '127.0.0.1:20003']);
    expect(yaml).toMatch(/metrics:\n\s+level: none/);
    expect(yaml).not.toContain('assets_path');
  });

  it('serves a built UI from the folder given, quoted so any path survives', () => {
    expect(jaegerConfig(ports, { uiAssets: '/tmp/my ui/build' })).toMatch(/ui:\n\s+assets_path: "\/tmp\/my ui\/build"/);
  });
});

describe('startJaeger', () => {
  it('without a built binary fails at once, naming the path and the command that builds it', async () => {
    await expect(startJaeger({ binary: '/nonexistent/jaeger' })).rejects.toThrow('Jaeger v1.76.0 is not built (no /nonexistent/jaeger): run `npm run jaeger -- --build` first');
  });
});

describe('ensureJaeger', () => {
  it('builds once when two processes ask at the same time: the second waits on the lock, then finds the binary', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'ensure-jaeger-'));
    try {
      const env = { DURABLE_AGENT_CACHE_DIR: root };
      let builds = 0;
      const waits: string[] = [];
      let announced = () => {};
      const secondWaits = new Promise<void>((resolve) => (announced = resolve));
      // The build holds the lock until the other caller says it waits (a fixed pause lost that race on a loaded
      // machine: the lock was gone before the other caller looked at it).
      const build = async (dir: string) => {
        builds++;
        await Promise.race([secondWaits, new Promise((r) => setTimeout(r, 10_000))]);
        await fs.writeFile(path.join(dir, 'jaeger'), '#!/bin/sh\n', { mode: 0o755 });
        return path.join(dir, 'jaeger');
      };
      // Either caller may take the lock first (their first file checks race), so both say when they wait.
      const log = (m: string) => (waits.push(m), announced());
      const [a, b] = await Promise.all([ensureJaeger(log, { env, build }), ensureJaeger(log, { env, build })]);
      expect(builds).toBe(1);
      expect(a).toBe(path.join(root, 'jaeger-v1.76.0', 'jaeger'));
      expect(b).toBe(a);
      expect(waits.join('\n')).toMatch(/waiting for another process .* installing Jaeger into/);
      expect(existsSync(path.join(root, 'jaeger-v1.76.0', '.lock'))).toBe(false);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
