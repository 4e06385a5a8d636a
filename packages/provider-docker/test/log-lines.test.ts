import { describe, expect, it } from "vitest";
import { BuildLogLines, readableLine } from "../src/build-log-lines.js";
import { demuxLogs } from "../src/docker-runtime.js";

/** One frame of Docker's multiplexed log format: stream byte, three zeros, big-endian length, bytes. */
const frame = (stream: 1 | 2, text: string | Buffer) => {
  const body = typeof text === "string" ? Buffer.from(text) : text;
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
};

describe("build log lines", () => {
  it("makes one line per line feed, whatever the chunks, and the rest at the end", () => {
    const lines: string[] = [];
    const splitter = new BuildLogLines((line) => lines.push(line));
    for (const chunk of ["Step 1/2 : FR", "OM x\n ---> abc\n\nlast without", " a line feed"]) splitter.push(chunk);
    expect(lines).toEqual(["Step 1/2 : FROM x", " ---> abc"]);
    splitter.end();
    expect(lines).toEqual(["Step 1/2 : FROM x", " ---> abc", "last without a line feed"]);
  });

  it("shows a line redrawn with \\r by its last drawing, without escapes", () => {
    expect(readableLine("  0%\r 50%\r100%")).toBe("100%");
    expect(readableLine("done\r\r")).toBe("done");
    expect(readableLine("\u001b[1m\u001b[32mgreen\u001b[0m \u001b]0;title\u0007text\u0008")).toBe("green text");
    expect(readableLine("\t indented")).toBe("\t indented");
  });

  it("keeps a line that never ends bounded", () => {
    const lines: string[] = [];
    const splitter = new BuildLogLines((line) => lines.push(line));
    for (let i = 0; i < 2_000; i++) splitter.push(`\rprogress ${i} ${"#".repeat(100)}`);
    splitter.push("\n");
    expect(lines).toEqual([`progress 1999 ${"#".repeat(100)}`]);
  });
});

describe("container logs", () => {
  it("takes stdout and stderr frames apart in the order written, across split characters", () => {
    const euro = Buffer.from("€");
    const raw = Buffer.concat([
      frame(1, "out one\n"),
      frame(2, "err two\n"),
      frame(1, Buffer.concat([Buffer.from("price "), euro.subarray(0, 1)])),
      frame(1, Buffer.concat([euro.subarray(1), Buffer.from("5\n")])),
    ]);
    expect(demuxLogs(raw)).toBe("out one\nerr two\nprice €5\n");
  });

  it("takes output that is not framed (a TTY's) as it is", () => {
    expect(demuxLogs(Buffer.from("plain output\nmore\n"))).toBe("plain output\nmore\n");
    expect(demuxLogs(Buffer.alloc(0))).toBe("");
  });
});
