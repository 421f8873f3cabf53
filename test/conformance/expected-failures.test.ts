// The conformance suite's expected failures (test/conformance/expected-failures.json): each entry names a client
// scenario and says why it cannot pass for a headless worker, so a reviewer can accept or refuse it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const expected = JSON.parse(readFileSync(new URL('./expected-failures.json', import.meta.url), 'utf8')) as Record<string, unknown>;

describe('the conformance expected-failures file', () => {
  it('gives every entry a reason of a sentence, and elicitation the reason that points at issue 21 item 2', () => {
    for (const [scenario, reason] of Object.entries(expected)) {
      expect(scenario).toMatch(/^[a-z0-9/_.-]+$/);
      expect(typeof reason === 'string' && (reason.length >= 30 || reason.startsWith('elicitation: '))).toBe(true);
    }
    expect(expected['elicitation-sep1034-client-defaults']).toBe('elicitation: see issue 21 item 2');
  });
});
