// `durable-agent/mcp`: for a worker with MCP servers (docs/tools-and-mcp.md, "MCP servers"), beyond the `mcpServers`
// option of `createAgentWorker` and `AgentPlugin`. Where OAuth servers' tokens are kept (`mcpTokenStore`: the file
// store is the default; a store of your own implements McpTokenStore), the error a call to a server that needs a
// login gives, and the `_meta` key of the idempotency key a tool call sends (a server of yours can read it).
export { FileMcpTokenStore, MemoryMcpTokenStore, McpTokenStoreError, type McpAuthRecord, type McpTokenStore } from './token-store.js';
export { McpLoginRequired } from './oauth.js';
export { IDEMPOTENCY_META_KEY } from './connect.js';
export type { McpTools } from './tools.js';
