import { readReadme } from "../generation/readme-reader.js";
import type { ProjectRepository } from "../projects/project.js";

/**
 * The address of the README's logo, or null: the first picture the README reader marks as a logo,
 * in the README's order: one in its `<h1>` before any section, an HTML `<img>` at most 256 wide
 * before the first heading (a centred header), or one whose alt text or file name says logo, icon,
 * wordmark, emblem, brand, banner or mascot. Badges are never one. Relative addresses are made
 * absolute against the repository's raw files.
 */
export function readmeLogo(readme: string | null, repository: Pick<ProjectRepository, "url" | "default_branch">): string | null {
  if (!readme) return null;
  const facts = readReadme(readme, { repositoryUrl: repository.url, defaultBranch: repository.default_branch });
  return facts.images.find((image) => image.logo)?.src ?? null;
}
