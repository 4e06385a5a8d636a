import { randomBytes } from "node:crypto";
import { createReposite, RepositeError, type Reposite } from "../src/index.js";
import { startFakeGitHub, type FakeGitHub, failure } from "@reposite/test-support";
import { createStorage, type Storage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_HOST_AUTHORIZERS, type RepoHostAuthorizer } from "../src/ports/repo-host-auth.js";
import { assertTypeAllowed } from "../src/repo-access/project-type-rule.js";
import { REPO_AUTH_STATE_TTL_MS, RepoAccessService } from "../src/repo-access/repo-access-service.js";
import { createGitHubOAuth } from "../src/repo-host/github-oauth.js";
import { SecretBox } from "../src/util/secret-box.js";
import { SECRET_KEY } from "../src/util/secret-key.js";
import { sha256 } from "../src/util/secrets.js";

const CLIENT = { clientId: "Iv1.fakeclient0001", clientSecret: "fake-client-secret-0001" };
const PUBLIC = "https://github.com/acme/rocket-cli";
const PRIVATE = "https://github.com/acme/secret-sauce";

let github: FakeGitHub;
let storage: Storage;
let reposite: Reposite;
let repoAccess: RepoAccessService;
let clock: { time: number; now(): Date };
let key: Uint8Array;

function compose(authorizers?: RepoHostAuthorizer[]) {
  reposite = createReposite({
    storage,
    clock,
    config: { baseUrl: "https://reposite.test", dataDir: "/nonexistent/reposite-test" },
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    register: (container) => {
      container.register(REPO_HOST_AUTHORIZERS, {
        useValue: authorizers ?? [createGitHubOAuth({ ...CLIENT, webUrl: github.webUrl, apiUrl: github.url })],
      });
      container.register(SECRET_KEY, { useValue: async () => key });
      container.registerSingleton(SecretBox);
      container.registerSingleton(RepoAccessService);
    },
  });
  repoAccess = reposite.container.resolve(RepoAccessService);
}

beforeEach(async () => {
  github = await startFakeGitHub({
    repos: [
      { owner: "acme", name: "rocket-cli", description: "Rockets" },
      { owner: "acme", name: "secret-sauce", private: true, files: { "hello.txt": "psst\n" } },
    ],
    oauth: CLIENT,
  });
  storage = createStorage();
  clock = { time: Date.parse("2026-03-01T10:00:00Z"), now: () => new Date(clock.time) };
  key = randomBytes(32);
  compose();
});
afterEach(async () => {
  await reposite.close();
  await github.close();
});

const account = async (email: string) => (await reposite.accounts.findOrCreate(email)).account.id;

/** The person on GitHub's page clicks "Authorize": the code and state the browser is sent back with. */
async function authorize(url: string): Promise<{ code: string; state: string; callback: URL }> {
  const response = await fetch(url.replace(/&approve=1$/, "") + "&approve=1", { redirect: "manual" });
  expect(response.status).toBe(302);
  const callback = new URL(response.headers.get("location")!);
  return { code: callback.searchParams.get("code")!, state: callback.searchParams.get("state")!, callback };
}

async function connected(accountId: string) {
  const { url } = await repoAccess.connect(accountId, { repo: PRIVATE });
  const { code, state } = await authorize(url);
  await repoAccess.finish(state, code);
}

/** Every stored key and value, as text. */
async function dump(): Promise<string> {
  const keys = await storage.getKeys();
  const entries = await Promise.all(keys.map(async (name) => `${name} = ${JSON.stringify(await storage.getItem(name))}`));
  return entries.join("\n");
}

describe("connecting an account to GitHub", () => {
  it("answers GitHub's authorize URL with a state bound to the account, stored only by hash", async () => {
    const ada = await account("ada@example.com");
    const { url } = await repoAccess.connect(ada, { repo: "github.com/acme/secret-sauce" });

    const authorizeUrl = new URL(url);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${github.webUrl}/login/oauth/authorize`);
    const query = Object.fromEntries(authorizeUrl.searchParams);
    expect(query).toEqual({
      client_id: CLIENT.clientId,
      redirect_uri: "https://reposite.test/app/repohost/callback",
      scope: "repo",
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      allow_signup: "true",
    });
    const record = await storage.getItem<Record<string, unknown>>(`repo-auth-states:${sha256(query.state!)}`);
    expect(record).toMatchObject({ account_id: ada, host: "github", repo: PRIVATE });
    expect(await dump()).not.toContain(query.state);
  });

  it("finishes with the code GitHub sends back, for the account that started it", async () => {
    const ada = await account("ada@example.com");
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const { code, state, callback } = await authorize(url);
    expect(`${callback.origin}${callback.pathname}`).toBe("https://reposite.test/app/repohost/callback");

    expect(await repoAccess.finish(state, code)).toEqual({ accountId: ada, host: "github", repo: PRIVATE });
    expect(await repoAccess.status(ada)).toEqual({ connected: true });
    expect(await repoAccess.status(await account("bob@example.com"))).toEqual({ connected: false });
    // The code was exchanged with the app's credentials and the same redirect_uri.
    const exchange = github.requests.find((request) => request.path === "/login/oauth/access_token")!;
    expect(exchange.method).toBe("POST");
    expect(exchange.headers.accept).toBe("application/json");
    expect(Object.fromEntries(new URLSearchParams(exchange.body))).toEqual({
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret,
      code,
      redirect_uri: "https://reposite.test/app/repohost/callback",
    });
  });

  it("refuses a state started by another account than the one signed in where the callback lands", async () => {
    const ada = await account("ada@example.com");
    const bob = await account("bob@example.com");
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const { code, state } = await authorize(url);

    const error = await failure(repoAccess.finish(state, code, bob));
    expect([error.status, error.code]).toEqual([409, "wrong_account"]);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
    expect(await repoAccess.status(bob)).toEqual({ connected: false });
    // The link is spent: it cannot be finished afterwards either.
    expect((await failure(repoAccess.finish(state, code, ada))).code).toBe("invalid_state");
    expect(github.requests.some((request) => request.path === "/login/oauth/access_token")).toBe(false);
  });

  it("accepts a state once", async () => {
    const ada = await account("ada@example.com");
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const { code, state } = await authorize(url);
    await repoAccess.finish(state, code, ada);

    const error = await failure(repoAccess.finish(state, code));
    expect([error.status, error.code]).toEqual([400, "invalid_state"]);
    expect((await failure(repoAccess.finish("made-up-state", code))).code).toBe("invalid_state");
    expect((await failure(repoAccess.finish("", code))).code).toBe("invalid_state");
  });

  it("refuses a state older than 10 minutes", async () => {
    const ada = await account("ada@example.com");
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const { code, state } = await authorize(url);
    clock.time += REPO_AUTH_STATE_TTL_MS;

    const error = await failure(repoAccess.finish(state, code));
    expect([error.status, error.code]).toEqual([410, "expired"]);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
    expect(await storage.getKeys("repo-auth-states")).toEqual([]);
  });

  it("keeps only the newest five unfinished authorizations of an account", async () => {
    const ada = await account("ada@example.com");
    const starts = [];
    for (let i = 0; i < 6; i++) starts.push(await authorize((await repoAccess.connect(ada, { repo: PRIVATE })).url));
    expect(await storage.getKeys("repo-auth-states:")).toHaveLength(5);
    expect((await failure(repoAccess.finish(starts[0]!.state, starts[0]!.code))).code).toBe("invalid_state");
    await repoAccess.finish(starts[5]!.state, starts[5]!.code);
    expect(await repoAccess.status(ada)).toEqual({ connected: true });
  });

  it("forgets the state when the person declines at GitHub", async () => {
    const ada = await account("ada@example.com");
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const state = new URL(url).searchParams.get("state")!;
    await repoAccess.abandon(state);
    expect((await failure(repoAccess.finish(state, "any"))).code).toBe("invalid_state");
  });

  it("reports a code GitHub does not accept as 400 repohost_code_invalid", async () => {
    const ada = await account("ada@example.com");
    const { url } = await repoAccess.connect(ada, { repo: PRIVATE });
    const state = new URL(url).searchParams.get("state")!;
    const error = await failure(repoAccess.finish(state, "wrong-code"));
    expect([error.status, error.code]).toEqual([400, "repohost_code_invalid"]);
    expect(error.message).toContain("bad_verification_code");
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
  });

  it("validates the repository link and says when no OAuth app is configured", async () => {
    const ada = await account("ada@example.com");
    expect((await failure(repoAccess.connect(ada, { repo: "ftp://example.com/x" }))).code).toBe("invalid_repo_url");
    expect((await failure(repoAccess.connect(ada, {}))).code).toBe("invalid_request");

    compose([]);
    const error = await failure(repoAccess.connect(ada, { repo: PRIVATE }));
    expect([error.status, error.code]).toEqual([503, "repohost_auth_unavailable"]);
    expect(error.message).toContain("REPOSITE_GITHUB_CLIENT_ID");
  });
});

describe("the stored grant", () => {
  it("is encrypted: the access token appears nowhere in storage", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    const [token] = github.oauthTokens();
    expect(token).toMatch(/^gho_/);

    const stored = await dump();
    expect(stored).not.toContain(token);
    const grant = await storage.getItem<Record<string, unknown>>(`repo-grants:${ada}:github`);
    expect(grant).toMatchObject({ host: "github", scope: "repo", sealed_token: expect.stringMatching(/^v1\./) });
    expect(await repoAccess.accessFor(ada, "github")).toEqual({ accessToken: token });
  });

  it("cannot be moved to another account's record", async () => {
    const ada = await account("ada@example.com");
    const bob = await account("bob@example.com");
    await connected(ada);
    await storage.setItem(`repo-grants:${bob}:github`, await storage.getItem(`repo-grants:${ada}:github`));
    expect((await failure(repoAccess.accessFor(bob, "github"))).code).toBe("secret_key_mismatch");
  });

  it("sealed with another key fails loudly on use, and disconnecting forgets it", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    key = randomBytes(32);
    compose();
    const error = await failure(repoAccess.check(ada, PRIVATE));
    expect([error.status, error.code]).toEqual([500, "secret_key_mismatch"]);
    await repoAccess.disconnect(ada);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
    expect(await repoAccess.check(ada, PRIVATE)).toEqual({ exists: false, private: false });
  });
});

describe("repository check", () => {
  it("does not see a private repository before connecting, and sees it after", async () => {
    const ada = await account("ada@example.com");
    expect(await repoAccess.check(ada, PUBLIC)).toEqual({ exists: true, private: false });
    expect(await repoAccess.check(ada, PRIVATE)).toEqual({ exists: false, private: false });

    await connected(ada);
    expect(await repoAccess.check(ada, PRIVATE)).toEqual({ exists: true, private: true });
    expect(await repoAccess.check(ada, "git@github.com:acme/secret-sauce.git")).toEqual({ exists: true, private: true });
    expect(await repoAccess.check(ada, "https://github.com/acme/missing")).toEqual({ exists: false, private: false });
    // Another account does not see it through Ada's grant.
    expect(await repoAccess.check(await account("bob@example.com"), PRIVATE)).toEqual({ exists: false, private: false });
    // Resolving for a project and fetching its source use the grant too.
    expect((await repoAccess.resolve(ada, PRIVATE)).facts).toMatchObject({ private: true, name: "secret-sauce" });
    const archive = new Uint8Array(await new Response(await repoAccess.sourceArchive(ada, PRIVATE)).arrayBuffer());
    expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);
  });

  it("answers 422 invalid_repo_url for a link no repo host understands", async () => {
    const ada = await account("ada@example.com");
    const error = await failure(repoAccess.check(ada, "https://example.com/nothing"));
    expect([error.status, error.code]).toEqual([422, "invalid_repo_url"]);
    expect((await failure(repoAccess.check(ada, ""))).code).toBe("invalid_request");
  });

  it("forgets a grant the person revoked at GitHub and answers as without one", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    await revokeAtGitHub(github.oauthTokens()[0]!);
    expect(await repoAccess.check(ada, PRIVATE)).toEqual({ exists: false, private: false });
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
  });
});

describe("disconnecting", () => {
  it("revokes the grant at GitHub with the app's basic auth, then forgets it", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    const [token] = github.oauthTokens();

    await repoAccess.disconnect(ada);
    const revoke = github.requests.find((request) => request.method === "DELETE")!;
    expect(revoke.path).toBe(`/applications/${CLIENT.clientId}/grant`);
    expect(revoke.headers.authorization).toBe(`Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`);
    expect(JSON.parse(revoke.body!)).toEqual({ access_token: token });
    expect(github.oauthTokens()).toEqual([]);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
    expect(await repoAccess.check(ada, PRIVATE)).toEqual({ exists: false, private: false });
    expect(await storage.getKeys("repo-grants")).toEqual([]);

    // Nothing left to disconnect: still fine, and GitHub is not asked again.
    await repoAccess.disconnect(ada);
    expect(github.requests.filter((request) => request.method === "DELETE")).toHaveLength(1);
  });

  it("forgets a grant GitHub no longer knows", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    await revokeAtGitHub(github.oauthTokens()[0]!);
    await repoAccess.disconnect(ada);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
  });

  it("keeps the grant and answers 502 when GitHub cannot revoke it", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    github.setRateLimited(true);
    const error = await failure(repoAccess.disconnect(ada));
    expect([error.status, error.code]).toEqual([502, "repohost_unavailable"]);
    expect(await repoAccess.status(ada)).toEqual({ connected: true });

    github.setRateLimited(false);
    await repoAccess.disconnect(ada);
    expect(await repoAccess.status(ada)).toEqual({ connected: false });
  });

  it("keeps the grant when GitHub refuses the app's credentials", async () => {
    const ada = await account("ada@example.com");
    await connected(ada);
    compose([createGitHubOAuth({ clientId: CLIENT.clientId, clientSecret: "rotated", webUrl: github.webUrl, apiUrl: github.url })]);
    const error = await failure(repoAccess.disconnect(ada));
    expect([error.status, error.code]).toEqual([502, "repohost_auth_failed"]);
    expect(await repoAccess.status(ada)).toEqual({ connected: true });
  });
});

describe("private_repo rule", () => {
  it("lets a private repository become only a saas project", () => {
    expect(() => assertTypeAllowed({ private: true }, "saas")).not.toThrow();
    for (const type of ["website", "landing"] as const) {
      let error: unknown;
      try {
        assertTypeAllowed({ private: true }, type);
      } catch (caught) {
        error = caught;
      }
      expect(RepositeError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 422, code: "private_repo" });
    }
  });

  it("lets a public repository become any type", () => {
    for (const type of ["saas", "website", "landing"] as const) expect(() => assertTypeAllowed({ private: false }, type)).not.toThrow();
  });
});

/** The person removes the app in their GitHub settings. */
async function revokeAtGitHub(token: string): Promise<void> {
  const response = await fetch(`${github.url}/applications/${CLIENT.clientId}/grant`, {
    method: "DELETE",
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ access_token: token }),
  });
  expect(response.status).toBe(204);
}
