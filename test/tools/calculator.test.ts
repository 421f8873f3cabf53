import { describe, expect, it } from 'vitest';
import { calculator, evaluateExpression, formatNumber } from '../../src/tools/calculator.js';
import { ToolError, type ToolContext } from '../../src/tools/types.js';
import { toolContext } from '../../src/tools/context.js';

const context: ToolContext = toolContext({
  workflowId: 'wf',
  toolUseId: 'toolu_1',
  idempotencyKey: 'wf/toolu_1',
  signal: new AbortController().signal,
});

function errorOf(expr: string): ToolError {
  try {
    evaluateExpression(expr);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error(`expected "${expr}" to throw`);
}

describe('evaluateExpression', () => {
  it('reads integers, decimals and exponent notation', () => {
    expect(evaluateExpression('42')).toBe(42);
    expect(evaluateExpression('3.25')).toBe(3.25);
    expect(evaluateExpression('.5')).toBe(0.5);
    expect(evaluateExpression('6.8e7')).toBe(68_000_000);
    expect(evaluateExpression('2.5E-3')).toBe(0.0025);
  });

  it('gives * and / precedence over + and -', () => {
    expect(evaluateExpression('1 + 2 * 3')).toBe(7);
    expect(evaluateExpression('10 - 6 / 2')).toBe(7);
    expect(evaluateExpression('(1 + 2) * 3')).toBe(9);
  });

  it('evaluates + - * / left to right', () => {
    expect(evaluateExpression('10 - 3 - 2')).toBe(5);
    expect(evaluateExpression('100 / 10 / 5')).toBe(2);
  });

  it('treats ^ and ** as right-associative power binding tighter than *', () => {
    expect(evaluateExpression('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluateExpression('2 ** 3 ** 2')).toBe(512);
    expect(evaluateExpression('2 * 3 ^ 2')).toBe(18);
    expect(evaluateExpression('2 ** 10')).toBe(1024);
  });

  it('applies unary minus after power, so -2^2 is -4', () => {
    expect(evaluateExpression('-2^2')).toBe(-4);
    expect(evaluateExpression('(-2)^2')).toBe(4);
    expect(evaluateExpression('2^-1')).toBe(0.5);
    expect(evaluateExpression('-2^-2')).toBe(-0.25);
  });

  it('accepts unary plus and repeated unary minus', () => {
    expect(evaluateExpression('+5')).toBe(5);
    expect(evaluateExpression('--5')).toBe(5);
    expect(evaluateExpression('3 - -2')).toBe(5);
  });

  it('reads % before an operand as modulo', () => {
    expect(evaluateExpression('10 % 3')).toBe(1);
    expect(evaluateExpression('10 % (4)')).toBe(2);
    expect(evaluateExpression('2 + 7 % 4')).toBe(5);
  });

  it('reads % not followed by an operand as a percent', () => {
    expect(evaluateExpression('15%')).toBe(0.15);
    expect(evaluateExpression('15% * 68400000')).toBe(10_260_000);
    expect(evaluateExpression('200 * 15%')).toBe(30);
    expect(evaluateExpression('(50)%')).toBe(0.5);
  });

  it('reads % followed by + or - as a percent, the minus being binary', () => {
    expect(evaluateExpression('50% - 10')).toBe(-9.5);
    expect(evaluateExpression('50% + 1')).toBe(1.5);
  });

  it('supports the listed functions and constants', () => {
    expect(evaluateExpression('sqrt(16)')).toBe(4);
    expect(evaluateExpression('abs(-3)')).toBe(3);
    expect(evaluateExpression('round(2.5)')).toBe(3);
    expect(evaluateExpression('round(-2.5)')).toBe(-3);
    expect(evaluateExpression('floor(2.7)')).toBe(2);
    expect(evaluateExpression('ceil(2.1)')).toBe(3);
    expect(evaluateExpression('min(4, 2, 8)')).toBe(2);
    expect(evaluateExpression('max(4, 2, 8)')).toBe(8);
    expect(evaluateExpression('log(e)')).toBe(1);
    expect(evaluateExpression('log10(1000)')).toBe(3);
    expect(evaluateExpression('exp(0)')).toBe(1);
    expect(evaluateExpression('sin(0)')).toBe(0);
    expect(evaluateExpression('cos(0)')).toBe(1);
    expect(evaluateExpression('tan(0)')).toBe(0);
    expect(evaluateExpression('pi')).toBe(Math.PI);
    expect(evaluateExpression('2 * PI')).toBe(2 * Math.PI);
  });

  it('allows nested calls and expressions as arguments', () => {
    expect(evaluateExpression('max(sqrt(16), 2 ^ 3, -1)')).toBe(8);
  });

  it('rejects an unexpected token with the token, its position and the expression', () => {
    expect(errorOf('2 * (3 + )').message).toBe('Unexpected token ")" at position 9 in "2 * (3 + )"');
    expect(errorOf('1)').message).toContain('Unexpected token ")" at position 1');
  });

  it('rejects thousands separators with a hint to drop them', () => {
    const message = errorOf('68,400,000').message;
    expect(message).toContain('Unexpected token "," at position 2');
    expect(message).toContain('thousands separators are not supported');
  });

  it('rejects implicit multiplication with a hint to use *', () => {
    expect(errorOf('2pi').message).toContain('implicit multiplication is not supported');
    expect(errorOf('2 (3)').message).toContain('implicit multiplication is not supported');
  });

  it('rejects an unknown function with its name in the message', () => {
    const message = errorOf('foo(2)').message;
    expect(message).toContain('Unknown function "foo"');
    expect(message).toContain('sqrt');
  });

  it('rejects an unknown name', () => {
    expect(errorOf('2 * x').message).toContain('Unknown name "x" at position 4');
  });

  it('rejects a function used without parentheses and a constant called as a function', () => {
    expect(errorOf('sqrt').message).toContain('"sqrt" is a function');
    expect(errorOf('pi(2)').message).toContain('"pi" is a constant');
  });

  it('rejects a wrong number of arguments', () => {
    expect(errorOf('sqrt(1, 2)').message).toBe('Function "sqrt" takes exactly 1 argument, got 2');
    expect(errorOf('max()').message).toBe('Function "max" needs at least 1 argument');
  });

  it('rejects division and modulo by zero', () => {
    expect(errorOf('1 / 0').message).toBe('Division by zero at position 2 in "1 / 0"');
    expect(errorOf('5 % (2 - 2)').message).toContain('Modulo by zero');
  });

  it('rejects a result that is not a finite number', () => {
    expect(errorOf('10 ^ 400').message).toContain('Result is not a finite number');
    expect(errorOf('log(0)').message).toContain('Result is not a finite number');
  });

  it('rejects a function or power with no real value', () => {
    expect(errorOf('sqrt(-1)').message).toBe('sqrt(-1) is undefined (not a real number)');
    expect(errorOf('(-8)^(1/3)').message).toContain('is not a real number');
  });

  it('rejects malformed numbers, stray characters, unbalanced parentheses and empty input', () => {
    expect(errorOf('1.2.3').message).toContain('Malformed number "1.2.3" at position 0');
    expect(errorOf('2 $ 3').message).toContain('Unexpected character "$" at position 2');
    expect(errorOf('((1)').message).toContain('Missing ")"');
    expect(errorOf('2 *').message).toContain('Unexpected end of expression');
    expect(errorOf('   ').message).toBe('Expression is empty');
  });

  it('rejects deep nesting and long input with a ToolError instead of overflowing the stack', () => {
    expect(errorOf('-'.repeat(500) + '1').message).toContain('nested too deeply');
    expect(errorOf('('.repeat(150) + '1' + ')'.repeat(150)).message).toContain('nested too deeply');
    expect(errorOf('1+'.repeat(600) + '1').message).toContain('too long');
  });

  it('never evaluates JavaScript', () => {
    expect(errorOf('process.exit(1)').message).toContain('Unexpected');
    expect(errorOf('constructor').message).toContain('Unknown name "constructor"');
    expect(errorOf('toString(1)').message).toContain('Unknown function "toString"');
    expect(errorOf('__proto__').message).toContain('Unknown name "__proto__"');
  });
});

describe('formatNumber', () => {
  it('drops binary floating-point noise', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(68_606_000 * 0.15)).toBe('10290900');
  });

  it('writes integers below 1e21 in plain notation', () => {
    expect(formatNumber(68_400_000)).toBe('68400000');
    expect(formatNumber(1e20)).toBe('100000000000000000000');
  });

  it('writes negative zero as 0', () => {
    expect(formatNumber(-0)).toBe('0');
  });
});

describe('calculator tool', () => {
  it('returns the formatted result as text', async () => {
    await expect(calculator.execute({ expression: '0.1 + 0.2' }, context)).resolves.toBe('0.3');
    await expect(calculator.execute({ expression: '15% * 68400000' }, context)).resolves.toBe('10260000');
  });

  it('reports a bad expression as a ToolError', async () => {
    await expect(calculator.execute({ expression: '1 / 0' }, context)).rejects.toBeInstanceOf(ToolError);
  });

  it('declares a strict object schema requiring expression', () => {
    expect(calculator.inputSchema).toMatchObject({
      type: 'object',
      required: ['expression'],
      additionalProperties: false,
      properties: { expression: { type: 'string' } },
    });
    expect(calculator.description.length).toBeGreaterThan(0);
  });
});
