import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/core/duration.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['500ms', 500],
    ['1d', 86_400_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1m30s', 90_000],
    ['2d3h4m5s6ms', 2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5_000 + 6],
    ['  45s ', 45_000],
    ['0s', 0],
    ['1.0005s', 1_001],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '   ', '90', '10 m', '1x', 'h', '-5m', '1h30', '30m1h', '1h1h', '5ms3s', '1.h', '1e3s', '10M', 'abc', '1h,30m'])(
    'refuses %j, quoting it and the accepted forms',
    (text) => {
      expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
      expect(() => parseDuration(text)).toThrow(/90s, 10m, 2h, 1h30m, 1\.5h, 500ms, 1d/);
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [5_400_000, '1h 30m'],
    [45_000, '45s'],
    [1_234, '1.2s'],
    [250, '250ms'],
    [0, '0ms'],
    [999.6, '1s'],
    [59_960, '1m'],
    [90_000, '1m 30s'],
    [3_723_000, '1h 2m 3s'],
    [86_400_000 + 3_600_000, '1d 1h'],
    [7_200_400, '2h'],
    [-1_500, '-1.5s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration where it keeps whole seconds', () => {
    for (const ms of [45_000, 90_000, 5_400_000, 3_723_000, 90_061_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
