import { describe, expect, it } from "vitest";
import { diagnoseRun, maskDiagnosis } from "../../src/hosting/diagnosis/diagnose.js";
import { isLoopback, parseListening } from "../../src/hosting/diagnosis/listening.js";
import { repositoryStartCommand } from "../../src/hosting/diagnosis/start-command.js";
import { diagnoseStartFailure } from "../../src/hosting/diagnosis/start-failure.js";
import type { StartFacts } from "../../src/hosting/diagnosis/start-facts.js";
import { quoted } from "../../src/hosting/diagnosis/wording.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

// As `cat /proc/net/tcp /proc/net/tcp6` prints them: 127.0.0.1:3000, 0.0.0.0:8080, Docker's DNS at
// 127.0.0.11:41234, an established connection, then :::8080, ::1:5000 and ::ffff:127.0.0.1:7000.
const PROC_NET_TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000 100 0 0 10 0
   2: 0B00007F:A0D2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1 0000 100 0 0 10 0
   3: 0100007F:0BB8 0100007F:D1A2 01 00000000:00000000 00:00000000 00000000  1000        0 4 1 0000 20 4 30 10 -1
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5 1 0000 100 0 0 10 0
   1: 00000000000000000000000001000000:1388 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6 1 0000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1B58 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7 1 0000 100 0 0 10 0
`;

describe("parseListening", () => {
  it("reads the listening sockets of /proc/net/tcp and tcp6, leaving out Docker's DNS and connections", () => {
    expect(parseListening(PROC_NET_TCP)).toEqual([
      { address: "127.0.0.1", port: 3000 },
      { address: "0.0.0.0", port: 8080 },
      { address: "::", port: 8080 },
      { address: "::1", port: 5000 },
      { address: "::ffff:127.0.0.1", port: 7000 },
    ]);
  });

  it("is null for output that is not /proc/net/tcp (no cat in the image)", () => {
    expect(parseListening('OCI runtime exec failed: exec: "cat": executable file not found in $PATH')).toBeNull();
    expect(parseListening("")).toBeNull();
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["0.0.0.0", "::", "172.18.0.2"].some(isLoopback)).toBe(false);
  });
});

describe("repositoryStartCommand", () => {
  it("takes a Procfile's web line, else package.json's start script, else its main file", () => {
    expect(repositoryStartCommand(sourceTreeFromFiles({ Procfile: "worker: x\nweb: gunicorn app:app\n", "package.json": '{"scripts":{"start":"node a.js"}}' }))?.command).toEqual([
      "sh",
      "-c",
      "gunicorn app:app",
    ]);
    expect(repositoryStartCommand(sourceTreeFromFiles({ "package.json": '{"scripts":{"start":"node a.js"}}' }))?.command).toEqual(["npm", "start"]);
    expect(repositoryStartCommand(sourceTreeFromFiles({ "package.json": '{"main":"server.js"}' }))?.command).toEqual(["node", "server.js"]);
    expect(repositoryStartCommand(sourceTreeFromFiles({ "package.json": "{not json" }))).toBeNull();
    expect(repositoryStartCommand(null)).toBeNull();
  });
});

const running = { id: "c", running: true, exitCode: null, oomKilled: false, startedAt: null, finishedAt: null, hostPort: 1 };
const exited = (exitCode: number, oomKilled = false) => ({ ...running, running: false, exitCode, oomKilled });

function facts(change: Partial<StartFacts>): StartFacts {
  return {
    outcome: "timed_out",
    state: running,
    afterAnswer: false,
    lastStatus: null,
    lastError: "the connection was refused",
    listening: null,
    output: [],
    port: 3000,
    healthPath: "/health",
    timeoutMs: 3000,
    memoryMb: 512,
    keepAlive: false,
    ...change,
  };
}

const WITH_CMD = { dockerfile: { path: "Dockerfile", text: 'FROM node:22\nCMD ["node", "server.js"]\n', origin: "repository" as const }, tree: null };
const WITHOUT_CMD = {
  dockerfile: { path: "Dockerfile", text: "FROM node:22\nCOPY . /app\n", origin: "repository" as const },
  tree: sourceTreeFromFiles({ "package.json": '{"scripts":{"start":"node server.js"}}' }),
};

describe("diagnoseStartFailure", () => {
  it("an OOM kill (or exit 137) asks for the memory size above the limit", () => {
    for (const state of [exited(137, true), exited(137)]) {
      const diagnosis = diagnoseStartFailure(facts({ outcome: "exited", state }), WITH_CMD);
      expect(diagnosis).toMatchObject({ kind: "out_of_memory", limit: { kind: "memory", needed: 1024 }, evidence: { peak_memory_mb: 512, exit_code: 137 } });
    }
    expect(diagnoseStartFailure(facts({ outcome: "exited", state: exited(137, true), memoryMb: 1024 }), WITH_CMD).limit).toEqual({ kind: "memory", needed: 2048 });
  });

  it("an exit with no CMD in the Dockerfile is no start command, with the repository's own", () => {
    const diagnosis = diagnoseStartFailure(facts({ outcome: "exited", state: exited(0) }), WITHOUT_CMD);
    expect(diagnosis).toMatchObject({ kind: "no_start_command", evidence: { exit_code: 0, start_command: ["npm", "start"] } });
    expect(diagnosis.detail).toContain("base image (node:22)");
    expect(diagnosis.fix).toContain('CMD ["npm","start"]');
  });

  it("an exit with a CMD is a crash, with the exit code and the last output", () => {
    const diagnosis = diagnoseStartFailure(facts({ outcome: "exited", state: exited(2), output: ["starting", "Error: DATABASE_URL is not set"] }), WITH_CMD);
    expect(diagnosis).toMatchObject({ kind: "crash_on_start", evidence: { exit_code: 2 } });
    expect(diagnosis.detail).toContain("exited with code 2");
    expect(diagnosis.detail).toContain("    Error: DATABASE_URL is not set");
  });

  it("a 5xx answer is a health error", () => {
    const diagnosis = diagnoseStartFailure(facts({ lastStatus: 500, lastError: null }), WITH_CMD);
    expect(diagnosis.kind).toBe("health_error");
    expect(diagnosis.title).toContain("500");
  });

  it("a 404 answer is a health error that says only 2xx and 3xx count (not a timeout, though the app listens)", () => {
    const diagnosis = diagnoseStartFailure(facts({ lastStatus: 404, lastError: null, listening: [{ address: "0.0.0.0", port: 3000 }] }), WITH_CMD);
    expect(diagnosis).toMatchObject({ kind: "health_error", title: "The app answers /health with 404" });
    expect(diagnosis.detail).toContain("2xx or 3xx");
  });

  it("never shows the server's own paths (the engine's data root) in a diagnosis", async () => {
    const { diagnoseRun, maskDiagnosis } = await import("../../src/hosting/diagnosis/diagnose.js");
    const reason =
      'error mounting "/var/lib/docker/volumes/reposite-data-x/_data" to rootfs at "/app/server.js": mount /var/lib/docker/volumes/reposite-data-x/_data:/var/lib/docker/overlay2/4f9c1a/merged/app/server.js (via /proc/self/fd/6), flags: 0x5000: not a directory: unknown: Are you trying to mount a directory onto a file (or vice-versa)?';
    const onFile = maskDiagnosis(diagnoseRun({ stage: "start", reason, stopped: null, build: null, start: null, error: new Error(reason), dockerfile: null, tree: null }), (text) => text);
    expect(onFile.title).toBe("The data volume's path is a file in the image");
    const refused = maskDiagnosis(
      diagnoseRun({ stage: "start", reason: `engine refused: ${reason.replace("not a directory", "permission denied").replace("mount a directory onto a file", "x")}`, stopped: null, build: null, start: null, error: new Error("x"), dockerfile: null, tree: null }),
      (text) => text,
    );
    expect(JSON.stringify(refused)).not.toMatch(/\/var\/lib\/docker|overlay2|\/proc\/self/);
    expect(refused.detail).toContain("(a path on the server)");
    expect(refused.detail).toContain("/app/server.js");
  });

  it("tells 127.0.0.1 only, another port, no socket and a slow app apart by the sockets found", () => {
    const localhost = diagnoseStartFailure(facts({ listening: [{ address: "127.0.0.1", port: 3000 }] }), WITH_CMD);
    expect(localhost).toMatchObject({ kind: "listening_on_localhost", evidence: { listening: [{ address: "127.0.0.1", port: 3000 }] } });
    expect(localhost.fix).toContain("0.0.0.0");

    const elsewhere = diagnoseStartFailure(facts({ listening: [{ address: "::", port: 8080 }] }), WITH_CMD);
    expect(elsewhere).toMatchObject({ kind: "not_listening", title: "The app listens on port 8080, not 3000", evidence: { listening: [{ address: "::", port: 8080 }] } });
    expect(elsewhere.fix).toContain('"port": 8080');

    expect(diagnoseStartFailure(facts({ listening: [] }), WITH_CMD)).toMatchObject({ kind: "not_listening", title: "The app does not listen on any port", evidence: { listening: [] } });
    expect(diagnoseStartFailure(facts({ listening: [{ address: "0.0.0.0", port: 3000 }], lastError: "a probe timed out" }), WITH_CMD).kind).toBe("health_timeout");
  });

  it("without a look inside, a refused connection is not listening (saying it could not look) and silence a timeout", () => {
    const refused = diagnoseStartFailure(facts({}), WITH_CMD);
    expect(refused.kind).toBe("not_listening");
    expect(refused.detail).toContain("could not look inside");
    expect(refused.evidence).toBeUndefined();
    expect(diagnoseStartFailure(facts({ lastError: "a probe timed out" }), WITH_CMD).kind).toBe("health_timeout");
  });

  it("a slow start of an automatic build points at the repository's scripts, not at a Dockerfile its owner never saw", () => {
    const auto = { ...WITH_CMD, dockerfile: { ...WITH_CMD.dockerfile!, origin: "auto" as const } };
    const diagnosis = diagnoseStartFailure(facts({ lastError: "a probe timed out" }), auto);
    expect(diagnosis.kind).toBe("health_timeout");
    expect(diagnosis.fix).toContain("the repository's build script");
    expect(diagnosis.fix).not.toContain("Dockerfile");
  });
});

describe("diagnoseRun", () => {
  const base = { stage: "start" as const, reason: "r", stopped: null, build: null, start: null, dockerfile: null, tree: null, error: new Error("x") };

  it("says cancelled and server stopped as other", () => {
    expect(diagnoseRun({ ...base, stopped: "cancelled" })).toMatchObject({ kind: "other", title: "The deploy was cancelled" });
    expect(diagnoseRun({ ...base, stopped: "server_stopped" })).toMatchObject({ kind: "other", title: "The server stopped during the deploy" });
  });

  it("an image Docker refuses to start for no command is no start command", () => {
    const diagnosis = diagnoseRun({ ...WITHOUT_CMD, ...base, dockerfile: WITHOUT_CMD.dockerfile, tree: WITHOUT_CMD.tree, error: new Error("[provider-docker] cannot create x: No command specified") });
    expect(diagnosis).toMatchObject({ kind: "no_start_command", evidence: { start_command: ["npm", "start"] } });
    expect(diagnosis.detail).toContain("Docker had nothing to run");
  });

  it("masks every text", () => {
    const masked = maskDiagnosis({ kind: "other", title: "s3cret", detail: "a s3cret", fix: "s3cret!", evidence: { step: "RUN echo s3cret" } }, (text) => text.replaceAll("s3cret", "***"));
    expect(JSON.stringify(masked)).not.toContain("s3cret");
  });
});

describe("quoted output", () => {
  it("keeps the last lines, a repeated line once with how many times", () => {
    expect(quoted(["a", "", "b", "b", "b", "c"])).toBe("    a\n    b (3 times)\n    c");
    expect(quoted(Array.from({ length: 20 }, (_, i) => `line ${i}`), 2)).toBe("    line 18\n    line 19");
  });
});
