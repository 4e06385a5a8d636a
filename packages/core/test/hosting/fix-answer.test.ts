import { describe, expect, it } from "vitest";
import { dockerfileFromAnswer, MAX_FIXED_DOCKERFILE_CHARS } from "../../src/hosting/fix/dockerfile-answer.js";
import { ruleFix } from "../../src/hosting/fix/rule-fixes.js";
import { DEFAULT_SETUP } from "../../src/index.js";
import type { Diagnosis } from "../../src/index.js";

const DOCKERFILE = 'FROM node:22\nWORKDIR /app\nCOPY . .\nRUN npm ci \\\n  --omit=dev\nCMD ["node", "server.js"]\n';

describe("the Dockerfile in a model's answer", () => {
  it("is the fenced block, prose before and after left out", () => {
    const answer = `Here is the fixed Dockerfile:\n\n\`\`\`dockerfile\n${DOCKERFILE}\`\`\`\n\nI added the CMD line.`;
    expect(dockerfileFromAnswer(answer)).toEqual({ dockerfile: DOCKERFILE });
  });

  it("prefers a block marked dockerfile, else the first block with a FROM line; ~~~ fences and CRLF too", () => {
    const answer = `Run this first:\n\`\`\`bash\nnpm install\n\`\`\`\nthen\n\`\`\`\n${DOCKERFILE}\`\`\``;
    expect(dockerfileFromAnswer(answer)).toEqual({ dockerfile: DOCKERFILE });
    const marked = `\`\`\`\nFROM wrong\n\`\`\`\n\`\`\`Dockerfile\n${DOCKERFILE}\`\`\``;
    expect(dockerfileFromAnswer(marked)).toEqual({ dockerfile: DOCKERFILE });
    expect(dockerfileFromAnswer(`~~~docker\r\n${DOCKERFILE.replace(/\n/g, "\r\n")}~~~\r\n`)).toEqual({ dockerfile: DOCKERFILE });
  });

  it("is read from bare text between its first and last instruction, and from a fence the model never closed", () => {
    expect(dockerfileFromAnswer(`Sure! The problem is the missing CMD.\n\n${DOCKERFILE}\nThis should work now.`)).toEqual({ dockerfile: DOCKERFILE });
    expect(dockerfileFromAnswer(`\`\`\`dockerfile\n${DOCKERFILE}`)).toEqual({ dockerfile: DOCKERFILE });
    const withDirective = `# syntax=docker/dockerfile:1\nARG NODE=22\nFROM node:$NODE\nRUN <<EOF\nnot an instruction\nEOF\nCMD ["node"]\nThat's it.`;
    expect(dockerfileFromAnswer(withDirective)).toEqual({ dockerfile: `${withDirective.replace("\nThat's it.", "")}\n` });
  });

  it("is refused without a FROM line, or when far too long", () => {
    expect(dockerfileFromAnswer("I cannot fix this: the repository has no server.")).toEqual({ refused: expect.stringContaining("no FROM line") });
    expect(dockerfileFromAnswer("```dockerfile\nRUN npm ci\nCMD [\"npm\", \"start\"]\n```")).toEqual({ refused: expect.stringContaining("no FROM line") });
    expect(dockerfileFromAnswer(`FROM node:22\n${"RUN true\n".repeat(MAX_FIXED_DOCKERFILE_CHARS / 9 + 1)}`)).toEqual({ refused: expect.stringContaining("longer than") });
  });
});

const diagnosis = (kind: Diagnosis["kind"], evidence: Diagnosis["evidence"]): Diagnosis => ({ kind, title: "t", detail: "d", fix: "f", evidence });

describe("the fixes that need no model", () => {
  const setup = { ...DEFAULT_SETUP, port: 3000 };

  it("adds the repository's start command as CMD when the image has none", () => {
    const rule = ruleFix(diagnosis("no_start_command", { start_command: ["npm", "start"] }), setup);
    expect(rule?.setup).toBeUndefined();
    expect(rule?.edit?.("FROM node:22\nCOPY . .\n\n")).toBe('FROM node:22\nCOPY . .\nCMD ["npm","start"]\n');
    expect(ruleFix(diagnosis("no_start_command", {}), setup)).toBeNull();
  });

  it("sets port to where the app listens on every address", () => {
    for (const address of ["0.0.0.0", "::"]) {
      const rule = ruleFix(diagnosis("not_listening", { listening: [{ address, port: 8080 }] }), setup);
      expect(rule).toMatchObject({ setup: { port: 8080 } });
      expect(rule?.edit).toBeUndefined();
    }
    expect(ruleFix(diagnosis("health_timeout", { listening: [{ address: "0.0.0.0", port: 5000 }] }), setup)).toMatchObject({ setup: { port: 5000 } });
    // Listening on the setup's port already: the port is not the problem.
    expect(ruleFix(diagnosis("health_timeout", { listening: [{ address: "0.0.0.0", port: 3000 }, { address: "0.0.0.0", port: 9229 }] }), setup)).toBeNull();
  });

  it("sets HOST and HOSTNAME to 0.0.0.0 for an app on 127.0.0.1, and the port when it is another", () => {
    const same = ruleFix(diagnosis("listening_on_localhost", { listening: [{ address: "127.0.0.1", port: 3000 }] }), setup);
    expect(same?.setup).toBeUndefined();
    expect(same?.edit?.("FROM node:22\n")).toBe("FROM node:22\nENV HOST=0.0.0.0 HOSTNAME=0.0.0.0\n");
    // Applied once: a Dockerfile that has it already is not changed again.
    expect(same?.edit?.("FROM node:22\nENV HOST=0.0.0.0 HOSTNAME=0.0.0.0\n")).toBeNull();
    const other = ruleFix(diagnosis("listening_on_localhost", { listening: [{ address: "::1", port: 4000 }] }), setup);
    expect(other).toMatchObject({ setup: { port: 4000 } });
    expect(other?.edit?.("FROM node:22\n")).toContain("ENV HOST=0.0.0.0");
    // An IPv4 address on an IPv6 socket, as /proc/net/tcp6 tells it, is loopback too.
    expect(ruleFix(diagnosis("listening_on_localhost", { listening: [{ address: "::ffff:127.0.0.1", port: 3000 }] }), setup)?.edit?.("FROM node:22\n")).toContain("ENV HOST=0.0.0.0");
  });

  it("knows nothing for other failures, without a diagnosis, or for a bare box", () => {
    expect(ruleFix(diagnosis("build_step_failed", { dockerfile_line: 3, exit_code: 1 }), setup)).toBeNull();
    expect(ruleFix(diagnosis("crash_on_start", { exit_code: 1, listening: [{ address: "0.0.0.0", port: 8080 }] }), setup)).toBeNull();
    expect(ruleFix(null, setup)).toBeNull();
    expect(ruleFix(diagnosis("no_start_command", { start_command: ["npm", "start"] }), { ...setup, build_mode: "bare" })).toBeNull();
  });
});
