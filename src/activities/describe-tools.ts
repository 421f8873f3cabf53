// describeTools: the MCP tool definitions a run will use, from this worker's sessions, once when the run
// starts. The workflow records the result (so every later model call, replay or other worker sees the same
// list) and carries it through continue-as-new.
import type { McpTools } from '../mcp/tools.js';
import type { DescribeToolsInput, RecordedTools } from '../core/types.js';
import { assertFitsInHistory } from './payload-limit.js';
import { withDigest, type RecordedToolsStore } from './recorded-tools.js';

export function createDescribeTools(deps: { mcp?: McpTools; recorded: RecordedToolsStore }) {
  return async function describeTools(input: DescribeToolsInput): Promise<RecordedTools> {
    const recorded = withDigest(deps.mcp?.describe(input.tools) ?? { covers: [], definitions: [] });
    assertFitsInHistory(recorded, 'MCP tool definitions');
    deps.recorded.remember(recorded);
    return recorded;
  };
}
