/**
 * A repository's files at one ref, as analysis reads them. Paths are relative to the repository
 * root, with `/` separators and no leading `./`.
 */
export interface SourceTree {
  /** Every file path, sorted. */
  paths(): readonly string[];
  /** A file's text, or null when it is missing, binary or too large to read. */
  read(path: string): string | null;
  has(path: string): boolean;
}

/** A source tree from a map of path → text (tests and small fixtures). */
export function sourceTreeFromFiles(files: Record<string, string>): SourceTree {
  const normalized = new Map(Object.entries(files).map(([path, text]) => [path.replace(/^\.?\//, ""), text]));
  const sorted = [...normalized.keys()].sort();
  return {
    paths: () => sorted,
    read: (path) => normalized.get(path.replace(/^\.?\//, "")) ?? null,
    has: (path) => normalized.has(path.replace(/^\.?\//, "")),
  };
}

/** The files under `folder`, as a tree of their own (paths relative to it). */
export function subTree(tree: SourceTree, folder: string): SourceTree {
  const prefix = `${folder.replace(/^\.?\/+|\/+$/g, "")}/`;
  if (prefix === "/") return tree;
  const inside = tree
    .paths()
    .filter((path) => path.startsWith(prefix))
    .map((path) => path.slice(prefix.length));
  const set = new Set(inside);
  const clean = (path: string) => path.replace(/^\.?\//, "");
  return {
    paths: () => inside,
    read: (path) => tree.read(prefix + clean(path)),
    has: (path) => set.has(clean(path)),
  };
}
