/** One dispatched server-sent event. */
export interface ServerSentEvent {
  /** The `event:` field; `message` when there was none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream so far (ids carry over to later events, as in EventSource). */
  id: string | undefined;
}

/**
 * An incremental parser of the `text/event-stream` format, as the HTML standard's EventSource
 * reads it: lines end in CRLF, LF or CR (also split across chunks); `:` starts a comment; a field
 * without a colon has an empty value; one space after the colon is dropped; several `data:` lines
 * join with `\n`; a blank line dispatches; an event with no data is not dispatched; an `id`
 * containing NUL is ignored; unknown fields are ignored; an event left without its blank line
 * when the stream ends is dropped.
 */
export class ServerSentEventParser {
  #buffer = "";
  #started = false;
  #type = "";
  #data: string[] = [];
  #lastId: string | undefined;

  /** Feeds decoded text; answers the events it completed. */
  push(text: string): ServerSentEvent[] {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (;;) {
      const cr = this.#buffer.indexOf("\r", start);
      const lf = this.#buffer.indexOf("\n", start);
      if (cr < 0 && lf < 0) break;
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      // A CR at the very end may be the first half of a CRLF still to come.
      if (end === cr && cr === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(start, end);
      start = end + (end === cr && this.#buffer[cr + 1] === "\n" ? 2 : 1);
      const event = this.#line(line);
      if (event) events.push(event);
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#type = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id" && !value.includes("\0")) this.#lastId = value;
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    const type = this.#type;
    const data = this.#data;
    this.#type = "";
    this.#data = [];
    if (data.length === 0) return undefined;
    return { event: type || "message", data: data.join("\n"), id: this.#lastId };
  }
}
