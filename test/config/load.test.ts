import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, toolsWithConfig } from '../../src/config/check.js';
import { loadConfig } from '../../src/config/load.js';
import { builtinTools } from '../../src/tools/registry.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function configFile(source: string, name = `config-${++counter}.mjs`): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, source);
  return file;
}

const echoTool = `{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  async execute({ text }) { return text; } }`;

async function loadError(source: string): Promise<ConfigError> {
  const file = await configFile(source);
  const err = await loadConfig({ file, cwd: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).not.toContain('\n');
  return err as ConfigError;
}

describe('loadConfig', () => {
  it('refuses a config tool whose input schema is not an object, at load time', async () => {
    const err = await loadError(
      `export default { tools: [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'string' }, async execute(x) { return String(x); } }] };`,
    );
    expect(err.message).toMatch(/config-\d+\.mjs: Tool "echo" has an input schema of type "string": the Messages API takes only an object schema/);
  });

  it('refuses a config tool named like a tool of one of its MCP servers', async () => {
    const err = await loadError(
      `export default { tools: [{ name: 'files__read', description: 'Reads.', inputSchema: { type: 'object' }, async execute() { return ''; } }], mcpServers: { files: { command: 'node', args: ['x.js'] } } };`,
    );
    expect(err.message).toMatch(/the tool "files__read" takes a name of the MCP server "files" \(<server>__<tool> are its tools\): rename the tool/);
  });

  it('gives up on a config whose top-level await never settles, naming the file and the timeout', async () => {
    process.env.AGENT_CONFIG_LOAD_TIMEOUT = '300ms';
    try {
      const err = await loadError('await new Promise(() => {});\nexport default {};');
      expect(err.message).toMatch(/config-\d+\.mjs did not finish loading within 0\.3 s: a top-level await in it never settles/);
    } finally {
      delete process.env.AGENT_CONFIG_LOAD_TIMEOUT;
    }
  });

  it('refuses a config that calls process.exit while loading, and leaves process.exit as it was', async () => {
    const exit = process.exit;
    const err = await loadError('process.exit(0);\nexport default {};');
    expect(err.message).toMatch(/config-\d+\.mjs called process\.exit\(0\) while loading: a config file must export its config/);
    expect(process.exit).toBe(exit);
    // Swallowing the exit does not hide it.
    const swallowed = await loadError('try { process.exit(3); } catch {}\nexport default {};');
    expect(swallowed.message).toMatch(/called process\.exit\(3\) while loading/);
  });

  it('loads a plain-object default export with its tools and MCP servers', async () => {
    const file = await configFile(
      `export default { tools: [${echoTool}], mcpServers: { files: { command: 'node', args: ['x.js'] }, api: { url: 'http://127.0.0.1:1/mcp' } } };`,
    );
    const { file: loaded, config } = await loadConfig({ file: path.basename(file), cwd: dir });
    expect(loaded).toBe(file);
    expect(config.tools!.map((t) => t.name)).toEqual(['echo']);
    expect(await config.tools![0].execute({ text: 'hi' }, {} as never)).toBe('hi');
    expect(Object.keys(config.mcpServers!)).toEqual(['files', 'api']);
  });

  it('finds durable-agent.config.mjs in the working directory without --config, and nothing when there is none', async () => {
    const project = path.join(dir, 'project');
    await mkdir(project);
    expect(await loadConfig({ cwd: project })).toEqual({ config: {} });
    await writeFile(path.join(project, 'durable-agent.config.mjs'), `export default { tools: [${echoTool}] };`);
    const { file, config } = await loadConfig({ cwd: project });
    expect(file).toBe(path.join(project, 'durable-agent.config.mjs'));
    expect(config.tools!.map((t) => t.name)).toEqual(['echo']);
    await writeFile(path.join(project, 'durable-agent.config.js'), 'export default {};');
    await expect(loadConfig({ cwd: project })).rejects.toThrow(/both durable-agent.config.js and durable-agent.config.mjs.*keep one/);
  });

  it('names a missing file and how to fix it', async () => {
    await expect(loadConfig({ file: 'nope.config.mjs', cwd: dir })).rejects.toThrow(
      /^--config nope.config.mjs: no such file \(give the path of an ES module whose default export is defineConfig/,
    );
  });

  it('refuses a module without a default export', async () => {
    const err = await loadError('export const tools = [];');
    expect(err.message).toMatch(/config-\d+\.mjs has no default export: end it with `export default defineConfig\(\{ tools: \[\.\.\.\] \}\)`/);
  });

  it('names the file and line of a syntax error', async () => {
    const err = await loadError(`export default {\n  tools: [\n};\n`);
    expect(err.message).toMatch(/^syntax error in config-\d+\.mjs at line 3: Unexpected token/);
  });

  it('refuses a tools entry that is not a tool, naming its index and what it lacks', async () => {
    const err = await loadError(`export default { tools: [${echoTool}, { name: 'half', description: 'x' }] };`);
    expect(err.message).toMatch(
      /tools\[1\] is not a tool \(an object named "half", missing inputSchema, execute\): write it with defineTool\(\{ name, description, inputSchema, execute \}\)/,
    );
    expect((await loadError('export default { tools: [() => 1] };')).message).toMatch(/tools\[0\] is not a tool \(a function/);
    expect((await loadError(`export default { tools: ${echoTool} };`)).message).toMatch(/tools must be an array of tools \(got an object named "echo"\)/);
  });

  it('refuses what the worker would refuse later: an invalid name, a duplicate, an unknown key, an ill-formed MCP server', async () => {
    expect((await loadError(`export default { tools: [{ ...${echoTool}, name: 'has space' }] };`)).message).toMatch(/Invalid tool name "has space"/);
    expect((await loadError(`export default { tools: [${echoTool}, ${echoTool}] };`)).message).toMatch(/Duplicate tool name "echo"/);
    expect((await loadError('export default { tool: [] };')).message).toMatch(/unknown config key "tool" \(expected tools, mcpServers, scriptedModel, agents, maxAgentDepth\)/);
    expect((await loadError(`export default { mcpServers: { gh: { args: ['x'] } } };`)).message).toMatch(
      /mcpServers\.gh needs either command .* or url/,
    );
    expect((await loadError(`export default { mcpServers: { 'a__b': { url: 'http://x' } } };`)).message).toMatch(/MCP server name "a__b"/);
  });

  it('takes a scriptedModel function or array of turns, and refuses anything else naming the problem', async () => {
    const fn = await configFile('export default { scriptedModel: () => ({ content: [], stop_reason: "end_turn" }) };');
    expect(typeof (await loadConfig({ file: fn, cwd: dir })).config.scriptedModel).toBe('function');
    const turns = await configFile('export default { scriptedModel: [{ content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" }] };');
    expect((await loadConfig({ file: turns, cwd: dir })).config.scriptedModel).toEqual([{ content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' }]);
    expect((await loadError('export default { scriptedModel: 42 };')).message).toMatch(
      /: scriptedModel must be a function \(request, turn\) => turn, or an array of turns, or \{ script, agents: \{ <name>: script \} \} \(got number 42\)$/,
    );
    expect((await loadError('export default { scriptedModel: [{ content: [] }] };')).message).toMatch(
      /: scriptedModel: turn 0: "stop_reason" must be a string$/,
    );
    const perAgent = await configFile('export default { scriptedModel: { script: [], agents: { helper: () => ({ content: [], stop_reason: "end_turn" }) } } };');
    expect((await loadConfig({ file: perAgent, cwd: dir })).config.scriptedModel).toMatchObject({ script: [], agents: { helper: expect.any(Function) } });
    expect((await loadError('export default { scriptedModel: { script: [], agents: { helper: [{ content: [] }] } } };')).message).toMatch(
      /: scriptedModel\.agents\.helper: turn 0: "stop_reason" must be a string$/,
    );
  });

  it('a module that throws while loading is a one-line error naming the file', async () => {
    const err = await loadError(`throw new Error('no token');\nexport default {};`);
    expect(err.message).toMatch(/^cannot load config-\d+\.mjs: no token$/);
  });
});

describe('toolsWithConfig', () => {
  it('adds the config tools after the built-ins, and a config tool named like a built-in replaces it', () => {
    const echo = { name: 'echo', description: 'e', inputSchema: { type: 'object' as const }, execute: async () => '' };
    const realSearch = { ...echo, name: 'web_search' };
    expect(toolsWithConfig({ tools: [echo] }).map((t) => t.name)).toEqual([...builtinTools.map((t) => t.name), 'echo']);
    const replaced = toolsWithConfig({ tools: [realSearch] });
    expect(replaced.map((t) => t.name)).toEqual(['calculator', 'web_search']);
    expect(replaced[1]).toBe(realSearch);
    expect(toolsWithConfig({})).toEqual(builtinTools);
  });
});
