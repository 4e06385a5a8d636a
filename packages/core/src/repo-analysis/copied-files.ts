import type { DockerCopy, DockerStage, ParsedDockerfile } from "./dockerfile-parser.js";
import type { SourceTree } from "./source-tree.js";

/** A file of the repository as the final image holds it. */
export interface CopiedFile {
  /** Absolute path in the image. */
  path: string;
  /** Path in the repository (or `<<EOF` for a heredoc). */
  source: string;
  text: string;
}

/**
 * The files of the repository a stage puts in its image: `COPY`/`ADD` from the build context (plain
 * paths, folders and `*` patterns) and heredocs, and files copied `--from` an earlier stage that got
 * them from the build context. What `RUN` makes or changes is not known. Only files whose image path
 * `wanted` accepts are read.
 */
export function copiedFiles(
  dockerfile: ParsedDockerfile,
  stage: DockerStage,
  tree: SourceTree,
  wanted: (path: string) => boolean,
  contextDir = ""
): CopiedFile[] {
  const files: CopiedFile[] = [];
  for (const copy of stage.copies) {
    if (copy.heredocs.length > 0) {
      for (const heredoc of copy.heredocs) {
        const path = copy.destination.endsWith("/") ? `${copy.destination}${heredoc.name}` : copy.destination;
        if (wanted(path)) files.push({ path, source: `<<${heredoc.name}`, text: heredoc.body });
      }
      continue;
    }
    if (copy.from === null) {
      files.push(...fromContext(copy, tree, contextDir, wanted));
      continue;
    }
    // `COPY --from=build /app/nginx.conf /etc/nginx/…`: where did the build stage get it from?
    const source = dockerfile.stages.find((candidate) => candidate.name === copy.from!.toLowerCase() || String(candidate.index) === copy.from);
    if (!source || source === stage) continue;
    const inSource = copiedFiles(dockerfile, source, tree, () => true, contextDir);
    for (const file of inSource) {
      for (const from of copy.sources) {
        const origin = absolute(from, source.workdir);
        const path =
          file.path === origin
            ? copy.destination.endsWith("/") ? `${copy.destination}${basename(file.path)}` : copy.destination
            : file.path.startsWith(`${origin.replace(/\/$/, "")}/`)
            ? `${copy.destination.replace(/\/$/, "")}/${file.path.slice(origin.replace(/\/$/, "").length + 1)}`
            : null;
        if (path && wanted(path)) files.push({ ...file, path });
      }
    }
  }
  return files;
}

function fromContext(copy: DockerCopy, tree: SourceTree, contextDir: string, wanted: (path: string) => boolean): CopiedFile[] {
  const files: CopiedFile[] = [];
  const prefix = contextDir ? `${contextDir.replace(/\/$/, "")}/` : "";
  for (const raw of copy.sources) {
    if (/^[a-z]+:\/\//i.test(raw)) continue; // ADD of a URL
    const source = raw.replace(/^\.?\/+/, "").replace(/\/+$/, "");
    const pattern = source === "" || source === "." ? null : globPattern(source);
    for (const repoPath of tree.paths()) {
      if (prefix && !repoPath.startsWith(prefix)) continue;
      const path = repoPath.slice(prefix.length);
      let inImage: string | null = null;
      if (source === "" || source === ".") inImage = `${copy.destination.replace(/\/$/, "")}/${path}`;
      else if (pattern!.test(path)) inImage = copy.destination.endsWith("/") ? `${copy.destination}${basename(path)}` : copy.destination;
      else if (!source.includes("*") && path.startsWith(`${source}/`))
        inImage = `${copy.destination.replace(/\/$/, "")}/${path.slice(source.length + 1)}`;
      if (inImage === null || !wanted(inImage)) continue;
      const text = tree.read(repoPath);
      if (text !== null) files.push({ path: inImage, source: repoPath, text });
    }
  }
  return files;
}

function globPattern(source: string): RegExp {
  const escaped = source.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  return new RegExp(`^${escaped}$`);
}

function absolute(path: string, workdir: string): string {
  return path.startsWith("/") ? path : `${workdir.replace(/\/$/, "")}/${path.replace(/^\.\//, "")}`;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
