/** The last lines of a log that arrives in pieces (a line may be split across pieces). */
export class LogTail {
  #lines: string[] = [];
  #partial = "";
  constructor(private readonly keep: number) {}

  push(text: string): this {
    const pieces = (this.#partial + text).split("\n");
    this.#partial = pieces.pop() ?? "";
    this.#lines.push(...pieces);
    if (this.#lines.length > this.keep) this.#lines.splice(0, this.#lines.length - this.keep);
    return this;
  }

  lastLine(): string {
    return this.#partial || this.#lines.at(-1) || "Building.";
  }

  text(): string {
    return [...this.#lines, ...(this.#partial ? [this.#partial] : [])].slice(-this.keep).join("\n");
  }
}
