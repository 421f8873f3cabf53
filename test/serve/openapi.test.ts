import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../src/serve/app.js';
import { EventHub } from '../../src/serve/events.js';
import { openApiDocument } from '../../src/serve/openapi.js';

describe('the OpenAPI document', () => {
  it('names exactly the routes the API serves under /v1, method by method', () => {
    const client = {} as Client;
    const app = createApi({ client, hub: new EventHub(client), taskQueue: 'q', settings: () => Promise.reject(new Error('unused')) });
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/'))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(doc.openapi).toBe('3.1.0');
    expect(documented).toEqual(served);
  });
});
