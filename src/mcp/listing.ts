// An MCP server's `tools/list`, every page of it up to the server's caps: a server that pages forever (643,950
// pages in 100 s, the worker's memory growing, no message) stops at `maxListPages`, one that offers too many tools
// at `maxTools`, with a message saying which setting to raise.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedMcpServer } from './config.js';

export async function listAllTools(client: Client, server: Pick<ResolvedMcpServer, 'name' | 'policy'>, pageTimeoutMs: number): Promise<McpTool[]> {
  const { maxListPages, maxTools } = server.policy;
  const where = `mcpServers.${server.name}`;
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; ) {
    if (pages === maxListPages) {
      throw new Error(
        `its tools/list did not end within ${maxListPages} pages (${tools.length} tools so far; a server that pages forever?): ` +
          `if it really has more, raise ${where}.maxListPages`,
      );
    }
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: pageTimeoutMs });
    pages++;
    tools.push(...page.tools);
    if (tools.length > maxTools) {
      throw new Error(
        `it offers more than ${maxTools} tools (${tools.length} in ${pages} page${pages === 1 ? '' : 's'}): ` +
          `if it really has that many, raise ${where}.maxTools`,
      );
    }
    cursor = page.nextCursor;
    if (!cursor) return tools;
  }
}
