import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The built binary, run as people and agents run it (npm test builds it first). */
export const BIN = join(import.meta.dirname, "../bin/reposite.mjs");

export function assertBuilt(): void {
  for (const file of [join(import.meta.dirname, "../dist/index.js"), join(import.meta.dirname, "../../sdk/dist/index.js")]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (npm test does it first).`);
  }
}

export interface CliRun {
  child: ChildProcess;
  /** Resolves with the exit code once the process has ended. */
  exit: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** Resolves once stdout matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/**
 * Runs `reposite <args>` in its own process. `env` is all the environment it gets besides PATH and
 * HOME-like basics: no REPOSITE_* leaks in from the test's own environment.
 */
export function runCli(args: string[], env: Record<string, string>, options: { bin?: string; stdin?: string; command?: string[] } = {}): CliRun {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("REPOSITE_") && key !== "XDG_CONFIG_HOME"));
  // `command` runs something else that runs the binary (`script`, for a terminal).
  const [program, ...words] = options.command ?? [process.execPath, options.bin ?? BIN, ...args];
  const child = spawn(program!, words, {
    env: { ...base, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    exit,
    output: () => ({ stdout, stderr }),
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const timer = setInterval(() => {
          const match = pattern.exec(stdout);
          if (match) {
            clearInterval(timer);
            resolve(match);
          } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(timer);
            reject(new Error(`${pattern} never showed on stdout:\n${stdout}\n${stderr}`));
          }
        }, 25);
      }),
  };
}

/** Runs a command to its end: exit code, stdout, stderr. */
export async function cli(args: string[], env: Record<string, string>, options: { bin?: string; stdin?: string } = {}) {
  const run = runCli(args, env, { stdin: "", ...options });
  const code = await run.exit;
  return { code, ...run.output() };
}
