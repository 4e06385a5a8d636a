export { parseGitHubLink } from "./parse-github-link.js";
export { createGitHubRepoHost, type GitHubRepoHostOptions } from "./github-repo-host.js";
