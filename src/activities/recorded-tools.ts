// The MCP tool definitions a run recorded when it started, for its model calls. A model call's input names
// them by digest only (the definitions are in history once, in the describeTools result); the activity reads
// them from this worker's cache, keyed by that digest, else asks the workflow with the `toolDefinitions`
// query (not recorded in history), as it does for the transcript. Keyed by content, the cache can never
// serve other definitions than the ones the run recorded, whichever worker recorded them.
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { workerLacksFailure } from './model-errors.js';
import { mayBeMcpTool, splitMcpName, toolNameMatches } from '../core/tool-names.js';
import type { RecordedTools } from '../core/types.js';
import { DigestCache } from './digest-cache.js';

export type ReadRecordedTools = (run: { workflowId: string; runId: string }) => Promise<RecordedTools | null>;

export class RecordedToolsStore extends DigestCache<RecordedTools> {
  constructor(
    private readonly query: ReadRecordedTools,
    maxEntries = 64,
  ) {
    super(maxEntries);
  }

  /** Kept when this worker produced them (describeTools), so its model calls need no query. */
  remember(recorded: RecordedTools): void {
    this.keep(recorded.digest, recorded);
  }

  read(digest: string, run: { workflowId: string; runId: string }): Promise<RecordedTools> {
    return this.cached(digest, async () => {
      const recorded = await this.query(run);
      if (!recorded || recorded.digest !== digest) {
        // A bug rather than bad luck: the workflow answers with what it recorded, and the digest came from it.
        throw new Error(`run ${run.workflowId} answered with tool definitions ${recorded?.digest ?? '(none)'}, expected ${digest}`);
      }
      return recorded;
    });
  }
}

/** The digest of a run's definitions: a hash of exactly what is recorded. */
export function withDigest(described: Omit<RecordedTools, 'digest'>): RecordedTools {
  const digest = createHash('sha256').update(JSON.stringify([described.covers, described.definitions])).digest('hex').slice(0, 32);
  return { digest, ...described };
}

/** The tool definitions of one model call, in the order of the run's `tools` setting: a name the run
 * recorded from MCP stands for its recorded definitions, any other name is looked up in the worker's
 * registry (`local`). */
export function runToolDefinitions(
  names: readonly string[],
  recorded: RecordedTools | undefined,
  local: (names: string[]) => Anthropic.Tool[],
): Anthropic.Tool[] {
  const covered = (name: string) => recorded?.covers.includes(name) ?? false;
  // One lookup for all local names, so a worker lacking several tools names them all at once.
  const localNames = names.filter((name) => !covered(name));
  const locals = new Map(local(localNames).map((tool) => [tool.name, tool]));
  const definitions = new Map<string, Anthropic.Tool>();
  for (const name of names) {
    if (!covered(name)) {
      definitions.set(name, locals.get(name)!);
      continue;
    }
    for (const d of recorded!.definitions) {
      if (toolNameMatches(d.name, name) && !definitions.has(d.name)) {
        definitions.set(d.name, { ...d, input_schema: d.input_schema as Anthropic.Tool.InputSchema });
      }
    }
  }
  return [...definitions.values()];
}

/** A run that uses an MCP server this worker lacks cannot make progress here: its tool calls would all be
 * refused. Fails it at once, naming the server. */
export function assertHasServers(recorded: RecordedTools, servers: readonly string[]): void {
  const needed = new Set(recorded.covers.filter(mayBeMcpTool).map((name) => splitMcpName(name)!.server));
  const missing = [...needed].filter((s) => !servers.includes(s));
  if (missing.length > 0) throw workerLacksFailure('uses the MCP server(s)', missing, 'have', servers, 'run a worker configured with them (mcpServers)');
}
