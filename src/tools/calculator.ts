// A calculator the model can trust with arithmetic it would otherwise do in its head.
// Hand-written recursive descent: the expression comes from the model, so nothing here may reach eval or
// any other code generation. Every failure is a ToolError, so the model gets a message it can fix instead
// of the call being retried as an infrastructure failure.
import { defineTool, ToolError } from './types.js';

type TokenKind = 'number' | 'ident' | 'op' | 'lparen' | 'rparen' | 'comma' | 'end';

interface Token { kind: TokenKind; text: string; pos: number; value?: number }

const MAX_LENGTH = 1000;
// Bounds recursion so a pathological input fails with a ToolError, not a stack overflow (which would be
// treated as an infrastructure failure and retried).
const MAX_DEPTH = 100;

// One sticky pattern, tried at each position: whitespace | number | name | operator | punctuation.
const TOKEN = /\s+|((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/%^])|([(),])/y;
const PUNCTUATION: Record<string, TokenKind> = { '(': 'lparen', ')': 'rparen', ',': 'comma' };

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

const UNARY_FUNCTIONS: Partial<Record<string, (x: number) => number>> = {
  sqrt: Math.sqrt, abs: Math.abs, floor: Math.floor, ceil: Math.ceil, exp: Math.exp,
  log: Math.log, log10: Math.log10, sin: Math.sin, cos: Math.cos, tan: Math.tan,
  // Math.round rounds -2.5 to -2; rounding half away from zero is what people expect from a calculator.
  round: (x) => Math.sign(x) * Math.round(Math.abs(x)),
};

const VARIADIC_FUNCTIONS: Partial<Record<string, (...xs: number[]) => number>> = { min: Math.min, max: Math.max };

const FUNCTION_NAMES = [...Object.keys(UNARY_FUNCTIONS), ...Object.keys(VARIADIC_FUNCTIONS)];

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const re = new RegExp(TOKEN);
  while (re.lastIndex < src.length) {
    const pos = re.lastIndex;
    const m = re.exec(src);
    if (!m) throw new ToolError(`Unexpected character "${src[pos]}" at position ${pos} in "${src}"`);
    const [text, num, name, op, punct] = m;
    if (num !== undefined) {
      // "1.2.3" would otherwise lex as 1.2 and .3 and fail with a less helpful message.
      if (src[re.lastIndex] === '.') {
        const bad = /[\d.eE]*/y;
        bad.lastIndex = pos;
        throw new ToolError(`Malformed number "${bad.exec(src)![0]}" at position ${pos} in "${src}"`);
      }
      tokens.push({ kind: 'number', text, pos, value: Number(text) });
    } else if (name !== undefined) tokens.push({ kind: 'ident', text, pos });
    else if (op !== undefined) tokens.push({ kind: 'op', text, pos });
    else if (punct !== undefined) tokens.push({ kind: PUNCTUATION[punct], text, pos });
  }
  tokens.push({ kind: 'end', text: 'end of expression', pos: src.length });
  return tokens;
}

// Grammar, loosest first (unary minus binds looser than power, so -2^2 = -4):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := postfix (('^' | '**') unary)?        right-associative
//   postfix := primary '%'*                          percent: '%' not followed by an operand
//   primary := number | constant | name '(' expr (',' expr)* ')' | '(' expr ')'
// Values are computed while parsing: the grammar has no short-circuiting, so no tree is needed.
class Parser {
  private i = 0;
  private depth = 0;
  private readonly tokens: Token[];

  constructor(private readonly src: string) {
    this.tokens = tokenize(src);
  }

  parse(): number {
    const value = this.expr();
    const t = this.peek();
    if (t.kind !== 'end') throw this.unexpected(t);
    return value;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'end') this.i++;
    return t;
  }

  private isOp(t: Token, ...ops: string[]): boolean {
    return t.kind === 'op' && ops.includes(t.text);
  }

  private unexpected(t: Token): ToolError {
    if (t.kind === 'end') return new ToolError(`Unexpected end of expression in "${this.src}"`);
    let hint = '';
    const prev = this.tokens[this.tokens.indexOf(t) - 1];
    if (t.kind === 'comma' && prev?.kind === 'number' && this.peek(1).kind === 'number') {
      hint = ' (thousands separators are not supported: write 68400000, not 68,400,000)';
    } else if ((t.kind === 'number' || t.kind === 'ident' || t.kind === 'lparen') && prev && prev.kind !== 'op') {
      hint = ' (implicit multiplication is not supported: use *)';
    }
    return new ToolError(`Unexpected token "${t.text}" at position ${t.pos} in "${this.src}"${hint}`);
  }

  private expr(): number {
    let left = this.term();
    while (this.isOp(this.peek(), '+', '-')) {
      const op = this.next().text;
      const right = this.term();
      left = op === '+' ? left + right : left - right;
    }
    return left;
  }

  private term(): number {
    let left = this.unary();
    while (this.isOp(this.peek(), '*', '/', '%')) {
      const op = this.next();
      const right = this.unary();
      if (op.text === '*') left *= right;
      else if (right === 0) {
        const what = op.text === '/' ? 'Division' : 'Modulo';
        throw new ToolError(`${what} by zero at position ${op.pos} in "${this.src}"`);
      } else left = op.text === '/' ? left / right : left % right;
    }
    return left;
  }

  private unary(): number {
    if (++this.depth > MAX_DEPTH) throw new ToolError(`Expression is nested too deeply (over ${MAX_DEPTH} levels)`);
    try {
      const t = this.peek();
      if (this.isOp(t, '-', '+')) {
        this.next();
        const value = this.unary();
        return t.text === '-' ? -value : value;
      }
      return this.power();
    } finally {
      this.depth--;
    }
  }

  private power(): number {
    const base = this.postfix();
    if (!this.isOp(this.peek(), '^', '**')) return base;
    const op = this.next();
    // The exponent goes through unary, which recurses back here: that gives right-associativity and 2^-1.
    const exponent = this.unary();
    const value = Math.pow(base, exponent);
    if (Number.isNaN(value) && Number.isFinite(base) && Number.isFinite(exponent)) {
      const shown = `${formatNumber(base)}${op.text}${formatNumber(exponent)}`;
      throw new ToolError(`${shown} is not a real number (position ${op.pos})`);
    }
    return value;
  }

  private postfix(): number {
    let value = this.primary();
    // '%' followed by something that starts an operand is modulo (left to term); otherwise it is a percent.
    // A following '+' or '-' counts as binary, so "50% - 10" is 0.5 - 10; write "10 % (-3)" for modulo.
    while (this.isOp(this.peek(), '%') && !this.startsOperand(this.peek(1))) {
      this.next();
      value /= 100;
    }
    return value;
  }

  private startsOperand(t: Token): boolean {
    return t.kind === 'number' || t.kind === 'ident' || t.kind === 'lparen';
  }

  private primary(): number {
    const t = this.next();
    if (t.kind === 'number') return t.value!;
    if (t.kind === 'lparen') {
      const value = this.expr();
      this.expect('rparen', ')');
      return value;
    }
    if (t.kind === 'ident') {
      const name = t.text.toLowerCase();
      if (this.peek().kind === 'lparen') return this.call(name, t);
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name];
      if (FUNCTION_NAMES.includes(name)) {
        throw new ToolError(`"${t.text}" is a function: call it with parentheses, e.g. ${name}(2)`);
      }
      throw new ToolError(
        `Unknown name "${t.text}" at position ${t.pos} in "${this.src}" ` +
          `(constants: ${Object.keys(CONSTANTS).join(', ')})`,
      );
    }
    throw this.unexpected(t);
  }

  private call(name: string, t: Token): number {
    if (Object.hasOwn(CONSTANTS, name)) throw new ToolError(`"${t.text}" is a constant, not a function`);
    // hasOwn, not a plain lookup: "constructor" or "toString" must not reach Object.prototype.
    const unary = Object.hasOwn(UNARY_FUNCTIONS, name) ? UNARY_FUNCTIONS[name] : undefined;
    const variadic = Object.hasOwn(VARIADIC_FUNCTIONS, name) ? VARIADIC_FUNCTIONS[name] : undefined;
    if (!unary && !variadic) {
      throw new ToolError(
        `Unknown function "${t.text}" at position ${t.pos}. Available functions: ${FUNCTION_NAMES.join(', ')}`,
      );
    }
    this.expect('lparen', '(');
    const args: number[] = [];
    if (this.peek().kind !== 'rparen') {
      args.push(this.expr());
      while (this.peek().kind === 'comma') {
        this.next();
        args.push(this.expr());
      }
    }
    this.expect('rparen', ')');
    if (unary && args.length !== 1) {
      throw new ToolError(`Function "${name}" takes exactly 1 argument, got ${args.length}`);
    }
    if (variadic && args.length === 0) throw new ToolError(`Function "${name}" needs at least 1 argument`);
    const result = unary ? unary(args[0]) : variadic!(...args);
    if (Number.isNaN(result) && args.every(Number.isFinite)) {
      throw new ToolError(`${name}(${args.map(formatNumber).join(', ')}) is undefined (not a real number)`);
    }
    return result;
  }

  private expect(kind: TokenKind, text: string): void {
    const t = this.peek();
    if (t.kind !== kind) {
      if (t.kind === 'end') throw new ToolError(`Missing "${text}" at end of "${this.src}"`);
      throw this.unexpected(t);
    }
    this.next();
  }
}

/** Parses and evaluates an arithmetic expression. Throws `ToolError` with a message naming the problem. */
export function evaluateExpression(expr: string): number {
  if (expr.trim() === '') throw new ToolError('Expression is empty');
  if (expr.length > MAX_LENGTH) throw new ToolError(`Expression is too long (over ${MAX_LENGTH} characters)`);
  const value = new Parser(expr).parse();
  if (!Number.isFinite(value)) throw new ToolError(`Result is not a finite number (${value}) for "${expr}"`);
  return value;
}

/** Formats without float noise (0.1 + 0.2 gives "0.3") and in plain notation for integers below 1e21. */
export function formatNumber(x: number): string {
  if (Object.is(x, -0)) return '0';
  if (Number.isSafeInteger(x)) return String(x);
  // 15 significant digits drops binary representation noise; String() keeps plain notation below 1e21.
  return String(Number(x.toPrecision(15)));
}

export const calculator = defineTool<{ expression: string }>({
  name: 'calculator',
  readOnly: true,
  description:
    'Evaluates an arithmetic expression and returns the result (double precision, at most 15 significant ' +
    'digits). Use it for any arithmetic instead of computing in your head. Supports + - * / ^ or ** (power), ' +
    'parentheses, unary minus, % as modulo when a number, name or "(" follows it ("10 % 3") and as a percent ' +
    'otherwise (15% means 0.15, e.g. "15% * 68400000"), the functions sqrt, abs, round, floor, ceil, ' +
    'min, max, log (natural), log10, exp, sin, cos, tan (radians), and the constants pi and e. ' +
    'Numbers must not contain thousands separators: write 68400000, not 68,400,000.',
  inputSchema: {
    type: 'object',
    properties: {
      expression: { type: 'string', description: 'The expression, e.g. "(68606000 - 68400000) / 68400000 * 100".' },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  async execute({ expression }) {
    return formatNumber(evaluateExpression(expression));
  },
});
