/**
 * Values read from storage, kept in memory by key, at most `maxEntries` (the least recently used
 * go first). `forget` drops a key; a read that began before a `forget` of its key answers but is
 * not kept, so a change made during the read is never hidden by the older value.
 */
export class ReadThroughMemory<T> {
  private readonly entries = new Map<string, T>();
  /** Bumped by every `forget` of a key: a read remembers the count it began with. */
  private readonly forgets = new Map<string, number>();
  /** Bumped when `forgets` is emptied: reads under way then are not kept. */
  private era = 0;

  constructor(private readonly maxEntries: number) {}

  /** The value from memory, else from `read` (kept unless the key was forgotten meanwhile). */
  async get(key: string, read: () => Promise<T>): Promise<T> {
    if (this.entries.has(key)) {
      const value = this.entries.get(key) as T;
      this.entries.delete(key);
      this.entries.set(key, value);
      return value;
    }
    const [era, before] = [this.era, this.forgets.get(key) ?? 0];
    const value = await read();
    if (this.era === era && (this.forgets.get(key) ?? 0) === before) this.set(key, value);
    return value;
  }

  /** Keeps `value` as what storage holds now (the writer knows it). */
  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(key: string): void {
    this.entries.delete(key);
    this.forgets.set(key, (this.forgets.get(key) ?? 0) + 1);
    // The counts matter only while a read is under way; a bounded map is enough.
    if (this.forgets.size > this.maxEntries * 2) {
      this.forgets.clear();
      this.era += 1;
    }
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.forget(key);
  }
}
