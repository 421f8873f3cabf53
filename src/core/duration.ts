// Human durations for flags such as `--deadline 1h30m`, and back for messages. Pure: the workflow imports it.

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
/** Largest first: each part must use a smaller unit than the one before, so `30m1h` or `1h1h` is refused
 * rather than guessed at. */
const ORDER: readonly Unit[] = ['d', 'h', 'm', 's', 'ms'];
// `ms` before `m` and `s`, or `500ms` would read as 500 minutes followed by garbage.
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|d|h|m|s)\s*/y;

const ACCEPTED = 'a number and a unit (d, h, m, s, ms), largest unit first, e.g. 90s, 10m, 2h, 1h30m, 1.5h, 500ms, 1d';

/** Milliseconds in `text`, rounded to a whole millisecond. A bare number is refused: `90` could be seconds
 * or minutes, and a deadline off by 60x is worse than an error. */
export function parseDuration(text: string): number {
  const src = text.trim();
  let ms = 0;
  let next = 0; // index into ORDER of the smallest unit still allowed
  const part = new RegExp(PART); // a fresh lastIndex per call
  while (src !== '' && part.lastIndex < src.length) {
    const at = part.lastIndex;
    const m = part.exec(src);
    const order = m ? ORDER.indexOf(m[2] as Unit) : -1;
    if (!m || order < next) {
      throw new Error(`invalid duration "${text}" (at "${src.slice(at)}"): expected ${ACCEPTED}`);
    }
    ms += Number(m[1]) * UNIT_MS[m[2] as Unit];
    next = order + 1;
  }
  if (next === 0) throw new Error(`invalid duration "${text}": expected ${ACCEPTED}`);
  if (!Number.isFinite(ms)) throw new Error(`invalid duration "${text}": too long`);
  return Math.round(ms);
}

/** `1h 30m`, `2d 3h`, `45s`, `1.2s`, `250ms`: whole units from a minute up (seconds rounded), tenths of a
 * second below a minute, milliseconds below a second. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (Math.round(ms) < 1_000) return `${Math.round(ms)}ms`;
  const tenths = Math.round(ms / 100);
  // 59.96 s rounds to 60.0 s: that is "1m", not "60s".
  if (tenths < 600) return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)}s`;
  let rest = Math.round(ms / 1_000) * 1_000;
  const parts: string[] = [];
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const n = Math.floor(rest / UNIT_MS[unit]);
    rest -= n * UNIT_MS[unit];
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join(' ');
}
