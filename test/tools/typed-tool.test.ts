// defineTool derives execute's input type from the tool's JSON Schema. The type assertions are checked by
// `npm run typecheck` (expectTypeOf, and @ts-expect-error lines that fail the build if they stop being errors);
// the runtime half proves Ajv still validates the same schema.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { executeTool } from '../../src/tools/execute.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { toolContext } from '../../src/tools/context.js';

const forecast = defineTool({
  name: 'forecast',
  description: 'The forecast for a city.',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer', minimum: 1, maximum: 7 },
      unit: { enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
    additionalProperties: false,
  },
  async execute(input) {
    expectTypeOf(input).toEqualTypeOf<{ city: string; days?: number; unit?: 'celsius' | 'fahrenheit' }>();
    // @ts-expect-error: not in the schema
    void input.country;
    return `${input.city}: sunny for ${input.days ?? 1} day(s) in ${input.unit ?? 'celsius'}`;
  },
});

describe('defineTool', () => {
  it('derives the input type from the schema; Ajv still refuses input the schema refuses', async () => {
    expectTypeOf(forecast).toEqualTypeOf<AgentTool<{ city: string; days?: number; unit?: 'celsius' | 'fahrenheit' }>>();
    const registry = createToolRegistry([forecast]);
    const context = toolContext({ workflowId: 'w', toolUseId: 't', idempotencyKey: 'w/t' });
    const call = (input: unknown) => executeTool(registry, { name: 'forecast', input, allowedTools: ['forecast'] }, context);
    expect(await call({ city: 'Paris', days: 2 })).toEqual({ isError: false, content: 'Paris: sunny for 2 day(s) in celsius' });
    expect(await call({ city: 'Paris', days: 9 })).toMatchObject({ isError: true, content: expect.stringMatching(/days/) });
    expect(await call({ days: 2 })).toMatchObject({ isError: true, content: expect.stringMatching(/city/) });
  });

  it('an explicit type argument still states the input type (the form tools written before keep compiling)', () => {
    const stated = defineTool<{ q: string }>({
      name: 'stated',
      description: 'd',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async ({ q }) => q,
    });
    expectTypeOf(stated).toEqualTypeOf<AgentTool<{ q: string }>>();
    // @ts-expect-error: a top-level schema that is not an object is refused by the types too
    defineTool({ name: 'x', description: 'd', inputSchema: { type: 'string' }, execute: async () => '' });
  });
});
