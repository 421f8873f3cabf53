import { describe, expect, it, vi } from 'vitest';
import { calculator } from '../../src/tools/calculator.js';
import { executeTool } from '../../src/tools/execute.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { defineTool, ToolError, type AnyAgentTool, type ToolContext, type ToolOutput } from '../../src/tools/types.js';
import { webSearch } from '../../src/tools/web-search.js';
import { toolContext } from '../../src/tools/context.js';

const context: ToolContext = toolContext({
  workflowId: 'wf',
  toolUseId: 'toolu_1',
  idempotencyKey: 'wf/toolu_1',
  signal: new AbortController().signal,
});

function spyTool(name: string, impl: (input: { text: string }) => Promise<string>) {
  const execute = vi.fn(impl);
  const tool = defineTool<{ text: string }>({
    name,
    description: 'test tool',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    execute,
  });
  return { tool, execute };
}

/** Runs `name` with every given tool registered and, unless `allowedTools` says otherwise, allowed. */
function run(tools: AnyAgentTool[], name: string, input: unknown, allowedTools = tools.map((t) => t.name)) {
  return executeTool(createToolRegistry(tools), { name, input, allowedTools }, context);
}

describe('executeTool', () => {
  it('returns the tool text as a successful outcome', async () => {
    const outcome = await run([calculator, webSearch], 'calculator', { expression: '2 + 2' });
    expect(outcome).toEqual({ isError: false, content: '4' });
  });

  it('passes the input and the context to the tool', async () => {
    const { tool, execute } = spyTool('echo', async ({ text }) => text);
    await run([tool], 'echo', { text: 'hi' });
    expect(execute).toHaveBeenCalledWith({ text: 'hi' }, context);
  });

  it('answers an unknown tool with an error listing the available tools', async () => {
    const outcome = await run([calculator, webSearch], 'shell', {});
    expect(outcome).toEqual({ isError: true, content: 'Unknown tool "shell". Available tools: calculator, web_search' });
  });

  it('answers a registered tool this run may not use as unknown, listing only the allowed ones', async () => {
    const { tool, execute } = spyTool('echo', async ({ text }) => text);
    const outcome = await run([calculator, tool], 'echo', { text: 'x' }, ['calculator']);
    expect(outcome).toEqual({ isError: true, content: 'Unknown tool "echo". Available tools: calculator' });
    expect(execute).not.toHaveBeenCalled();
  });

  it('leaves allowed names the worker does not have out of the list', async () => {
    const outcome = await run([calculator], 'shell', {}, ['calculator', 'missing']);
    expect(outcome).toEqual({ isError: true, content: 'Unknown tool "shell". Available tools: calculator' });
  });

  it('says (none) when the run may use no tools', async () => {
    const outcome = await run([calculator], 'calculator', { expression: '1' }, []);
    expect(outcome).toEqual({ isError: true, content: 'Unknown tool "calculator". Available tools: (none)' });
  });

  it('answers invalid input with the validation message and never calls execute', async () => {
    const { tool, execute } = spyTool('echo', async ({ text }) => text);
    const outcome = await run([tool], 'echo', { text: 7 });
    expect(outcome).toEqual({ isError: true, content: 'Invalid input for tool "echo": /text must be string' });
    expect(execute).not.toHaveBeenCalled();
  });

  it('turns a ToolError into an error outcome carrying its message', async () => {
    const outcome = await run([calculator], 'calculator', { expression: '1 / 0' });
    expect(outcome).toEqual({ isError: true, content: 'Division by zero at position 2 in "1 / 0"' });
  });

  it('rethrows any other error so the activity layer can retry it', async () => {
    const failure = new Error('connection reset');
    const { tool } = spyTool('flaky', async () => {
      throw failure;
    });
    await expect(run([tool], 'flaky', { text: 'x' })).rejects.toBe(failure);
  });

  it('passes an empty result through as "(empty result)", not as an error', async () => {
    const { tool } = spyTool('silent', async () => '');
    expect(await run([tool], 'silent', { text: 'x' })).toEqual({ isError: false, content: '(empty result)' });
  });

  it('gives a ToolError without a message a non-empty content', async () => {
    const { tool } = spyTool('mute', async () => {
      throw new ToolError('');
    });
    const outcome = await run([tool], 'mute', { text: 'x' });
    expect(outcome).toEqual({ isError: true, content: 'Tool "mute" failed without a message' });
  });

  it('throws when a tool returns something other than a string', async () => {
    const { tool } = spyTool('sloppy', async () => 42 as unknown as string);
    await expect(run([tool], 'sloppy', { text: 'x' })).rejects.toThrow(
      'Tool "sloppy" returned number instead of a string',
    );
  });

  it('passes content blocks through, and a ToolError with content as an is_error result with those blocks', async () => {
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBOR' } };
    const picture = defineTool<Record<string, never>, ToolOutput>({
      name: 'picture',
      description: 'a picture',
      inputSchema: { type: 'object' },
      async execute() {
        return [{ type: 'text', text: 'a pixel' }, image];
      },
    });
    const broken = defineTool<Record<string, never>, ToolOutput>({
      name: 'broken',
      description: 'fails with a picture',
      inputSchema: { type: 'object' },
      async execute() {
        throw new ToolError('see the picture', { content: [image] });
      },
    });
    expect(await run([picture, broken], 'picture', {})).toEqual({ isError: false, content: [{ type: 'text', text: 'a pixel' }, image] });
    expect(await run([picture, broken], 'broken', {})).toEqual({ isError: true, content: [image] });
  });

  it('allows every tool of an MCP server with <server>__*, and lists them as available', async () => {
    const { tool: read } = spyTool('files__read', async ({ text }) => `read ${text}`);
    const { tool: write } = spyTool('files__write', async () => 'written');
    expect(await run([read, write, calculator], 'files__read', { text: 'a' }, ['files__*'])).toEqual({ isError: false, content: 'read a' });
    expect(await run([read, write, calculator], 'calculator', { expression: '1' }, ['files__*'])).toEqual({
      isError: true,
      content: 'Unknown tool "calculator". Available tools: files__read, files__write',
    });
  });
});
