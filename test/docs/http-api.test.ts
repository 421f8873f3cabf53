// docs/http-api.md against the server it describes: its routes table names exactly the routes of the OpenAPI
// document (which a test holds to the server's routes), its Errors section every error type the server answers with,
// and its "Not built yet" none of what is built. Issue 42, item 11.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/serve/openapi.js';
import { ROOT } from './sources.js';

const page = readFileSync(path.join(ROOT, 'docs/http-api.md'), 'utf8');
const section = (title: string) => {
  const start = page.indexOf(`\n## ${title}\n`);
  expect(start, `docs/http-api.md has a "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end === -1 ? undefined : end);
};
const operations = () =>
  Object.entries((openApiDocument() as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));

describe('docs/http-api.md', () => {
  it('its routes table names exactly the routes of /v1/openapi.json (but the document itself)', () => {
    const table = [...section('Routes').matchAll(/^\| `(GET|POST|DELETE) ([^`?]+)[^`]*` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(table.sort()).toEqual(operations().filter((o) => o !== 'GET /v1/openapi.json').sort());
  });

  it('its Errors section names every error type the server answers with', () => {
    const sources = ['app.ts', 'run-routes.ts', 'auth.ts', 'run-request.ts'].map((f) => readFileSync(path.join(ROOT, 'src/serve', f), 'utf8')).join('\n');
    const types = new Set([
      ...[...sources.matchAll(/fail\(c, \d+, '(\w+)'/g)].map((m) => m[1]),
      ...[...sources.matchAll(/RequestError\([^;]*?, \d{3}, '(\w+)'\)/g)].map((m) => m[1]),
      ...[...sources.matchAll(/status: \d{3}, type: '(\w+)'/g)].map((m) => m[1]),
      'invalid_request', // RequestError's default
    ]);
    expect(types.size).toBeGreaterThanOrEqual(9);
    const errors = section('Errors');
    expect([...types].filter((t) => !errors.includes(`\`${t}\``))).toEqual([]);
  });

  it('its "Not built yet" names no route the server has', () => {
    // A route named as such (`POST /v1/runs/{id}/cancel`, as a way round what is missing) is not a claim it is missing.
    const notBuilt = section('Not built yet').replace(/`(GET|POST|DELETE) \/v1\/[^`]*`/g, '');
    // Each route's own word (its last path segment that is not a parameter): answers, completions, cancel, ...
    const words = new Set(operations().map((o) => o.split('/').filter((s) => s && !s.startsWith('{')).pop()!).filter((w) => w !== 'runs' && w !== 'openapi.json'));
    expect(words.size).toBeGreaterThanOrEqual(9);
    expect([...words].filter((w) => new RegExp(`\\b${w}\\b`, 'i').test(notBuilt))).toEqual([]);
  });
});
