// A JSON object (not null, not an array), as the checks of configs, settings, scripts and stored files read one. Pure.
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value that is not a JSON object is, for messages: `null`, `an array`, or its type. */
export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
