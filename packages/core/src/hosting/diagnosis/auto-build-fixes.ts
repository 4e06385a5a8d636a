import type { FailedStep } from "./build-step.js";

/**
 * What to do about a failed step of the Dockerfile Reposite wrote (`build_mode: auto`). Its owner
 * never sees that file, so the fix names what they can change: the repository's own files, the
 * app's env and setup (`root_dir`), or, for what the server provides (base images), its operator.
 */
export function autoStepFix(step: FailedStep, message: string): string {
  const text = step.instruction?.text ?? step.text;
  const keyword = (text.split(/\s+/)[0] ?? "").toUpperCase();
  const command = text.replace(/^RUN\s+/i, "").replace(/^if \[ -f \S+ \]; then .*?; fi && \((.*)\)$/s, "$1");
  if (keyword === "FROM") {
    return (
      `The base image of an automatic build comes from the server's settings (REPOSITE_BASE_IMAGE_*), not from the repository, and this server could not use it (${message}). ` +
      "Its operator has to put it on the Docker Engine (`reposite admin images` lists which images automatic builds need and whether each is there). Nothing in the repository needs to change."
    );
  }
  if (keyword === "COPY" || keyword === "ADD") {
    return (
      `The files the build copies (\`${text}\`) must be committed in the repository, at its top or in the folder the setup's root_dir names, and not left out by .dockerignore. ` +
      "If the app lives in a folder of the repository, set root_dir to that folder (PUT …/deployment). GET …/repo-check shows what an automatic build reads. Then deploy again."
    );
  }
  if (INSTALL.test(command)) {
    return (
      `Installing the repository's dependencies (\`${command}\`) failed; its output above says why. Often the lockfile no longer matches the manifest ` +
      "(install locally and commit the updated lockfile), a dependency's name or version does not exist, or it needs a private registry. Fix that in the repository, then deploy again."
    );
  }
  if (BUILD.test(command)) {
    return (
      `The repository's build (\`${command}\`) failed; its output above says why. Run the same command in a fresh clone and fix what it reports. ` +
      "Settings the build needs are read from the app's env (PUT …/deployment/env): they reach the steps that run after the source is copied in. Then deploy again."
    );
  }
  return (
    `The command \`${command}\` that the automatic build runs for this repository failed; its output above says why. Fix its cause in the repository, or set what it needs in the app's env (PUT …/deployment/env), then deploy again. ` +
    "If the app needs a build Reposite does not write, add a Dockerfile to the repository and set build_mode to dockerfile."
  );
}

/** Package installs, as automatic builds write them. */
const INSTALL = /\b(npm (ci|install)|pnpm install|yarn( install)?$|yarn install|bun install|pip install|uv sync|poetry install|pipenv (install|requirements)|go mod download|cargo fetch)\b/;

/** The repository's own build, as automatic builds write it. */
const BUILD = /\b(run build|go build|cargo build|collectstatic|deno task build|next build|vite build)\b/;

/** The written Dockerfile was refused before any step: a fault of Reposite's writer, not of the repository. */
export const AUTO_REFUSED_FIX =
  "The builder refused the Dockerfile Reposite wrote, which is a fault of Reposite, not of the repository: tell the server's operator. " +
  "Meanwhile you can add a Dockerfile to the repository and set build_mode to dockerfile.";
