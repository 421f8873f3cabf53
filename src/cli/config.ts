// `--config FILE` (or durable-agent.config.js / .mjs in the working directory) for the commands that host a
// worker or check tool names. A broken file is a usage error: exit 2 with the loader's one-line message.
import path from 'node:path';
import { ConfigError } from '../config/check.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { AgentConfig } from '../config/types.js';
import { resolveMcpServers, type ResolvedMcpServer } from '../mcp/config.js';
import { UsageError, type FlagSpec } from '../core/args.js';
import { logLine } from './log.js';

export const CONFIG_FLAG = {
  config: {
    type: 'string',
    value: 'FILE',
    help: 'an ES module whose default export is defineConfig({ tools, mcpServers }) (default: durable-agent.config.js or .mjs here)',
  },
} satisfies Record<string, FlagSpec>;

export async function loadCliConfig(file: string | undefined): Promise<LoadedConfig> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({ file });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message, { cause: err.cause }); // the cause: what the file threw (DEBUG prints its stack)
    throw err;
  }
  if (loaded.file) {
    const tools = (loaded.config.tools ?? []).map((tool) => tool.name);
    const servers = Object.keys(loaded.config.mcpServers ?? {});
    logLine(
      `config ${path.relative(process.cwd(), loaded.file) || loaded.file}: ` +
        `tools ${tools.join(', ') || '(none)'}${servers.length ? `; MCP servers ${servers.join(', ')}` : ''}`,
    );
  }
  return loaded;
}

/** For the commands that host a worker (and `mcp`): the config's MCP servers resolved against this process's
 * environment now (a `${VAR}` that is not set here), so such a mistake is exit 2 with its one line before anything
 * starts, not an unexpected error (exit 1) from inside the worker's start. `start` does not ask: its worker runs
 * elsewhere. */
export function requireMcpEnvironment(config: AgentConfig): ResolvedMcpServer[] {
  try {
    return resolveMcpServers(config.mcpServers ?? {});
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
