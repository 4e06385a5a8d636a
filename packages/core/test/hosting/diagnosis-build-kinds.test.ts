import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BuildLogKeeper } from "../../src/hosting/diagnosis/build-log-keeper.js";
import { diagnoseBuildFailure, type BuildFailureFacts } from "../../src/hosting/diagnosis/build-failure.js";
import { failedStep } from "../../src/hosting/diagnosis/build-step.js";
import { stageStepLine } from "../../src/hosting/diagnosis/dockerfile-steps.js";
import { DEFAULT_SETUP } from "../../src/hosting/deployment-setup.js";
import { fixPrompt } from "../../src/hosting/fix/fix-prompt.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/unreachable-registries/${name}.txt`, import.meta.url), "utf8").trimEnd().split("\n");

/** A two-stage Dockerfile in BuildKit's terms: `build` has FROM 1, WORKDIR 2, COPY 3, RUN 4; stage-1 has FROM 1, COPY 2. */
const DOCKERFILE = ["FROM node:22 AS build", "ENV CI=1", "WORKDIR /app", "COPY package.json ./", "RUN npm ci", "FROM node:22", "COPY --from=build /app /app", 'CMD ["node", "/app/server.js"]', ""].join("\n");

describe("BuildKit's log, read without the builder's help", () => {
  it("counts a stage's steps as BuildKit does (FROM, then RUN, COPY, ADD, WORKDIR)", () => {
    expect(stageStepLine(DOCKERFILE, "build", 4)).toBe(5);
    expect(stageStepLine(DOCKERFILE, "stage-1", 2)).toBe(7);
    expect(stageStepLine("FROM a\nENV X=1\nRUN true\n", null, 2)).toBe(3);
    expect(stageStepLine(DOCKERFILE, null, 2)).toBeNull();
  });

  it("finds the step with the ERROR line, not the last one started, and only its own output", () => {
    const log = [
      "#5 [build 4/4] RUN npm ci",
      "#6 [stage-1 2/2] COPY --from=build /app /app",
      "#5 npm error code E404",
      "#5 ERROR: executor failed running [/bin/sh -c npm ci]: exit code: 1",
      "#6 ERROR: context canceled",
    ];
    expect(failedStep(log, DOCKERFILE)).toEqual({
      number: 4,
      of: 4,
      stage: "build",
      text: "RUN npm ci",
      instruction: { keyword: "RUN", text: "RUN npm ci", line: 5 },
      output: ["npm error code E404"],
    });
  });

  it("takes a tool's own `[1/4] …` lines (Yarn) for output, not for steps", () => {
    const log = ["#5 [build 4/4] RUN yarn install", "#5 [1/4] Resolving packages...", "#5 [2/4] Fetching packages...", "#5 error Error: self-signed certificate in certificate chain", "#5 ERROR: executor failed running [/bin/sh -c yarn install]: exit code: 1"];
    expect(failedStep(log, DOCKERFILE)).toMatchObject({ number: 4, stage: "build", text: "RUN yarn install", output: ["[1/4] Resolving packages...", "[2/4] Fetching packages...", "error Error: self-signed certificate in certificate chain"] });
  });

  it("keeps every step's start apart from the tail, so a step that printed 5,000 lines is still found", () => {
    const keeper = new BuildLogKeeper({ tailLines: 400, markerLines: 1_000, stepLines: 200 });
    const plain: string[] = [];
    const add = (line: string) => {
      keeper.push(line);
      plain.push(line);
    };
    add("Step 1/3 : FROM node:22");
    add("Step 2/3 : RUN ./generate.sh");
    for (let i = 0; i < 5_000; i++) add(`page ${i}`);
    add("Error: page 4999 has no title");
    // The last 400 lines alone (what a run kept before) start no step.
    expect(failedStep(plain.slice(-400), "FROM node:22\nRUN ./generate.sh\nCMD x\n")).toBeNull();
    const step = failedStep(keeper.lines(), "FROM node:22\nRUN ./generate.sh\nCMD x\n");
    expect(step).toMatchObject({ number: 2, of: 3, instruction: { line: 2 } });
    expect(step!.output.at(-1)).toBe("Error: page 4999 has no title");
    expect(keeper.lines().length).toBeLessThan(410);
  });
});

describe("diagnoses of failed builds", () => {
  const facts = (overrides: Partial<BuildFailureFacts>): BuildFailureFacts => ({
    reason: "failed",
    exitCode: 1,
    message: "executor failed running [/bin/sh -c npm ci]: exit code: 1",
    log: [],
    dockerfile: { path: "Dockerfile", text: DOCKERFILE, origin: "repository" },
    buildMemoryMb: 2048,
    buildTimeoutMs: 15 * 60_000,
    appMemoryMb: 512,
    ...overrides,
  });
  const npmStep = (output: string[]) => ["#5 [build 4/4] RUN npm ci", ...output.map((line) => `#5 ${line}`), "#5 ERROR: executor failed running [/bin/sh -c npm ci]: exit code: 1"];

  it("npm out of reach: registry_unreachable naming the host and TLS, with a mirror the Dockerfile can set", () => {
    const diagnosis = diagnoseBuildFailure(facts({ log: npmStep(fixture("npm-tls")) }));
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach registry.npmjs.org (TLS)",
      evidence: { dockerfile_line: 5, step: "RUN npm ci", exit_code: 1, registry: "registry.npmjs.org", network_error: "tls" },
    });
    expect(diagnosis.detail).toContain("downloads from the npm registry (registry.npmjs.org)");
    expect(diagnosis.detail).toContain("Nothing is wrong with the repository");
    expect(diagnosis.fix).toContain("ENV NPM_CONFIG_REGISTRY=https://…");
    expect(diagnosis.fix).not.toMatch(/missing or misspelled/);
  });

  it("pip out of reach, whose last words are `No matching distribution`: still the registry, not a missing package", () => {
    const diagnosis = diagnoseBuildFailure(
      facts({ dockerfile: { path: "Dockerfile", text: "FROM python:3.12\nRUN pip install flask\n", origin: "auto" }, log: ["#5 [2/2] RUN pip install flask", ...fixture("pip-dns").map((line) => `#5 ${line}`)] }),
    );
    expect(diagnosis).toMatchObject({ kind: "registry_unreachable", title: "The build could not reach pypi.org (DNS)", evidence: { network_error: "dns" } });
    // An automatic build's owner acts on the repository's files, not on a Dockerfile they never see.
    expect(diagnosis.fix).toContain("requirements.txt");
    expect(diagnosis.fix).not.toContain("ENV ");
  });

  it("a base image that could not be pulled: the image, its FROM line, and how the operator provides it", () => {
    const [message] = fixture("image-buildkit").slice(-1);
    const diagnosis = diagnoseBuildFailure(
      facts({
        message: message!,
        log: fixture("image-buildkit").slice(0, -1),
        dockerfile: { path: "Dockerfile", text: "FROM node:22-r22d-absent AS build\nRUN true\n", origin: "auto" },
        baseImages: { node: "node:22-r22d-absent" },
      }),
    );
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach registry-1.docker.io (DNS)",
      evidence: { dockerfile_line: 1, image: "node:22-r22d-absent", registry: "registry-1.docker.io", network_error: "dns" },
    });
    expect(diagnosis.detail).toContain("The base image node:22-r22d-absent is not on this server, and pulling it from Docker Hub (registry-1.docker.io) failed");
    expect(diagnosis.fix).toContain("docker load -i image.tar");
    expect(diagnosis.fix).toContain("REPOSITE_BASE_IMAGE_NODE");
    expect(diagnosis.fix).toContain("reposite admin images");
  });

  it("a base image its registry does not know is blamed on the name (the registry answered)", () => {
    const diagnosis = diagnoseBuildFailure(
      facts({ message: "failed to solve with frontend dockerfile.v0: failed to create LLB definition: pull access denied for nosuchimage, repository does not exist or may require 'docker login'" }),
    );
    expect(diagnosis).toMatchObject({ kind: "build_step_failed", title: "The base image nosuchimage could not be found", evidence: { image: "nosuchimage" } });
    expect(diagnosis.fix).toContain("Check the image's name and tag");
  });

  it("an automatic build's failed install names the repository's lockfile, not a line of a Dockerfile its owner never saw", () => {
    const diagnosis = diagnoseBuildFailure(facts({ dockerfile: { path: ".reposite/Dockerfile", text: DOCKERFILE, origin: "auto" }, log: npmStep(["npm error code EUSAGE", "npm error `npm ci` can only install packages when your package.json and package-lock.json are in sync."]) }));
    expect(diagnosis.kind).toBe("build_step_failed");
    expect(diagnosis.fix).toContain("Installing the repository's dependencies (`npm ci`) failed");
    expect(diagnosis.fix).toContain("commit the updated lockfile");
    expect(diagnosis.fix).not.toMatch(/line \d+ of/);
  });

  it("an automatic build's COPY names root_dir and the repository's files", () => {
    const diagnosis = diagnoseBuildFailure(
      facts({ dockerfile: { path: ".reposite/Dockerfile", text: DOCKERFILE, origin: "auto" }, log: ["#4 [build 3/4] COPY package.json ./"], message: 'failed to compute cache key: "/package.json" not found: not found' }),
    );
    expect(diagnosis.fix).toContain("root_dir");
    expect(diagnosis.fix).not.toMatch(/line \d+ of/);
  });

  it("the fix's model is told the registry is out of reach, so it does without the download instead of fetching elsewhere", () => {
    const diagnosis = diagnoseBuildFailure(facts({ log: npmStep(fixture("npm-tls")) }));
    const prompt = fixPrompt({
      attempt: 1,
      attempts: 3,
      setup: { ...DEFAULT_SETUP, build_mode: "dockerfile" },
      dockerfile: DOCKERFILE,
      origin: "the repository's Dockerfile",
      diagnosis,
      reason: "The build failed (exit code 1)",
      logTail: [],
      envNames: [],
      files: ["Dockerfile", "package.json"],
      packageJson: null,
      earlier: [],
    });
    expect(prompt).toContain("kind: registry_unreachable");
    expect(prompt).toContain("registry out of reach: registry.npmjs.org (tls)");
    expect(prompt).toContain("never add a download from another address");
  });
});
