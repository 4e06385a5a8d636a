import { describe, expect, it } from "vitest";
import { parseGitHubLink } from "../src/repo-host/index.js";

const H3 = { host: "github", owner: "unjs", name: "h3", url: "https://github.com/unjs/h3" };

describe("parseGitHubLink", () => {
  it.each([
    "https://github.com/unjs/h3",
    "https://www.github.com/unjs/h3",
    "http://github.com/unjs/h3",
    "github.com/unjs/h3",
    "www.github.com/unjs/h3",
    "https://github.com/unjs/h3.git",
    "https://github.com/unjs/h3/",
    "https://github.com/unjs/h3.git/",
    "https://github.com/unjs/h3/issues",
    "https://github.com/unjs/h3/issues/42",
    "https://github.com/unjs/h3/pulls",
    "https://github.com/unjs/h3/pull/7/files",
    "https://github.com/unjs/h3?tab=readme-ov-file",
    "https://github.com/unjs/h3#readme",
    "https://github.com/unjs/h3/?tab=readme#install",
    "git@github.com:unjs/h3.git",
    "git@github.com:unjs/h3",
    "ssh://git@github.com/unjs/h3.git",
    "ssh://git@github.com/unjs/h3",
    "ssh://git@github.com:22/unjs/h3.git",
    "git://github.com/unjs/h3",
    "git://github.com/unjs/h3.git",
    "git+https://github.com/unjs/h3.git",
    "git+ssh://git@github.com/unjs/h3.git",
    "https://user:secret@github.com/unjs/h3.git",
    "HTTPS://GITHUB.COM/unjs/h3",
    "https://GitHub.com/unjs/h3",
    "  https://github.com/unjs/h3  \n",
    "\tgithub.com/unjs/h3",
    "SSH://GIT@GITHUB.COM/unjs/h3.git",
    "git@GitHub.com:unjs/h3.git",
  ])("accepts %j", (link) => {
    expect(parseGitHubLink(link)).toEqual(H3);
  });

  it("keeps the owner's and name's case and canonicalises the rest", () => {
    expect(parseGitHubLink("http://WWW.GitHub.com/UnJS/H3.git/")).toEqual({
      host: "github",
      owner: "UnJS",
      name: "H3",
      url: "https://github.com/UnJS/H3",
    });
  });

  it.each([
    ["https://github.com/unjs/h3/tree/main", { ref: "main" }],
    ["https://github.com/unjs/h3/tree/main/", { ref: "main" }],
    ["https://github.com/unjs/h3/tree/v2.0.0/src/utils", { ref: "v2.0.0", path: "src/utils" }],
    ["https://github.com/unjs/h3/tree/main/docs/?x=1#top", { ref: "main", path: "docs" }],
    ["https://github.com/unjs/h3/tree/feature%2Fstreams/src", { ref: "feature/streams", path: "src" }],
    ["github.com/unjs/h3/blob/main/README.md", { ref: "main", path: "README.md" }],
    ["https://github.com/unjs/h3/blob/0123abc/src/index.ts#L10-L20", { ref: "0123abc", path: "src/index.ts" }],
  ])("reads ref and path from %j", (link, extra) => {
    expect(parseGitHubLink(link)).toEqual({ ...H3, ...extra });
  });

  it.each([
    "https://github.com/unjs/h3/tree/main/.git",
    "https://github.com/unjs/h3/tree/main/.git/hooks",
    "https://github.com/unjs/h3/tree/main/node_modules",
    "https://github.com/unjs/h3/tree/main/node_modules/x",
    "https://github.com/unjs/h3/blob/main/packages/a/node_modules/b/index.js",
    "https://github.com/unjs/h3/tree/main/Node_Modules/x",
    "https://github.com/unjs/h3/.git",
  ])("refuses %j: it names a folder archives leave out", (link) => {
    expect(parseGitHubLink(link)).toBeNull();
  });

  it("keeps paths that only look like excluded folders, and repositories named like them", () => {
    expect(parseGitHubLink("https://github.com/unjs/h3/blob/main/.gitignore")).toMatchObject({ path: ".gitignore" });
    expect(parseGitHubLink("https://github.com/unjs/h3/tree/main/docs/node_modules.md")).toMatchObject({ path: "docs/node_modules.md" });
    expect(parseGitHubLink("https://github.com/acme/node_modules")).toMatchObject({ name: "node_modules" });
  });

  it("accepts names at the edges of GitHub's rules", () => {
    const longOwner = `a${"-b".repeat(19)}`; // 39 characters
    const longName = "r".repeat(100);
    expect(parseGitHubLink(`github.com/${longOwner}/${longName}`)).toMatchObject({ owner: longOwner, name: longName });
    expect(parseGitHubLink("github.com/a/b")).toMatchObject({ owner: "a", name: "b" });
    expect(parseGitHubLink("github.com/a-1/my_repo.js-2")).toMatchObject({ owner: "a-1", name: "my_repo.js-2" });
    expect(parseGitHubLink("github.com/o/.github")).toMatchObject({ name: ".github" });
    expect(parseGitHubLink("github.com/o/...")).toMatchObject({ name: "..." });
  });

  it("accepts only the configured web hosts and builds the url from them", () => {
    const hosts = ["ghe.example.com", "127.0.0.1:8080"];
    expect(parseGitHubLink("https://ghe.example.com/team/app/tree/dev", hosts)).toEqual({
      host: "github",
      owner: "team",
      name: "app",
      url: "https://ghe.example.com/team/app",
      ref: "dev",
    });
    expect(parseGitHubLink("git@GHE.example.com:team/app.git", hosts)).toMatchObject({ url: "https://ghe.example.com/team/app" });
    expect(parseGitHubLink("http://127.0.0.1:8080/team/app", hosts)).toMatchObject({ url: "https://127.0.0.1:8080/team/app" });
    expect(parseGitHubLink("http://127.0.0.1:9090/team/app", hosts)).toBeNull();
    expect(parseGitHubLink("https://github.com/team/app", hosts)).toBeNull();
  });

  const rejected: [string, string][] = [
    ["empty", ""],
    ["whitespace only", "   "],
    ["owner/repo alone", "unjs/h3"],
    ["a word", "h3"],
    ["other host", "https://gitlab.com/unjs/h3"],
    ["look-alike host", "https://github.com.evil.example/unjs/h3"],
    ["subdomain", "https://gist.github.com/unjs/h3"],
    ["host suffix", "https://notgithub.com/unjs/h3"],
    ["api host", "https://api.github.com/repos/unjs/h3"],
    ["raw host", "https://raw.githubusercontent.com/unjs/h3/main/README.md"],
    ["no path", "https://github.com"],
    ["owner only", "https://github.com/unjs"],
    ["owner only with slash", "https://github.com/unjs/"],
    ["ssh owner only", "git@github.com:unjs"],
    ["ssh with extra path", "git@github.com:unjs/h3/extra"],
    ["other scheme", "ftp://github.com/unjs/h3"],
    ["file scheme", "file:///github.com/unjs/h3"],
    ["javascript", "javascript:alert(1)//github.com/unjs/h3"],
    ["space inside", "https://github.com/unjs/h 3"],
    ["reserved orgs", "https://github.com/orgs/unjs"],
    ["reserved orgs with repo-like", "https://github.com/orgs/unjs/repositories"],
    ["reserved settings", "https://github.com/settings/profile"],
    ["reserved marketplace", "https://github.com/marketplace/actions"],
    ["reserved topics", "https://github.com/topics/javascript"],
    ["reserved features", "https://github.com/features/actions"],
    ["reserved about", "https://github.com/about/careers"],
    ["reserved login", "https://github.com/login/oauth"],
    ["reserved sponsors", "https://github.com/sponsors/unjs"],
    ["reserved apps", "https://github.com/apps/renovate"],
    ["reserved users", "https://github.com/users/unjs/projects"],
    ["owner starts with hyphen", "https://github.com/-unjs/h3"],
    ["owner ends with hyphen", "https://github.com/unjs-/h3"],
    ["owner double hyphen", "https://github.com/un--js/h3"],
    ["owner underscore", "https://github.com/un_js/h3"],
    ["owner dot", "https://github.com/un.js/h3"],
    ["owner 40 characters", `https://github.com/${"a".repeat(40)}/h3`],
    ["repo 101 characters", `https://github.com/unjs/${"r".repeat(101)}`],
    ["repo with invalid character", "https://github.com/unjs/h3!"],
    ["repo with encoded space", "https://github.com/unjs/h%203"],
    ["repo .git only", "https://github.com/unjs/.git"],
    ["repo dot", "https://github.com/unjs/."],
    ["repo dot encoded", "https://github.com/unjs/%2E"],
    ["repo dot-dot encoded", "https://github.com/unjs/%2E%2E"],
    ["malformed escape", "https://github.com/unjs/h3%"],
  ];
  it.each(rejected)("rejects %s: %j", (_, link) => {
    expect(parseGitHubLink(link)).toBeNull();
  });
});
