/**
 * A repository's main programming language: the language of the largest share of its source files,
 * told by extension, as the code host's own language bar does (GitHub's linguist also counts by
 * extension; it weighs by bytes, we count files, which a tarball listing gives without reading).
 * Documentation, data, configuration and vendored or generated folders do not count.
 */

const EXTENSIONS: Record<string, string> = {
  rs: "Rust",
  go: "Go",
  py: "Python",
  pyi: "Python",
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  vue: "Vue",
  svelte: "Svelte",
  rb: "Ruby",
  php: "PHP",
  java: "Java",
  kt: "Kotlin",
  kts: "Kotlin",
  scala: "Scala",
  swift: "Swift",
  m: "Objective-C",
  mm: "Objective-C",
  c: "C",
  cc: "C++",
  cpp: "C++",
  cxx: "C++",
  hpp: "C++",
  hh: "C++",
  cs: "C#",
  fs: "F#",
  dart: "Dart",
  ex: "Elixir",
  exs: "Elixir",
  erl: "Erlang",
  hs: "Haskell",
  ml: "OCaml",
  clj: "Clojure",
  lua: "Lua",
  jl: "Julia",
  zig: "Zig",
  nim: "Nim",
  r: "R",
  pl: "Perl",
  pm: "Perl",
  sh: "Shell",
  bash: "Shell",
  zsh: "Shell",
  "zsh-theme": "Shell",
  fish: "Shell",
  astro: "Astro",
  ps1: "PowerShell",
  sol: "Solidity",
};

/** Folders of code that is not the project's own (dependencies, builds, generated output). */
const NOT_OWN = /(^|\/)(node_modules|vendor|vendored|third[_-]?party|external|deps|dist|build|target|out|\.git|\.venv|venv|__pycache__|\.next|\.nuxt|coverage)\//i;

/**
 * The language most of the repository's source files are written in, or null when it has none
 * (a documentation or data repository). `.h` headers count for C, or for C++ when the repository
 * has more C++ files than C files. Ties go to the name first in alphabetical order, so the answer is stable.
 */
export function repositoryLanguage(paths: readonly string[]): string | null {
  const counts = new Map<string, number>();
  let headers = 0;
  for (const path of paths) {
    if (NOT_OWN.test(path) || /\.min\.js$|\.d\.ts$/i.test(path)) continue;
    const extension = /\.([a-z0-9]+(?:-theme)?)$/i.exec(path)?.[1]?.toLowerCase();
    if (!extension) continue;
    if (extension === "h") {
      headers++;
      continue;
    }
    const language = EXTENSIONS[extension];
    if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  if (headers) {
    const language = (counts.get("C++") ?? 0) > (counts.get("C") ?? 0) ? "C++" : "C";
    counts.set(language, (counts.get(language) ?? 0) + headers);
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return ranked[0]?.[0] ?? null;
}
