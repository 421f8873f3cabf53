// The local Jaeger's config: every listener on loopback on the ports chosen for it, so several run side by side
// and none takes the all-in-one defaults (4317, 4318, 8888, 16685, 16686).
import { describe, expect, it } from 'vitest';
import { jaegerConfig } from '../../src/devserver/jaeger-config.js';
import { startJaeger } from '../../src/devserver/jaeger.js';

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
