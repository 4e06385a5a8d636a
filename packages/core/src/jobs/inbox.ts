/** A queue one reader waits on: items pushed by listeners, taken in order. */
export class Inbox<T> {
  private items: T[] = [];
  private head = 0;
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  /** The next item; undefined when none came within `ms`, or when `signal` aborted. */
  async take(ms: number, signal?: AbortSignal): Promise<T | undefined> {
    if (this.head === this.items.length && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    }
    if (signal?.aborted || this.head === this.items.length) return undefined;
    const item = this.items[this.head++]!;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return item;
  }
}
