export { calculator, evaluateExpression, formatNumber } from './calculator.js';
export { executeTool, type ToolCall } from './execute.js';
export { builtinTools, createToolRegistry, type ToolRegistry } from './registry.js';
export { defineTool, ToolError, type AgentTool, type ToolContext, type ToolInputSchema } from './types.js';
export { checkToolSchema, validateJsonSchema, validateToolInput } from './validate.js';
export { mockSearch, webSearch } from './web-search.js';
