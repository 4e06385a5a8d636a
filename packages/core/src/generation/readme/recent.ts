/**
 * A few recent answers kept by key, the oldest dropped first. A generation reads the same README
 * once per page (and again for its logo and its checks): parsing it is most of the work, so the
 * answer is kept for the next read rather than parsed again.
 */
export class Recent<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly size: number) {}

  get(key: string, make: () => T): T {
    const found = this.entries.get(key);
    if (found !== undefined) {
      // Most recently used last, so the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    const made = make();
    this.entries.set(key, made);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    return made;
  }
}

/** Freezes a value and everything in it: an answer shared between readers must not change under them. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
