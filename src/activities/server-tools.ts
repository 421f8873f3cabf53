// Claude's server tools (web search, web fetch, code execution): run by Anthropic inside the model call, so
// they are tool *definitions* in the request, not activities. The newest versions @anthropic-ai/sdk 1.14.0 types.
import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { ServerToolSettings } from '../core/types.js';

export const SERVER_TOOL_TYPES = {
  web_search: 'web_search_20260318',
  web_fetch: 'web_fetch_20260318',
  code_execution: 'code_execution_20260521',
} as const;

type ServerToolDefinition = Anthropic.WebSearchTool20260318 | Anthropic.WebFetchTool20260318 | Anthropic.CodeExecutionTool20260521;

/** The definitions of a run's server tools. A client tool of the same name (the built-in `web_search` stub)
 * cannot be offered with them: the API requires unique names, and no retry fixes that. */
export function serverToolDefinitions(settings: ServerToolSettings | undefined, clientToolNames: readonly string[]): ServerToolDefinition[] {
  if (!settings || settings.tools.length === 0) return [];
  const clash = settings.tools.filter((name) => clientToolNames.includes(name));
  if (clash.length > 0) {
    throw ApplicationFailure.create({
      type: 'ToolNameConflict',
      nonRetryable: true,
      message:
        `the run offers both a tool and Claude's server tool named ${clash.join(', ')}; ` +
        `leave ${clash.join(', ')} out of --tools when --server-tools has it`,
    });
  }
  const domains = {
    ...(settings.allowedDomains ? { allowed_domains: settings.allowedDomains } : {}),
    ...(settings.blockedDomains ? { blocked_domains: settings.blockedDomains } : {}),
  };
  return settings.tools.map((name): ServerToolDefinition => {
    switch (name) {
      case 'web_search':
        return {
          type: SERVER_TOOL_TYPES.web_search,
          name,
          ...(settings.webSearchMaxUses !== undefined ? { max_uses: settings.webSearchMaxUses } : {}),
          ...domains,
        };
      case 'web_fetch':
        return { type: SERVER_TOOL_TYPES.web_fetch, name, ...domains };
      case 'code_execution':
        return { type: SERVER_TOOL_TYPES.code_execution, name };
    }
  });
}
