/**
 * How an `auto` build's steps get the app's env without the values reaching any image's history or
 * config. Build arguments would (the classic builder records `|1 NAME=value` with each `RUN`), so
 * the values travel as a file of the build context, `.reposite/build-env`: the `RUN` steps after
 * the source is copied in read it, and the stage's last step deletes it before its command runs, so
 * the stage's result (which the runtime stage copies from) no longer holds it. The runtime stage
 * copies only from build stages, so the file never reaches the app's image. BuildKit makes no
 * image of a build stage: the layers that still hold the file are cache records of the builder,
 * pruned when the app is removed (provider-docker's build-cache.ts). A BuildKit secret mount would
 * keep the file out of every layer, but needs a client session the Engine API build does not open.
 */
export const BUILD_ENV_FILE = ".reposite/build-env";

/** The written Dockerfile with its build stages reading the env file, and the file; unchanged when no step can read it. */
export function withBuildEnv(dockerfile: string, env: Record<string, string>): { dockerfile: string; files: Record<string, string> } {
  const names = Object.keys(env).sort();
  const stages = splitStages(dockerfile);
  const last = stages.length - 1;
  // A final stage that copies the whole context would carry the file into the app's image.
  if (names.length === 0 || last < 1 || stages[last]!.some(copiesWholeContext)) return { dockerfile, files: {} };
  let reads = false;
  const rewritten = stages.map((lines, index) => {
    const copied = lines.findIndex(copiesWholeContext);
    if (index === last || copied === -1) return lines;
    const runs = lines.map((line, at) => (at > copied && line.startsWith("RUN ") ? at : -1)).filter((at) => at !== -1);
    const lastRun = runs.at(-1);
    if (lastRun === undefined) {
      // No step reads it here, but the stage's files may be copied on: the file goes before they are.
      const end = lines.length - [...lines].reverse().findIndex((line) => line.trim() !== "");
      return [...lines.slice(0, end), `RUN rm -f ${BUILD_ENV_FILE}`, ...lines.slice(end)];
    }
    reads = true;
    return lines.map((line, at) => (runs.includes(at) ? readingEnv(line.slice(4), at === lastRun) : line));
  });
  if (!reads) return { dockerfile, files: {} };
  const file = names.map((name) => `export ${name}=${shellQuote(env[name]!)}\n`).join("");
  return { dockerfile: rewritten.flat().join("\n"), files: { [BUILD_ENV_FILE]: file } };
}

/**
 * `RUN` reading the file when it is there (a fixed Dockerfile is built without Reposite's files),
 * and deleting it in the stage's last step, before the command.
 */
function readingEnv(command: string, deletes: boolean): string {
  const read = `. ./${BUILD_ENV_FILE}${deletes ? ` && rm -f ${BUILD_ENV_FILE}` : ""}`;
  return `RUN if [ -f ${BUILD_ENV_FILE} ]; then ${read}; fi && (${command})`;
}

/** The Dockerfile's lines per stage (comments before the first `FROM` go with it). */
function splitStages(dockerfile: string): string[][] {
  const stages: string[][] = [[]];
  let hasFrom = false;
  for (const line of dockerfile.split("\n")) {
    if (line.startsWith("FROM ")) {
      if (hasFrom) stages.push([]);
      hasFrom = true;
    }
    stages.at(-1)!.push(line);
  }
  return stages;
}

/** `COPY . .`, `COPY . ./`: the writer's form of copying the whole context. */
const copiesWholeContext = (line: string) => /^COPY (?:--chown=\S+ )?\.\/? \S+$/.test(line);

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}
