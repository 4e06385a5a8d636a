import { execFileSync } from "node:child_process";

/** A git identity and no system config, so commits made by tests look the same on every machine. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.com",
};

/** Runs `git <args>` in `cwd` (never signing) and answers its trimmed output. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", ...args], { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
