// MCP servers as a tool source for a worker (see docs/tools-and-mcp.md, "MCP servers"); AgentPlugin connects and closes them.
export { connectMcpServers, withMcpTools, type ConnectMcpOptions, type McpTools } from './tools.js';
export { IDEMPOTENCY_META_KEY, McpBadAnswer, McpServerUnavailable, McpSession } from './connect.js';
export { toolResultContent } from './content.js';
export { FileMcpTokenStore, MemoryMcpTokenStore, McpTokenStoreError, defaultMcpTokenStore, type McpAuthRecord, type McpTokenStore } from './token-store.js';
export { McpLoginRequired, StoreOAuthProvider } from './oauth.js';
