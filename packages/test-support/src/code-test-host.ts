import type { RepoHost } from "@reposite/core";

/**
 * A repo host that knows every `https://code.test/<owner>/<name>`: projects without a network,
 * for tests that need a project but never its source.
 */
export const codeTestHost: RepoHost = {
  id: "code-test",
  parseLink(link) {
    const match = /^https:\/\/code\.test\/([\w-]+)\/([\w-]+)$/.exec(link);
    return match ? { host: "code-test", owner: match[1]!, name: match[2]!, url: link } : null;
  },
  async getRepository(repo) {
    return { owner: repo.owner, name: repo.name, url: repo.url, private: false, description: "Status pages", topics: [], defaultBranch: "main" };
  },
  async getReadme() {
    return "# Lumen";
  },
  async getSourceArchive() {
    throw new Error("code.test serves no source");
  },
};
