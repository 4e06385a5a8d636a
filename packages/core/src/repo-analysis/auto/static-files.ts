import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { staticServerFiles, writeStaticStage } from "./static-server.js";
import { hasFolder, type Detector } from "./types.js";

/**
 * Plain static files, served as they are: the folder named by a `Staticfile` (`root: site`), else
 * `public/` when it holds an index.html, else the repository root when it holds index.html, else
 * any `public/` folder. Nothing is installed or built.
 */
export const staticFilesDetector: Detector = {
  family: "static",
  detect({ tree, images }) {
    const folder = staticRoot(tree);
    if (folder === null) return null;
    const dockerfile = new DockerfileWriter();
    const warnings = rootRelativeLinks(tree, folder);
    for (const warning of warnings) dockerfile.comment(`Warning: ${warning}`);
    writeStaticStage(dockerfile, { image: images.static, folder });
    return {
      name: "Static site",
      install: null,
      build: null,
      output: folder,
      dockerfile: dockerfile.toString(),
      contextFiles: staticServerFiles(),
      warnings,
    };
  },
};

function staticRoot(tree: SourceTree): string | null {
  const configured = /^\s*root\s*:\s*["']?([^"'\s#]+)["']?/m.exec(tree.read("Staticfile") ?? "")?.[1];
  if (configured) return configured.replace(/^\.\/+/, "").replace(/\/+$/, "") || ".";
  if (tree.has("public/index.html")) return "public";
  if (tree.has("index.html")) return ".";
  if (hasFolder(tree, "public")) return "public";
  return null;
}

/** Links like `href="/style.css"` leave `/app/` in the browser; relative links keep working. */
function rootRelativeLinks(tree: SourceTree, folder: string): string[] {
  const page = folder === "." ? "index.html" : `${folder}/index.html`;
  const html = tree.read(page) ?? "";
  const link = /\b(?:href|src)\s*=\s*["'](\/(?!\/)[^"']*)["']/i.exec(html)?.[1];
  if (!link) return [];
  return [
    `${page} links to "${link}" from the site root; the app is served under /app/, so write it relative ("${link.replace(/^\/+/, "") || "./"}").`,
  ];
}
