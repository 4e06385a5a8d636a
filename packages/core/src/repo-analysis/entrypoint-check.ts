import type { DockerStage } from "./dockerfile-parser.js";

/**
 * Whether the final stage's `ENTRYPOINT` waits for a command that never comes. Setting `ENTRYPOINT`
 * drops the `CMD` of the base image, so with no `CMD` after it the entrypoint runs with no arguments.
 * That is fine for a program that is the server itself (`ENTRYPOINT ["node", "server.js"]`), but an
 * init (`tini --`, `dumb-init`) or a wrapper script that ends in `exec "$@"` then starts nothing and the
 * container exits. A script the repository copies in is read; one that is not found counts as a
 * wrapper when its name says so (`docker-entrypoint.sh`, `entrypoint.sh`).
 */
export function entrypointWithoutCommand(stage: DockerStage, readInImage: (path: string) => string | null): string | null {
  const entrypoint = stage.entrypoint;
  if (entrypoint === null || stage.cmd !== null) return null;
  const argv = entrypoint.form === "exec" ? entrypoint.args : entrypoint.command.trim().split(/\s+/);
  if (argv.length === 0 || argv[0] === "") return null;
  const program = argv[0]!;
  const rest = argv.slice(1).filter((arg) => arg !== "--" && !arg.startsWith("-"));
  if (INITS.test(program)) return rest.length === 0 ? program : null;
  if (/^(sh|bash|\/bin\/sh|\/bin\/bash)$/.test(program)) {
    // `sh /entrypoint.sh` or `sh -c "…"`: judge the script it runs.
    const script = argv.slice(1).find((arg) => !arg.startsWith("-"));
    return script && needsArguments(script, readInImage, stage.workdir) ? script : null;
  }
  return rest.length === 0 && needsArguments(program, readInImage, stage.workdir) ? program : null;
}

const INITS = /(^|\/)(tini|tini-static|dumb-init|catatonit|gosu|su-exec)$/;

function needsArguments(program: string, readInImage: (path: string) => string | null, workdir: string): boolean {
  const path = program.startsWith("/") ? program : `${workdir.replace(/\/$/, "")}/${program.replace(/^\.\//, "")}`;
  const script = readInImage(path);
  if (script !== null) return /"\$@"|\$@|\$\*/.test(script.replace(/^\s*#.*$/gm, ""));
  return /(^|\/)(docker-)?entrypoint(\.sh)?$/i.test(program);
}
