import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/sha256.js';

describe('sha256Hex', () => {
  it('gives the digest node:crypto gives, across block boundaries and for text outside ASCII', () => {
    const inputs = ['', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'é€😀'.repeat(40), 'y'.repeat(100_000)];
    for (const s of inputs) expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
  });
});
