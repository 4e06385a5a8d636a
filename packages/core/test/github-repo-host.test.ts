import { startFakeGitHub, readTar, repoHostContract, type FakeGitHub, type FakeRepo, failure } from "@reposite/test-support";
import { createServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitHubRepoHost, type GitHubRepoHostOptions } from "../src/repo-host/index.js";

const H3: FakeRepo = {
  owner: "unjs",
  name: "h3",
  description: "Minimal H(TTP) framework",
  topics: ["http", "framework"],
  readme: "# h3\n\nMinimal H(TTP) framework.\n",
  files: { "hello.txt": "hello\n", "README.md": "# h3\n", "src/index.ts": "export {};\n" },
  refs: ["v2", "feature/streams"],
};
const SECRET: FakeRepo = {
  owner: "acme",
  name: "secret",
  private: true,
  defaultBranch: "trunk",
  readme: "# Secret\n",
  files: { "hello.txt": "psst\n" },
};
const NO_README: FakeRepo = { owner: "unjs", name: "bare", files: {} };
const TOKEN = "ghp_operatorSecret123";

repoHostContract("GitHub against the fake GitHub", async () => {
  const fake = await startFakeGitHub({ repos: [H3] });
  return {
    host: createGitHubRepoHost({ apiUrl: fake.url, webHosts: ["github.com"] }),
    link: "https://github.com/unjs/h3",
    missingLink: "https://github.com/unjs/nope",
    teardown: () => fake.close(),
  };
});

repoHostContract("GitHub Enterprise (apiUrl with /api/v3) against the fake GitHub", async () => {
  const fake = await startFakeGitHub({ repos: [H3], pathPrefix: "/api/v3", webHost: "self" });
  const host = createGitHubRepoHost({ apiUrl: fake.url, webUrl: fake.webUrl });
  return {
    host,
    link: `${fake.webUrl}/unjs/h3`,
    missingLink: `${fake.webUrl}/unjs/nope`,
    teardown: () => fake.close(),
  };
});

describe("createGitHubRepoHost", () => {
  let fake: FakeGitHub;
  const host = (options: GitHubRepoHostOptions = {}) => createGitHubRepoHost({ apiUrl: fake.url, webHosts: ["github.com"], ...options });
  const link = (text: string) => {
    const parsed = host().parseLink(text);
    if (!parsed) throw new Error(`unparsable ${text}`);
    return parsed;
  };
  const lastRequest = () => fake.requests[fake.requests.length - 1]!;

  beforeEach(async () => {
    fake = await startFakeGitHub({ repos: [H3, SECRET, NO_README], token: TOKEN });
  });
  afterEach(async () => {
    await fake.close();
  });

  it("tells the facts from GitHub's repository object", async () => {
    expect(await host().getRepository(link("github.com/UNJS/H3"))).toEqual({
      owner: "unjs",
      name: "h3",
      url: "https://github.com/unjs/h3",
      private: false,
      description: "Minimal H(TTP) framework",
      topics: ["http", "framework"],
      defaultBranch: "main",
    });
    expect(lastRequest().path).toBe("/repos/UNJS/H3");
  });

  it("sends GitHub's media type, API version and a User-Agent, and no Authorization without a token", async () => {
    await host().getRepository(link("github.com/unjs/h3"));
    const { headers } = lastRequest();
    expect(headers.accept).toBe("application/vnd.github+json");
    expect(headers["x-github-api-version"]).toBe("2022-11-28");
    expect(headers["user-agent"]).toBe("reposite");
    expect(headers.authorization).toBeUndefined();
  });

  it("sends the operator token as a bearer token, and the caller's access token instead when given", async () => {
    await host({ token: TOKEN, userAgent: "reposite-test" }).getRepository(link("github.com/unjs/h3"));
    expect(lastRequest().headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(lastRequest().headers["user-agent"]).toBe("reposite-test");

    await host({ token: "ghp_otherOperator" }).getRepository(link("github.com/acme/secret"), { accessToken: TOKEN });
    expect(lastRequest().headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("does not see a private repository without a token, and sees it with one", async () => {
    const secret = link("https://github.com/acme/secret");
    expect(await host().getRepository(secret)).toBeNull();
    expect(await host().getReadme(secret)).toBeNull();
    expect((await failure(host().getSourceArchive(secret))).code).toBe("ref_not_found");

    expect(await host({ token: TOKEN }).getRepository(secret)).toMatchObject({ private: true, defaultBranch: "trunk" });
    expect(await host().getRepository(secret, { accessToken: TOKEN })).toMatchObject({ private: true });
    expect(await host({ token: TOKEN }).getReadme(secret)).toBe("# Secret\n");
    const archive = await new Response(await host({ token: TOKEN }).getSourceArchive(secret)).arrayBuffer();
    expect(readTar(new Uint8Array(archive)).map((entry) => entry.path)).toContain(`acme-secret-${tarSha(archive)}/hello.txt`);
  });

  it("reports a token GitHub rejects without repeating the token", async () => {
    const error = await failure(host({ token: "ghp_wrongToken999" }).getRepository(link("github.com/unjs/h3")));
    expect(error.status).toBe(502);
    expect(error.code).toBe("repohost_unauthorized");
    expect(error.message).not.toContain("ghp_wrongToken999");
  });

  it("answers null for a repository without a README", async () => {
    expect(await host().getReadme(link("github.com/unjs/bare"))).toBeNull();
    expect(lastRequest().headers.accept).toBe("application/vnd.github.raw");
  });

  it("reads the README from the JSON form when the server ignores the raw media type", async () => {
    const readme = await createGitHubRepoHost({
      apiUrl: fake.url,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("accept", "application/vnd.github+json");
        return fetch(input, { ...init, headers });
      },
    }).getReadme(link("github.com/unjs/h3"));
    expect(readme).toBe(H3.readme);
  });

  it("fetches the archive of a ref through GitHub's redirect, top folder <owner>-<repo>-<sha7>", async () => {
    const stream = await host().getSourceArchive(link("github.com/unjs/h3"), "feature/streams");
    expect(stream).toBeInstanceOf(ReadableStream);
    const entries = readTar(new Uint8Array(await new Response(stream).arrayBuffer()));
    const root = entries[0]!;
    expect(root).toMatchObject({ type: "directory", path: expect.stringMatching(/^unjs-h3-[0-9a-f]{7}$/) });
    expect(entries.filter((e) => e.type === "file").map((e) => e.path).sort()).toEqual(
      [`${root.path}/README.md`, `${root.path}/hello.txt`, `${root.path}/src/index.ts`],
    );
    const paths = fake.requests.map((request) => request.path);
    expect(paths).toContain("/repos/unjs/h3/tarball/feature/streams");
    expect(paths.some((path) => path.startsWith("/codeload/unjs/h3/legacy.tar.gz/"))).toBe(true);
  });

  it("answers 404 ref_not_found for a ref the repository does not have", async () => {
    const error = await failure(host().getSourceArchive(link("github.com/unjs/h3"), "no-such-branch"));
    expect(error.status).toBe(404);
    expect(error.code).toBe("ref_not_found");
    expect(error.message).toContain("no-such-branch");
  });

  it("turns GitHub's rate limit into 503 repohost_rate_limited that says when to retry and how to raise it", async () => {
    fake.setRateLimited(true);
    const h3 = link("github.com/unjs/h3");
    for (const call of [host().getRepository(h3), host().getReadme(h3), host().getSourceArchive(h3)]) {
      const error = await failure(call);
      expect(error.status).toBe(503);
      expect(error.code).toBe("repohost_rate_limited");
      expect(error.message).toMatch(/retry in \d+ seconds/);
      expect(error.message).toContain("REPOSITE_GITHUB_TOKEN");
      expect(error.details?.retry_after).toBeGreaterThan(0);
    }
    const withToken = await failure(host({ token: TOKEN }).getRepository(h3));
    expect(withToken.code).toBe("repohost_rate_limited");
    expect(withToken.message).not.toContain(TOKEN);

    fake.setRateLimited(false);
    expect(await host().getRepository(h3)).not.toBeNull();
  });

  it("reads retry-after of a secondary rate limit", async () => {
    const limited = createGitHubRepoHost({
      apiUrl: fake.url,
      fetch: async () =>
        new Response(JSON.stringify({ message: "You have exceeded a secondary rate limit." }), {
          status: 403,
          headers: { "content-type": "application/json", "retry-after": "42" },
        }),
    });
    const error = await failure(limited.getRepository(link("github.com/unjs/h3")));
    expect(error).toMatchObject({ status: 503, code: "repohost_rate_limited", details: { retry_after: 42 } });
    expect(error.message).toContain("42 seconds");
  });

  it("answers 502 repohost_unavailable when GitHub fails or cannot be reached", async () => {
    const failing = createGitHubRepoHost({
      apiUrl: fake.url,
      fetch: async () => new Response(JSON.stringify({ message: "Server Error" }), { status: 500 }),
    });
    const serverError = await failure(failing.getRepository(link("github.com/unjs/h3")));
    expect(serverError).toMatchObject({ status: 502, code: "repohost_unavailable" });

    const down = createGitHubRepoHost({ apiUrl: await closedPortUrl(), token: TOKEN });
    for (const call of [down.getRepository(link("github.com/unjs/h3")), down.getSourceArchive(link("github.com/unjs/h3"))]) {
      const error = await failure(call);
      expect(error).toMatchObject({ status: 502, code: "repohost_unavailable" });
      expect(error.message).not.toContain(TOKEN);
    }
  });

  it("serves a GitHub Enterprise API under a path prefix, with links on the configured web address", async () => {
    // The fake's html_url names its own loopback origin; the stored address must stay on the web host.
    const ghe = await startFakeGitHub({ repos: [H3], pathPrefix: "/api/v3", webHost: "self" });
    try {
      expect(ghe.url).toMatch(/\/api\/v3$/);
      const enterprise = createGitHubRepoHost({ apiUrl: `${ghe.url}/`, webUrl: "https://ghe.example.com/" });
      expect(enterprise.parseLink("https://github.com/unjs/h3")).toBeNull();
      expect(enterprise.parseLink(`${new URL(ghe.url).host}/unjs/h3`)).toBeNull();
      expect(enterprise.exampleLink).toBe("https://ghe.example.com/owner/repository");
      const h3 = enterprise.parseLink("ghe.example.com/unjs/h3/tree/main/docs")!;
      expect(h3).toMatchObject({ owner: "unjs", name: "h3", url: "https://ghe.example.com/unjs/h3", ref: "main", path: "docs" });
      const facts = await enterprise.getRepository(h3);
      expect(facts).toMatchObject({ name: "h3", url: "https://ghe.example.com/unjs/h3" });
      expect(enterprise.parseLink(facts!.url)).toMatchObject({ owner: "unjs", name: "h3" });
      expect(await enterprise.getReadme(h3)).toBe(H3.readme);
      expect(ghe.requests.map((request) => request.path)).toEqual(["/api/v3/repos/unjs/h3", "/api/v3/repos/unjs/h3/readme"]);
    } finally {
      await ghe.close();
    }
  });

  it("accepts github.com links whatever the API address is, and the web address's links when one is set", () => {
    expect(createGitHubRepoHost().parseLink("https://github.com/unjs/h3")).toMatchObject({ url: "https://github.com/unjs/h3" });
    // A mirror or proxy of the API: links are still github.com's.
    const mirror = createGitHubRepoHost({ apiUrl: "http://127.0.0.1:9/github-proxy" });
    expect(mirror.parseLink("github.com/unjs/h3")).toMatchObject({ url: "https://github.com/unjs/h3" });
    expect(mirror.parseLink("127.0.0.1:9/unjs/h3")).toBeNull();
    expect(mirror.exampleLink).toBe("https://github.com/owner/repository");
    const enterprise = createGitHubRepoHost({ apiUrl: "https://api.ghe.example.com", webUrl: "http://ghe.example.com:8080" });
    expect(enterprise.parseLink("ghe.example.com:8080/a/b")).toMatchObject({ url: "http://ghe.example.com:8080/a/b" });
    expect(enterprise.parseLink("git@ghe.example.com:a/b.git")).toBeNull(); // the port is part of the configured host
    expect(enterprise.parseLink("github.com/a/b")).toBeNull();
  });
});

/** The 7-character commit id in the archive's top folder. */
function tarSha(archive: ArrayBuffer): string {
  return readTar(new Uint8Array(archive))[0]!.path.split("-").pop()!;
}

/** An address where nothing listens. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
