import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { createMemoryContainerRuntime, startFakeGitHub, type FakeGitHub, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BIN, cli, runCli } from "./run-cli.js";
import { personReadsCode } from "./person.js";

// The real binary against a real server (in this process, on a socket), with a loopback GitHub and
// an in-memory container runtime that builds Dockerfiles and serves HTTP for real.
let github: FakeGitHub;
let runtime: MemoryContainerRuntime;
let server: RunningServer;
let dataDir: string;
let configHome: string;
let env: Record<string, string>;
/** Every byte the CLI printed in this file, to check the token never shows. */
const printed: string[] = [];
let token = "";
let siteId = "";
/** The last running container's own output, as the app printing a line. */
let appLog: ((line: string) => void) | undefined;

async function reposite(args: string[], extraEnv: Record<string, string> = {}, stdin = "") {
  const result = await cli(args, { ...env, ...extraEnv }, { stdin });
  printed.push(result.stdout, result.stderr);
  return result;
}
const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;
const jsonLines = (text: string) => text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  assertBuilt();
  github = await startFakeGitHub({
    repos: [
      {
        owner: "acme",
        name: "notebook",
        description: "Notes for data science",
        topics: ["jupyter"],
        readme: "# Notebook\n\nNotes that run.\n\n## Install\n\n```sh\npip install notebook\n```\n",
        files: { Dockerfile: 'FROM node:22\n# reposite-test: run log app started on 3000\nRUN echo installing\nCMD ["node", "server.js"]\n' },
      },
      { owner: "acme", name: "broken", description: "Does not build", topics: [], files: { Dockerfile: "FROM node:22\nRUN exit 3\n" } },
    ],
  });
  runtime = createMemoryContainerRuntime({
    handler: (_request, response, container) => {
      appLog = container.log;
      response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    },
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-journey-"));
  configHome = await mkdtemp(join(tmpdir(), "reposite-cli-config-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
        containerRuntime: runtime,
        hosting: { healthIntervalMs: 20, logFlushMs: 20 },
      },
    },
  });
  env = { XDG_CONFIG_HOME: configHome, REPOSITE_URL: server.url };
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
  await github?.close();
  for (const dir of [dataDir, configHome]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("reposite login", () => {
  it("prints the link, takes the code typed on stdin (a wrong one asks again) and stores the token 0600", async () => {
    const login = runCli(["login", "--name", "ci laptop"], env);
    const [, link] = await login.waitFor(/^\s+(http\S+\/agent\/verify\/\S+)$/m);
    const code = await personReadsCode(server.reposite, server.url, link!, "ada@example.com");
    const wrong = code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    login.child.stdin!.write(`${wrong}\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    login.child.stdin!.write(`${code.toLowerCase().replace("-", "")}\n`);
    expect(await login.exit).toBe(0);
    const { stdout, stderr } = login.output();
    printed.push(stdout, stderr);
    expect(stderr).toContain("That code is not the one shown (4 tries left)");
    expect(stdout).toContain(`Logged in to ${server.url} as ada@example.com; the token is kept in ${join(configHome, "reposite", "config.json")}`);

    const path = join(configHome, "reposite", "config.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, "reposite"))).mode & 0o777).toBe(0o700);
    const stored = json<{ login: { server: string; token: string; user: { email: string } } }>(await readFile(path, "utf8"));
    expect(stored.login).toMatchObject({ server: server.url, user: { email: "ada@example.com" } });
    token = stored.login.token;
    expect(token).toMatch(/^rps_/);
    const me = await server.reposite.tokens.authenticate(token);
    expect(me.token).toMatchObject({ name: "ci laptop", source: "agent" });
  });

  it("login --json prints the request first, then the login (token only with --show-token)", async () => {
    const login = runCli(["login", "--json", "--show-token"], { ...env, XDG_CONFIG_HOME: join(configHome, "other") });
    const [first] = await login.waitFor(/^\{.*\}\n/);
    const request = json<{ verification_url: string; request_id: string; expires_in: number }>(first!);
    expect(request).toMatchObject({ request_id: expect.any(String), expires_in: 900, email_sent: false });
    login.child.stdin!.end(`${await personReadsCode(server.reposite, server.url, request.verification_url, "bob@example.com")}\n`);
    expect(await login.exit).toBe(0);
    const [, answer] = jsonLines(login.output().stdout);
    expect(answer).toMatchObject({ server: server.url, user: { email: "bob@example.com" }, token: expect.stringMatching(/^rps_/) });
    expect(login.output().stderr).toBe("");
  });

  it("login --code for scripts: a wrong code fails at once with the API's code", async () => {
    const anonymous = await reposite(["login", "--code", "BBBB-BBBB", "--json"], { XDG_CONFIG_HOME: join(configHome, "third") });
    // Nobody opened the link: 409 not_opened.
    expect(anonymous.code).toBe(1);
    expect(json(anonymous.stderr)).toEqual({ error: expect.any(String), code: "not_opened", status: 409 });
    expect(anonymous.stdout).toBe("");
  });

  it("whoami answers who the stored token is, REPOSITE_TOKEN wins, and the token is never sent to another server", async () => {
    const human = await reposite(["whoami"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^email\s+ada@example.com$/m);
    const who = json<{ server: string; user: { email: string }; token: { name: string } }>((await reposite(["whoami", "--json"])).stdout);
    expect(who).toMatchObject({ server: server.url, user: { email: "ada@example.com" }, token: { name: "ci laptop" } });

    const { account } = await server.reposite.accounts.findOrCreate("eve@example.com");
    const eveToken = (await server.reposite.tokens.create(account.id, { name: "env", lifetime: "30d" })).secret;
    const asEve = json<{ user: { email: string } }>((await reposite(["whoami", "--json"], { REPOSITE_TOKEN: eveToken })).stdout);
    expect(asEve.user.email).toBe("eve@example.com");

    const elsewhere = await reposite(["whoami", "--json", "--server", "http://127.0.0.1:9"]);
    expect(elsewhere.code).toBe(3);
    expect(json(elsewhere.stderr)).toMatchObject({ code: "not_logged_in" });
  });
});

describe("sites, generate, publish, open", () => {
  it("creates a site and lists it", async () => {
    const created = await reposite(["sites", "create", "acme/notebook", "--json"]);
    expect(created.code).toBe(0);
    const site = json<{ id: string; repohost_url: string; name: string }>(created.stdout);
    expect(site).toMatchObject({ repohost_url: "https://github.com/acme/notebook", name: "notebook" });
    siteId = site.id;
    const listed = json<{ id: string }[]>((await reposite(["sites", "list", "--json"])).stdout);
    expect(listed.map((entry) => entry.id)).toEqual([siteId]);
    const table = await reposite(["sites", "list"]);
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+SLUG\\s+NAME\\s+APP\\s+ADDRESS\\n${siteId}\\s+-\\s+notebook\\s+-\\s+-$`, "m"));
  });

  it("generate --follow writes each page of the plan and reports it", async () => {
    const human = await reposite(["generate", siteId, "--mode", "website", "--pages", "faq", "--follow"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^✓ landing page \(ver_\S+\)\n✓ FAQ page.*\nDone\. Publish it: reposite publish site_\S+\n$/);

    const followed = await reposite(["generate", siteId, "--mode", "website", "--pages", "faq", "--regenerate", "--follow", "--json"]);
    expect(followed.code).toBe(0);
    const lines = jsonLines(followed.stdout);
    expect(lines.map((line) => line.type)).toEqual(["page", "page", "result"]);
    expect(lines[2]).toMatchObject({ site_id: siteId, status: "done", jobs: [{ kind: "template", status: "done" }, { kind: "faq", status: "done" }] });
    const landing = (lines[0]!.job as { version_id: string }).version_id;
    const versions = await (await fetch(`${server.url}/app/sites/${siteId}/versions?kind=template`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(versions.find((version: { current: boolean }) => version.current)?.id).toBe(landing);
  });

  it("publish --slug puts it live; the slug then names the site; open prints the address without a browser", async () => {
    const published = await reposite(["publish", siteId, "--slug", "notes", "--json"]);
    expect(published.code).toBe(0);
    expect(json(published.stdout)).toEqual({ site_id: siteId, url: "http://notes.sites.test", pages: expect.arrayContaining(["template"]), warnings: [] });
    expect(published.stderr).toBe("");
    expect(json<{ id: string; slug: string }>((await reposite(["sites", "get", "notes", "--json"])).stdout)).toMatchObject({ id: siteId, slug: "notes" });
    const opened = await reposite(["open", "notes"]);
    expect(opened).toMatchObject({ code: 0, stdout: "http://notes.sites.test\n", stderr: "" });
    expect(json((await reposite(["open", "notes", "--app", "--json"])).stderr)).toMatchObject({ code: "no_address" });
  });
});

describe("deploy, logs, env, status (in-memory container runtime)", () => {
  it("deploy --follow shows the build log and ends with the app's address; status shows it running", async () => {
    const deployed = await reposite(["deploy", "notes", "--follow"]);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain("Step 1/3 : FROM node:22");
    expect(deployed.stdout).toContain("installing");
    expect(deployed.stdout).toMatch(/✓ Deployed: http:\/\/notes\.sites\.test\/app\/\n$/);
    expect(deployed.stdout).not.toMatch(/\r|\x1b\[/); // no progress line in a pipe

    const status = json<{ site: { id: string }; deployment: { status: string; last_run: { status: string } } }>((await reposite(["status", "notes", "--json"])).stdout);
    expect(status).toMatchObject({ site: { id: siteId }, deployment: { status: "running", last_run: { status: "done", diagnosis: null } } });
    const human = await reposite(["status", "notes"]);
    expect(human.stdout).toMatch(/^app\s+running$/m);
    expect(human.stdout).toMatch(/^last deploy\s+done at .* UTC$/m);
  });

  it("publishing a saas site whose main button leads to /app/ warns while no app is deployed, and not once one is", async () => {
    const created = json<{ id: string }>((await reposite(["sites", "create", "acme/notebook", "--json"])).stdout);
    expect((await reposite(["generate", created.id, "--mode", "saas", "--follow"])).code).toBe(0);
    const human = await reposite(["publish", created.id, "--slug", "notes-app"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("Published notebook: http://notes-app.sites.test");
    expect(human.stderr).toContain("Warning: The site's main button leads to /app/, but no app is deployed there yet");
    expect(human.stderr).toContain("Deploy it: reposite deploy notes-app");
    const answer = json<{ warnings: { code: string; message: string }[] }>((await reposite(["publish", "notes-app", "--json"])).stdout);
    expect(answer.warnings).toEqual([{ code: "app_not_deployed", message: expect.stringContaining("no app is deployed") }]);

    expect((await reposite(["deploy", "notes-app", "--follow"])).code).toBe(0);
    const after = await reposite(["publish", "notes-app", "--json"]);
    expect(json(after.stdout)).toMatchObject({ warnings: [] });
    expect((await reposite(["publish", "notes-app"])).stderr).toBe("");
  });

  it("on a terminal, deploy --follow keeps a progress line under the log; in a pipe there is none", async () => {
    // `script` runs the binary on a pseudo-terminal, as a person's shell does.
    const line = [process.execPath, BIN, "deploy", "notes", "--follow"].map((word) => `'${word}'`).join(" ");
    const onTerminal = runCli([], env, { command: ["script", "-qfec", line, "/dev/null"] });
    expect(await onTerminal.exit).toBe(0);
    const { stdout } = onTerminal.output();
    printed.push(stdout);
    expect(stdout).toMatch(/\r\x1b\[KDeploying notebook · \w+ · 0:\d\d · \d+ log lines/);
    expect(stdout).toContain("Step 1/3 : FROM node:22");
    expect(stdout).toMatch(/\r\x1b\[K✓ Deployed: http:\/\/notes\.sites\.test\/app\//);
  });

  it("logs prints the app's output, --tail cuts it, -f follows new lines until interrupted", async () => {
    const logs = await reposite(["logs", "notes"]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain("app started on 3000\n");
    expect(json<{ lines: string[] }>((await reposite(["logs", "notes", "--tail", "1", "--json"])).stdout).lines).toHaveLength(1);
    expect((await reposite(["logs", "notes", "--tail", "0"])).code).toBe(2);

    const follow = runCli(["logs", "notes", "-f", "--json"], env);
    await follow.waitFor(/app started on 3000/);
    appLog!("a request came in");
    await follow.waitFor(/a request came in/, 10_000);
    follow.child.kill("SIGINT");
    expect(await follow.exit).toBe(0);
    const lines = jsonLines(follow.output().stdout);
    expect(lines.filter((line) => line.text === "a request came in")).toHaveLength(1);
    expect(lines.every((line) => line.type === "line")).toBe(true);
  });

  it("env set / list / unset: values are never shown back", async () => {
    const set = await reposite(["env", "set", "notes", "API_KEY=s3cret-value", "MODE=production"]);
    expect(set).toMatchObject({ code: 0, stdout: "Set API_KEY, MODE for notebook.\n" });
    const listed = await reposite(["env", "list", "notes"]);
    expect(listed.stdout).toBe("API_KEY=********\nMODE=********\n");
    expect(listed.stdout).not.toContain("s3cret");
    expect(json((await reposite(["env", "list", "notes", "--json"])).stdout)).toEqual({ site_id: siteId, env: { API_KEY: "********", MODE: "********" } });
    expect((await reposite(["env", "unset", "notes", "MODE", "--json"])).code).toBe(0);
    expect(json<{ env: object }>((await reposite(["env", "list", "notes", "--json"])).stdout).env).toEqual({ API_KEY: "********" });

    const bad = await reposite(["env", "set", "notes", "NOEQUALS"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Expected KEY=VALUE");
    const refused = await reposite(["env", "set", "notes", "PORT=1", "--json"]);
    expect(refused.code).toBe(1);
    expect(json(refused.stderr)).toMatchObject({ code: "invalid_request", status: 422 });
  });

  it("a failed deploy exits 1 with the diagnosis; status shows it; --json ends with the failed result", async () => {
    const site = json<{ id: string }>((await reposite(["sites", "create", "https://github.com/acme/broken", "--json"])).stdout);
    const failed = await reposite(["deploy", site.id, "--follow"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("✗ The deploy failed");
    expect(failed.stderr).toMatch(/The build failed at step 2 of 2 \(line 2 of the Dockerfile\)/);
    expect(failed.stderr).toContain("What to do:");

    const again = await reposite(["deploy", site.id, "--follow", "--json"]);
    expect(again.code).toBe(1);
    const lines = jsonLines(again.stdout);
    expect(lines.slice(0, -1).every((line) => line.type === "log")).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "failed", deployment: { last_run: { status: "failed", diagnosis: { kind: "build_step_failed" } } } });

    const status = await reposite(["status", site.id]);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain("The build failed at step 2 of 2");
  });
});

describe("exit codes and errors", () => {
  it.each([
    [["sites", "get", "no-such-slug", "--json"], 4, { code: "not_found", status: 404 }],
    [["sites", "get", "site_doesnotexist", "--json"], 4, { status: 404 }],
    [["sites", "create", "not a repository", "--json"], 1, { status: 422 }],
    [["whoami", "--json", "--server", "http://127.0.0.1:9"], 3, { code: "not_logged_in" }],
  ])("%j exits %i with a JSON error on stderr", async (args, exitCode, error) => {
    const result = await reposite(args);
    expect(result.code).toBe(exitCode);
    expect(result.stdout).toBe("");
    expect(json(result.stderr)).toMatchObject({ error: expect.any(String), ...error });
  });

  it("a refused token exits 3; an unreachable server exits 6", async () => {
    const refused = await reposite(["sites", "list", "--json"], { REPOSITE_TOKEN: "rps_000000000000000000000000000000000000" });
    expect(refused.code).toBe(3);
    expect(json(refused.stderr)).toMatchObject({ status: 401 });
    const unreachable = await reposite(["sites", "list", "--json", "--server", "http://127.0.0.1:9"], { REPOSITE_TOKEN: token });
    expect(unreachable.code).toBe(6);
    expect(json(unreachable.stderr)).toMatchObject({ code: "unreachable", status: null });
    expect(unreachable.stderr).not.toContain(token);
  });
});

describe("logout", () => {
  it("revokes the stored token and forgets it; the next command is not logged in (3)", async () => {
    const out = await reposite(["logout"]);
    expect(out).toMatchObject({ code: 0, stdout: `Logged out of ${server.url} (ada@example.com); the token is revoked.\n` });
    await expect(server.reposite.tokens.authenticate(token)).rejects.toThrow();
    const stored = json<{ login?: unknown }>(await readFile(join(configHome, "reposite", "config.json"), "utf8"));
    expect(stored.login).toBeUndefined();
    expect((await reposite(["whoami"])).code).toBe(3);
    expect((await reposite(["logout", "--json"])).stdout).toBe('{"logged_out":false,"reason":"not_logged_in"}\n');
  });

  it("never printed the token (only login --json --show-token, which used another account)", () => {
    expect(token).not.toBe("");
    for (const text of printed) expect(text).not.toContain(token);
  });
});
