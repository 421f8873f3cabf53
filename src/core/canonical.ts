// Canonical forms of tool calls for the repetition guard: "the same tool with the same arguments" must not
// depend on key order or on how the model happened to space or capitalise a string this time. Pure.

/**
 * JSON with object keys sorted (recursively, by UTF-16 code unit, so the order never depends on a locale),
 * every string value trimmed and lower-cased, numbers as JSON writes them, arrays in their order.
 * Keys are kept as they are: they are the tool's parameter names, fixed by its schema.
 * Values JSON cannot hold are treated as JSON.stringify treats them: an undefined, function or symbol member
 * is dropped, and becomes null inside an array or at the top. A bigint is written as its digits.
 * A cyclic value (never produced by JSON.parse, which is where tool inputs come from) throws a TypeError.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), (s) => s.trim().toLowerCase()) ?? 'null';
}

/** JSON with object keys sorted (recursively), values exactly as they are: two equal values written the same
 * whatever their key order (the scripted model compares content blocks sent back with it). */
export function sortedKeyJson(value: unknown): string {
  return write(value, new Set(), (s) => s) ?? 'null';
}

/** The repetition guard's key of a tool call: `name:length:hash` of its canonical form, so what a run carries
 * (through every continue-as-new) stays a few dozen bytes a call however large its input (a file body, say).
 * Two 32-bit FNV-1a-style hashes of the canonical JSON give 64 bits; with the length, two different calls share a
 * key by chance about once in 2^64. */
export function toolCallKey(name: string, input: unknown): string {
  const text = canonicalJson(input);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `${name}:${text.length}:${hex(h1)}${hex(h2)}`;
}

/** undefined means "no JSON value": the member is dropped, or written as null where a value is required. */
function write(value: unknown, ancestors: Set<object>, text: (s: string) => string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(text(value));
    case 'number':
    case 'boolean':
      return JSON.stringify(value); // NaN and Infinity become null, -0 becomes 0, like JSON
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return undefined; // undefined, function, symbol
  }
  if (value === null) return 'null';
  if (ancestors.has(value)) throw new TypeError('canonical JSON: the value is cyclic');
  ancestors.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => write(item, ancestors, text) ?? 'null').join(',')}]`;
  } else {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const item = write((value as Record<string, unknown>)[key], ancestors, text);
      if (item !== undefined) members.push(`${JSON.stringify(key)}:${item}`);
    }
    out = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return out;
}
