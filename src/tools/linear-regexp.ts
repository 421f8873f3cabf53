// The regular expressions of JSON Schemas (`pattern`, `patternProperties`) run on RE2's linear-time engine
// (re2js, pure JavaScript): a schema from an MCP server or a config is outside input, and on JavaScript's own
// backtracking engine a pattern like `^(a+)+$` takes exponential time on the wrong string, freezing the worker's
// event loop (every run on it) for minutes. RE2 has no lookaround and no backreferences: a pattern that uses
// them does not compile, so its schema is refused when the tool is registered or listed.
import type { Options } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/** Ajv's `code.regExp`: compiles with RE2 (the `u` flag is RE2's default; JSON Schema has no other flags). */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (error) {
      const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run on the linear-time regex engine (${why}); ` +
          'patterns may not use lookaround or backreferences',
      );
    }
    // Ajv keys its compiled patterns by toString(): without one every pattern would share the first one's key.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);
