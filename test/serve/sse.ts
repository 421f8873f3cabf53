// A small Server-Sent Events reader for the API tests: reads a stream until a condition holds, then drops the
// connection (as a browser tab closed, or a network cut, would).
export interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

export async function readEvents(
  url: string,
  headers: Record<string, string>,
  until: (events: SseEvent[]) => boolean = (events) => events.at(-1)?.event === 'end',
  timeoutMs = 30_000,
  /** Read for this long, or until this signal aborts, then return what came (instead of failing at the timeout). */
  forMs?: number | AbortSignal,
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), typeof forMs === 'number' ? forMs : timeoutMs);
  if (typeof forMs === 'object') forMs.addEventListener('abort', () => controller.abort(), { once: true });
  const events: SseEvent[] = [];
  try {
    const response = await fetch(url, { headers, signal: controller.signal });
    if (response.status !== 200) throw new Error(`events: HTTP ${response.status}: ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .filter((l) => l.startsWith(`${name}:`))
            .map((l) => l.slice(name.length + 1).replace(/^ /, ''))
            .join('\n');
        if (!field('event')) continue;
        events.push({ id: field('id'), event: field('event'), data: JSON.parse(field('data') || '{}') as Record<string, unknown> });
        if (until(events)) return events;
      }
    }
    return events;
  } catch (err) {
    if (controller.signal.aborted && forMs !== undefined) return events;
    if (controller.signal.aborted) throw new Error(`events: timed out after ${timeoutMs} ms with ${JSON.stringify(events.map((e) => e.event))}`);
    throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
