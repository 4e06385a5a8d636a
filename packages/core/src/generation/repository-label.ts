import { fileURLToPath } from "node:url";

/**
 * How a page names the repository a site was made from: its web address without the scheme
 * (`github.com/owner/name`), or, for a folder on the server (`file:` links), only the folder's
 * name. A server's paths are its operator's business, never a visitor's, nor a model's to repeat.
 */
export function repositoryLabel(url: string): string {
  if (/^file:/i.test(url)) {
    try {
      const path = fileURLToPath(url).replace(/[\\/]+$/, "");
      return path.slice(path.lastIndexOf("/") + 1) || "local folder";
    } catch {
      return "local folder";
    }
  }
  return url.replace(/^[a-z+]+:\/\//i, "").replace(/\/$/, "");
}
