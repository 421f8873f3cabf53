// Which patterns JavaScript's own (backtracking) RegExp engine ran while a test's code did: for the tests that prove a
// hostile schema pattern runs on the linear-time engine, from which engine ran it rather than from how long it took.
import { vi } from 'vitest';

export interface NativeRegExpWatch {
  /** The source of every RegExp whose exec or test ran (String's match, replace, split, ... call exec). */
  sources: Set<string>;
  restore(): void;
}

export function watchNativeRegExp(): NativeRegExpWatch {
  const sources = new Set<string>();
  const spies = (['exec', 'test'] as const).map((method) => {
    const original = RegExp.prototype[method] as (this: RegExp, input: string) => unknown;
    return vi.spyOn(RegExp.prototype, method).mockImplementation(function (this: RegExp, input: string) {
      sources.add(this.source);
      return original.call(this, input);
    } as never);
  });
  return { sources, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}
