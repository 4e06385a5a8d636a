import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { CorpusEntry, CorpusEntryFile } from "./types.js";

export type { CorpusEntry, CorpusEntryFile, CorpusExpectation, CorpusOrigin } from "./types.js";
export { judgeRepoCheck, type CorpusVerdict, type RepoCheckAnswer } from "./judge.js";

const CORPUS_FOLDER = fileURLToPath(new URL(".", import.meta.url));

/** Every entry of the real-repository corpus (see README.md in this folder), by folder name. */
export function loadRepoCorpus(): CorpusEntry[] {
  return readdirSync(CORPUS_FOLDER, { withFileTypes: true })
    .filter((item) => item.isDirectory())
    .map((item) => item.name)
    .sort()
    .map(loadEntry);
}

function loadEntry(id: string): CorpusEntry {
  const folder = join(CORPUS_FOLDER, id);
  const entry = JSON.parse(readFileSync(join(folder, "entry.json"), "utf8")) as CorpusEntryFile;
  const filesFolder = join(folder, "files");
  const contents: Record<string, string> = {};
  for (const path of listFiles(filesFolder)) contents[path] = readFileSync(join(filesFolder, path), "utf8");
  return { ...entry, id, contents };
}

function listFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(folder, path).split(sep).join("/"));
    }
  };
  walk(folder);
  return found.sort();
}
