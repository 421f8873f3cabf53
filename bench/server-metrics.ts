// What the server did for a fleet, from its own Prometheus counters (the dev server's --metrics-port): read before
// and after each fleet, so that each shape's persistence writes, visibility writes, cache misses and time spent per
// operation can be compared per turn. The server's CPU time alone says how much; these say on what.

/** The counter families kept, and the label that tells their series apart. */
const FAMILIES: Record<string, string> = {
  persistence_requests: 'operation',
  persistence_latency_sum: 'operation',
  visibility_persistence_requests: 'operation',
  visibility_persistence_latency_sum: 'operation',
  service_requests: 'operation',
  service_latency_sum: 'operation',
  cache_requests: 'operation',
  cache_miss: 'operation',
  task_requests: 'operation',
  task_latency_processing_sum: 'operation',
  event_blob_size_sum: 'operation',
  mutable_state_size_sum: 'operation',
  poll_success_sync: 'task_type',
  poll_success: 'task_type',
};

export type ServerCounters = Map<string, number>;

/** The kept counters, summed over the labels other than each family's own (`family{label}` → value); an empty map
 * when the server has no metrics endpoint. Latency sums are in seconds, as Prometheus writes them. */
export async function readServerCounters(metricsPort: number | null): Promise<ServerCounters> {
  const counters: ServerCounters = new Map();
  if (!metricsPort) return counters;
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    const label = m && FAMILIES[m[1]];
    if (!label) continue;
    const value = new RegExp(`(?:^|,)${label}="([^"]*)"`).exec(m[2])?.[1] ?? '';
    const key = `${m[1]}{${value}}`;
    counters.set(key, (counters.get(key) ?? 0) + Number(m[3]));
  }
  return counters;
}

/** after − before, divided by the turns the fleet took. */
export function perTurn(before: ServerCounters, after: ServerCounters, turns: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of after) {
    const d = (v - (before.get(k) ?? 0)) / turns;
    if (d > 0) out[k] = d;
  }
  return out;
}

/** The counters whose per-turn values differ most between `ours` and `floor` (by absolute difference within each
 * unit: latency sums, in ms, and counts apart), for a note line. */
export function largestDifferences(ours: Record<string, number>, floor: Record<string, number>, count = 12): string {
  const keys = new Set([...Object.keys(ours), ...Object.keys(floor)]);
  const rows = [...keys].map((k) => {
    const scale = k.includes('latency') ? 1000 : 1; // seconds → ms
    return { k, o: (ours[k] ?? 0) * scale, f: (floor[k] ?? 0) * scale };
  });
  const describe = (r: (typeof rows)[number]) => `${r.k} ${r.o.toFixed(2)} / ${r.f.toFixed(2)}`;
  const top = (latency: boolean) =>
    rows
      .filter((r) => r.k.includes('latency') === latency && r.o !== r.f)
      .sort((a, b) => Math.abs(b.o - b.f) - Math.abs(a.o - a.f))
      .slice(0, count)
      .map(describe)
      .join('; ');
  return `time (ms a turn): ${top(true)}\n    counts (a turn): ${top(false)}`;
}
