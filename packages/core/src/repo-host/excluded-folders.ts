/**
 * Folders that are never part of a repository's source: installed packages and git's own data.
 * Archives leave them out, and a link that names one (or a folder inside one) names no repository.
 */
export const EXCLUDED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/** True when a segment of `path` (split on `/`) is an excluded folder; case-insensitive, as some file systems are. */
export function namesExcludedFolder(path: string): boolean {
  return path.split("/").some((segment) => EXCLUDED_FOLDERS.has(segment.toLowerCase()));
}
