import type { SourceTree } from "../source-tree.js";

/**
 * The repository's own program code, where settings are read: JavaScript/TypeScript, Python, Go,
 * Rust, Ruby, PHP, shell. Tests, examples, docs, scripts, dependencies, build output and the config
 * of test tools are left out: what they read is not what the deployed app needs.
 */
const CODE = /\.(m?[jt]sx?|c[jt]s|svelte|vue|astro|py|go|rs|rb|php|sh|ex|exs)$/i;
const SKIPPED_FOLDER =
  /(^|\/)(node_modules|vendor|\.git|\.github|\.next|\.nuxt|\.svelte-kit|dist|build|out|coverage|target|venv|\.venv|site-packages|test|tests|__tests__|spec|e2e|cypress|playwright|fixtures|testdata|examples?|samples?|docs?|scripts|migrations|stories|\.storybook)\//i;
const SKIPPED_FILE =
  /(\.|_)(test|spec|stories)\.[a-z]+$|_test\.go$|(^|\/)(test_[^/]*|conftest)\.py$|(^|\/)(jest|vitest|playwright|cypress|eslint|prettier|tailwind|postcss|babel|commitlint|lint-staged)\.config\.[a-z]+$|\.d\.ts$/i;
/** Files larger than this are generated or bundled code. */
const MAX_CODE_CHARS = 200_000;

export interface CodeFile {
  path: string;
  text: string;
}

export function codeFiles(tree: SourceTree): CodeFile[] {
  const files: CodeFile[] = [];
  for (const path of tree.paths()) {
    if (!CODE.test(path) || SKIPPED_FOLDER.test(path) || SKIPPED_FILE.test(path)) continue;
    const text = tree.read(path);
    if (text !== null && text.length <= MAX_CODE_CHARS) files.push({ path, text });
  }
  return files;
}

/** Whether the name appears as a word anywhere in the code (a read the patterns do not know still counts). */
export function mentionedInCode(files: CodeFile[], name: string): boolean {
  const word = new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`);
  return files.some((file) => word.test(file.text));
}
