import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess } from "./server-process.js";

// An error nobody expected in a real `reposite serve`: logged with its stack, and the process
// exits 1 (for its supervisor to start it again) rather than serving on. The fault is planted by a
// module Node loads before the server (`--import`), and set off with SIGUSR2 once the server answers.

let dir: string;
let fault: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "reposite-unexpected-"));
  fault = join(dir, "fault.mjs");
  await writeFile(
    fault,
    `process.on("SIGUSR2", function faultNobodyExpected() {
  if (process.env.FAULT === "rejection") Promise.reject(new Error("a promise nobody awaited"));
  else setImmediate(function thrownInACallback() { throw new Error("thrown in a callback"); });
});
`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("an error nobody expected in a real server process", () => {
  const cases = [
    // Node's own default would only warn here and serve on.
    { kind: "rejection", nodeOptions: "--unhandled-rejections=warn", message: "a promise nobody awaited", origin: "unhandledRejection", frame: "faultNobodyExpected" },
    { kind: "exception", nodeOptions: "", message: "thrown in a callback", origin: "uncaughtException", frame: "thrownInACallback" },
  ];
  for (const { kind, nodeOptions, message, origin, frame } of cases) {
    it(`is logged with its stack and ends the process with code 1 (${kind})`, async () => {
      const dataDir = join(dir, kind);
      const server = await startServerProcess(await freePort(), {
        REPOSITE_DATA_DIR: dataDir,
        REPOSITE_HOSTING: "off",
        FAULT: kind,
        NODE_OPTIONS: `--import=${fault} ${nodeOptions}`.trim(),
      });
      server.child.kill("SIGUSR2");
      const code = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 5_000))]);
      if (code === "still running") await server.kill();
      expect(code, server.output().stderr).toBe(1);
      const { stderr } = server.output();
      expect(stderr).toContain(`[reposite] unexpected error (${origin}); exiting so that a supervisor starts the server again:`);
      expect(stderr).toContain(`Error: ${message}`);
      expect(stderr).toMatch(new RegExp(`at (\\w+\\.)?${frame} \\(`));
    }, 30_000);
  }
});
