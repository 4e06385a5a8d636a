import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cli } from "./run-cli.js";

// Help, version and wrong command lines: none of them needs a server or a login.
let configHome: string;
let env: Record<string, string>;
beforeAll(async () => {
  assertBuilt();
  configHome = await mkdtemp(join(tmpdir(), "reposite-cli-help-"));
  env = { XDG_CONFIG_HOME: configHome };
});
afterAll(() => rm(configHome, { recursive: true, force: true }));

const COMMANDS = [
  ["login"], ["logout"], ["whoami"], ["sites", "create"], ["sites", "list"], ["sites", "get"], ["generate"], ["publish"],
  ["deploy"], ["logs"], ["status"], ["env", "set"], ["env", "unset"], ["env", "list"], ["domain", "set"], ["domain", "verify"],
  ["domain", "get"], ["domain", "remove"], ["open"],
];

describe("reposite --help", () => {
  it("lists every command and documents the exit codes", async () => {
    for (const args of [[], ["--help"], ["-h"], ["help"]]) {
      const result = await cli(args, env);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("USAGE reposite login|logout|whoami|sites|generate|publish|deploy|logs|status|env|domain|open|serve|admin");
      expect(result.stdout).toMatch(/EXIT CODES\n\n  0  done\n  1  failed.*\n  2  wrong command line.*\n  3  not logged in.*\n  4  not found.*\n  5  payment required.*\n  6  the server could not be reached/);
      expect(result.stdout).not.toMatch(/\x1b\[/);
      expect(result.stderr).toBe("");
    }
  });

  it.each(COMMANDS)("%s … --help prints the command's usage with --json and --server, and exits 0", async (...words) => {
    const result = await cli([...words, "--help"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`USAGE reposite ${words.join(" ")}`);
    expect(result.stdout).toContain("--json");
    expect(result.stdout).toContain("--server=<url>");
  });

  it("--version prints the package's version", async () => {
    expect((await cli(["--version"], env)).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe("wrong command lines exit 2", () => {
  it.each([
    [["frobnicate"], "Unknown command: frobnicate"],
    [["sites", "frobnicate"], "Unknown command: sites frobnicate"],
    [["sites"], "No command specified"],
    [["sites", "get"], "Missing required positional argument: SITE"],
    [["sites", "list", "extra"], "Unexpected argument: extra"],
    [["sites", "list", "--colour"], "Unknown option: --colour"],
    [["generate", "x", "--mode", "blog"], "Invalid value for argument: --mode (blog)"],
    [["generate", "x", "--pages", "faq,blog"], "--pages takes about, faq, auth"],
    [["deploy", "x", "--port", "http"], "--port takes a whole number from 1 to 65535"],
    [["logs", "x", "--tail", "-3"], "--tail takes a whole number"],
    [["env", "set", "x", "=v"], "Expected KEY=VALUE"],
    [["env", "unset", "x", "A=1"], "env unset takes names only"],
    [["--json", "sites", "list"], "Options go after the command"],
    [["sites", "list", "--server", "ftp://example.com"], "must be an http(s) URL"],
  ])("%j", async (args, message) => {
    const result = await cli(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe("");
  });

  it("with --json the error is JSON on stderr: {error, code: usage, status: null}", async () => {
    const result = await cli(["sites", "get", "--json"], env);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({ error: "Missing required positional argument: SITE", code: "usage", status: null });
  });

  it("without --server, REPOSITE_URL or a login, a command goes to http://localhost:3000 (as the MCP server does)", async () => {
    const result = await cli(["sites", "list"], env);
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain("Which server?");
    expect(result.stderr).toContain("Not logged in to http://localhost:3000. Run reposite login, or set REPOSITE_TOKEN");
    expect((await cli(["sites", "list", "--help"], env)).stdout).toContain("else http://localhost:3000");
  });

  it("a command that needs a login exits 3 when there is none", async () => {
    const result = await cli(["sites", "list", "--server", "http://127.0.0.1:9", "--json"], env);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stderr)).toMatchObject({ code: "not_logged_in" });
  });
});
