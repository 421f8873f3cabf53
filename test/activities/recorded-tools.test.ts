// The MCP tool definitions a run recorded, as its model calls get them: from the cache by digest, else from the
// workflow's query; in the order of the run's tools; a server the worker lacks fails the run.
import { describe, expect, it } from 'vitest';
import { assertHasServers, RecordedToolsStore, runToolDefinitions, withDigest } from '../../src/activities/recorded-tools.js';

const def = (name: string) => ({ name, description: `${name} tool`, input_schema: { type: 'object' } });
const recorded = withDigest({ covers: ['notes__*', 'web__fetch'], definitions: [def('notes__add'), def('notes__list'), def('web__fetch')] });
const local = (names: string[]) => names.map((name) => ({ name, description: 'local', input_schema: { type: 'object' as const } }));

describe('recorded MCP tool definitions', () => {
  it('the same definitions have the same digest; different ones another', () => {
    expect(withDigest({ covers: recorded.covers, definitions: recorded.definitions }).digest).toBe(recorded.digest);
    expect(withDigest({ covers: ['notes__*'], definitions: [def('notes__add')] }).digest).not.toBe(recorded.digest);
  });

  it('expands the recorded names in the order of the run’s tools, local tools from the registry', () => {
    const tools = runToolDefinitions(['calculator', 'notes__*', 'web__fetch'], recorded, local);
    expect(tools.map((t) => t.name)).toEqual(['calculator', 'notes__add', 'notes__list', 'web__fetch']);
    expect(tools[1].description).toBe('notes__add tool');
  });

  it('serves from the cache by digest, and queries the workflow once on a miss', async () => {
    const asked: string[] = [];
    const store = new RecordedToolsStore(async (run) => {
      asked.push(run.workflowId);
      return recorded;
    });
    const run = { workflowId: 'wf', runId: 'r' };
    expect(await store.read(recorded.digest, run)).toEqual(recorded);
    expect(await store.read(recorded.digest, run)).toEqual(recorded);
    expect(asked).toEqual(['wf']);
    expect(store.stats).toEqual({ cacheHits: 1, queries: 1 });
    await expect(store.read('other-digest', run)).rejects.toThrow(`run wf answered with tool definitions ${recorded.digest}, expected other-digest`);
  });

  it('fails the run, naming the server, on a worker without it', () => {
    expect(() => assertHasServers(recorded, ['notes', 'web'])).not.toThrow();
    expect(() => assertHasServers(recorded, ['notes'])).toThrow(
      'this run uses the MCP server(s) web, which this worker does not have (it has: notes); run a worker configured with them (mcpServers)',
    );
  });
});
