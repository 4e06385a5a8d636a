import { describe, expect, it } from "vitest";
import { BUILD_ENV_FILE, withBuildEnv } from "../../src/hosting/build-env-file.js";
import { detectAutoBuild } from "../../src/repo-analysis/auto/detect.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

const written = (files: Record<string, string>) => {
  const plan = detectAutoBuild(sourceTreeFromFiles(files));
  if (!plan.auto.found) throw new Error(plan.auto.reason);
  return plan.auto.dockerfile;
};
const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: "app", scripts, ...extra });
const READ = `if [ -f ${BUILD_ENV_FILE} ]; then . ./${BUILD_ENV_FILE}`;

describe("an auto build's env as a context file", () => {
  it("is read by the build step, which deletes it before its command; the runtime stage never sees it", () => {
    const { dockerfile, files } = withBuildEnv(written({ "package.json": pkg({ build: "node build.js", start: "node server.js" }), "build.js": "", "server.js": "" }), {
      B: "it's",
      A: "x\ny",
    });
    expect(files).toEqual({ [BUILD_ENV_FILE]: "export A='x\ny'\nexport B='it'\\''s'\n" });
    expect(dockerfile).toContain(`COPY . .\nRUN ${READ} && rm -f ${BUILD_ENV_FILE}; fi && (npm run build)\n`);
    expect(dockerfile).not.toMatch(/^ARG /m);
    expect(dockerfile.split(/^FROM /m).at(-1)).toContain("COPY --from=build /app ./");
  });

  it("is read by every step after the source is copied in, the last one deleting it; earlier steps stay as they were", () => {
    const source = written({
      "package.json": pkg({ build: "node build.js", start: "node server.js" }, { dependencies: { left: "1.0.0" } }),
      "package-lock.json": "{}",
      "build.js": "",
      "server.js": "",
    });
    const { dockerfile } = withBuildEnv(source, { A: "1" });
    const runs = dockerfile.split("\n").filter((line) => line.startsWith("RUN "));
    expect(runs[0]).toBe("RUN npm ci");
    expect(runs.slice(1, -1).every((line) => line.startsWith(`RUN ${READ}; fi && (`))).toBe(true);
    expect(runs.at(-1)).toMatch(new RegExp(`^RUN ${READ.replace(/[.[\]]/g, "\\$&")} && rm -f \\.reposite/build-env; fi && \\(`));
  });

  it("deletes the file in a build stage whose steps do not read it, and is left out when no step reads it", () => {
    const staged = "FROM a AS build\nWORKDIR /app\nCOPY . .\n\nFROM a AS other\nCOPY . .\nRUN make\n\nFROM b\nCOPY --from=build /app ./\n";
    expect(withBuildEnv(staged, { A: "1" }).dockerfile).toBe(
      `FROM a AS build\nWORKDIR /app\nCOPY . .\nRUN rm -f ${BUILD_ENV_FILE}\n\nFROM a AS other\nCOPY . .\nRUN ${READ} && rm -f ${BUILD_ENV_FILE}; fi && (make)\n\nFROM b\nCOPY --from=build /app ./\n`,
    );
    // One stage that copies the repository as it is: the file would be in the app's image.
    const single = written({ "package.json": pkg({ start: "node server.js" }), "server.js": "" });
    expect(withBuildEnv(single, { A: "1" })).toEqual({ dockerfile: single, files: {} });
    const copiesAll = "FROM a AS build\nCOPY . .\nRUN make\n\nFROM b\nCOPY . ./\n";
    expect(withBuildEnv(copiesAll, { A: "1" })).toEqual({ dockerfile: copiesAll, files: {} });
    expect(withBuildEnv(staged, {})).toEqual({ dockerfile: staged, files: {} });
  });
});
