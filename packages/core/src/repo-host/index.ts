export { parseGitHubLink } from "./parse-github-link.js";
export { createGitHubRepoHost, type GitHubRepoHostOptions } from "./github-repo-host.js";
export { createGitHubOAuth, type GitHubOAuthOptions } from "./github-oauth.js";
export { createGitRepoHost, parseGitLink, type GitRepoHostOptions } from "./git-repo-host.js";
export { createLocalRepoHost, type LocalRepoHostOptions } from "./local-repo-host.js";
