// A worker-side cache keyed by content digest, with a fallback that asks the run: what the model activity uses
// for the things a model call names by digest (the run's model-call settings, its recorded MCP tool definitions).
// Keyed by content, it can never serve another value than the one a call names, whichever run or worker put it
// there. The oldest entry goes first once it holds `maxEntries`. Each store says how it asks the run (`read`).
export class DigestCache<T> {
  readonly stats = { cacheHits: 0, queries: 0 };
  readonly #byDigest = new Map<string, T>();

  constructor(private readonly maxEntries: number) {}

  protected keep(digest: string, value: T): void {
    this.#byDigest.delete(digest);
    this.#byDigest.set(digest, value);
    while (this.#byDigest.size > this.maxEntries) this.#byDigest.delete(this.#byDigest.keys().next().value!);
  }

  /** The cached value for `digest`, else what `ask()` answers (kept). */
  protected async cached(digest: string, ask: () => Promise<T>): Promise<T> {
    const cached = this.#byDigest.get(digest);
    if (cached !== undefined) {
      this.stats.cacheHits++;
      this.keep(digest, cached);
      return cached;
    }
    this.stats.queries++;
    const value = await ask();
    this.keep(digest, value);
    return value;
  }

  clear(): void {
    this.#byDigest.clear();
  }
}
