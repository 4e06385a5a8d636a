import { describe, expect, it } from "vitest";
import { failedStep } from "../../src/hosting/diagnosis/build-step.js";
import { diagnoseBuildFailure } from "../../src/hosting/diagnosis/build-failure.js";
import { dockerfileSteps, finalBaseImage, hasStartCommand } from "../../src/hosting/diagnosis/dockerfile-steps.js";

const DOCKERFILE = [
  "# syntax=docker/dockerfile:1", // a parser directive
  "ARG NODE=22",
  "FROM node:${NODE} AS build",
  "",
  "# install first",
  "WORKDIR /app",
  "RUN apt-get update && \\",
  "    # a comment inside the instruction",
  "",
  "    apt-get install -y curl",
  "COPY . .",
  "  run npm test",
  "FROM build",
  "CMD [\"node\", \"server.js\"]",
].join("\n");

describe("dockerfileSteps", () => {
  it("numbers instructions as the builder counts its steps, each with the line it starts on", () => {
    const steps = dockerfileSteps(DOCKERFILE);
    expect(steps.map((step) => [step.keyword, step.line])).toEqual([
      ["ARG", 2],
      ["FROM", 3],
      ["WORKDIR", 6],
      ["RUN", 7],
      ["COPY", 11],
      ["RUN", 12],
      ["FROM", 13],
      ["CMD", 14],
    ]);
    expect(steps[3]!.text).toBe("RUN apt-get update && apt-get install -y curl");
  });

  it("follows an escape directive", () => {
    const steps = dockerfileSteps("# escape=`\nFROM windows\nRUN dir `\n  c:\\\nCMD x\n");
    expect(steps.map((step) => [step.keyword, step.line])).toEqual([
      ["FROM", 2],
      ["RUN", 3],
      ["CMD", 5],
    ]);
  });

  it("tells whether the last stage starts something, through stages built from earlier ones", () => {
    expect(hasStartCommand(dockerfileSteps(DOCKERFILE))).toBe(true);
    expect(hasStartCommand(dockerfileSteps("FROM node:22 AS base\nCMD [\"node\", \"a.js\"]\nFROM base\nRUN true\n"))).toBe(true);
    expect(hasStartCommand(dockerfileSteps("FROM node:22 AS base\nCMD [\"node\"]\nFROM node:22\nCOPY --from=base /a /a\n"))).toBe(false);
    expect(hasStartCommand(dockerfileSteps("FROM busybox\nRUN echo hi\n"))).toBe(false);
    expect(hasStartCommand(dockerfileSteps("FROM busybox\nentrypoint [\"httpd\"]\n"))).toBe(true);
    expect(finalBaseImage(dockerfileSteps("FROM --platform=linux/amd64 node:22 AS x\n"))).toBe("node:22");
  });
});

/** The classic builder's log of a build of DOCKERFILE that failed at `run npm test`. */
const LOG = [
  "Step 1/9 : ARG NODE=22",
  "Step 2/9 : FROM node:${NODE} AS build",
  " ---> 33027e98ceb5",
  "Step 5/9 : COPY . .",
  " ---> 1b2c3d4e5f60",
  "Step 6/9 : run npm test",
  " ---> Running in 75147a670a10",
  "> test",
  "Error: expected 2, got 3",
  "Removing intermediate container 75147a670a10",
];

describe("failedStep", () => {
  it("finds the last step the log started, its Dockerfile line and its output without the builder's lines", () => {
    expect(failedStep(LOG, DOCKERFILE)).toEqual({
      number: 6,
      of: 9,
      text: "run npm test",
      instruction: { keyword: "RUN", text: "run npm test", line: 12 },
      output: ["> test", "Error: expected 2, got 3"],
    });
  });

  it("has no line for a step the Dockerfile does not have (the labels step), or without a Dockerfile", () => {
    expect(failedStep(["Step 9/9 : LABEL a=b"], DOCKERFILE)?.instruction).toBeNull();
    expect(failedStep(LOG, null)?.instruction).toBeNull();
    expect(failedStep(["Sending build context"], DOCKERFILE)).toBeNull();
  });
});

describe("diagnoseBuildFailure", () => {
  const base = { log: LOG, dockerfile: { path: "Dockerfile", text: DOCKERFILE, origin: "repository" as const }, buildMemoryMb: 2048, buildTimeoutMs: 15 * 60_000, appMemoryMb: 512 };

  it("names the failed step's line and quotes its last output", () => {
    const diagnosis = diagnoseBuildFailure({ ...base, reason: "failed", exitCode: 1, message: "The command '/bin/sh -c npm test' returned a non-zero code: 1" });
    expect(diagnosis).toMatchObject({
      kind: "build_step_failed",
      title: "The build failed at step 6 of 9 (line 12 of the Dockerfile)",
      evidence: { dockerfile_line: 12, step: "run npm test", exit_code: 1 },
    });
    expect(diagnosis.detail).toContain("line 12 of the repository's Dockerfile: run npm test) ended with exit code 1");
    expect(diagnosis.detail).toContain("    Error: expected 2, got 3");
    expect(diagnosis.fix).toContain("line 12");
  });

  it("quotes the builder's message when the step printed nothing (a COPY of a missing file)", () => {
    const diagnosis = diagnoseBuildFailure({ ...base, log: ["Step 5/9 : COPY . ."], reason: "failed", message: "COPY failed: file not found in build context" });
    expect(diagnosis.kind).toBe("build_step_failed");
    expect(diagnosis.detail).toContain("The builder said: COPY failed: file not found");
    expect(diagnosis.fix).toContain("must exist in the repository");
  });

  it("asks for the memory size above the build's limit when the build ran out of memory", () => {
    const diagnosis = diagnoseBuildFailure({ ...base, reason: "out_of_memory", exitCode: 137, message: "killed" });
    expect(diagnosis).toMatchObject({ kind: "build_out_of_memory", limit: { kind: "memory", needed: 4096 }, evidence: { dockerfile_line: 12, peak_memory_mb: 2048 } });
    expect(diagnoseBuildFailure({ ...base, buildMemoryMb: 128, reason: "out_of_memory", message: "killed" }).limit).toEqual({ kind: "memory", needed: 1024 });
  });

  it("says which step ran at the time limit", () => {
    const diagnosis = diagnoseBuildFailure({ ...base, reason: "timeout", message: "took too long" });
    expect(diagnosis.kind).toBe("build_timeout");
    expect(diagnosis.detail).toContain("after 15 minutes");
    expect(diagnosis.detail).toContain("line 12");
  });

  it("is a source problem when the builder refused the Dockerfile before any step", () => {
    const diagnosis = diagnoseBuildFailure({ ...base, log: [], reason: "failed", message: "dockerfile parse error on line 4: unknown instruction: RUNN" });
    expect(diagnosis).toMatchObject({ kind: "source_problem", evidence: { dockerfile_line: 4 } });
    expect(diagnosis.fix).toContain("line 4");
  });
});
