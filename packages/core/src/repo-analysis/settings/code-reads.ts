import type { CodeFile } from "./code-files.js";
import type { Mention } from "./mention.js";

/**
 * Settings the code reads, and whether it fails without them. Patterns, not parsers: each read is
 * judged by the text right around it.
 *
 * Reads: `process.env.X`, `process.env["X"]`, `const { X = "d" } = process.env`, `Bun.env.X`,
 * `import.meta.env.X`, `Deno.env.get("X")`; `os.environ["X"]`, `os.environ.get("X", d)`,
 * `os.getenv("X", d)`, django-environ/environs/python-decouple `env("X")`/`env.bool("X", default=…)`/
 * `config("X")`; `os.Getenv("X")`, `os.LookupEnv("X")`; Rust `env::var("X")`; Ruby `ENV["X"]`,
 * `ENV.fetch("X")`; PHP `getenv("X")`, `env("X", d)`; shell `${X:?…}`, `${X:-d}`.
 *
 * A read is
 * - required (true) when the program fails without the value: Python's `os.environ["X"]` and
 *   `env("X")`/`config("X")` without a default, Ruby's `ENV.fetch("X")`, Rust's `.unwrap()`/`.expect()`/`?`,
 *   TypeScript's `process.env.X!`, shell `${X:?}`, or a check that throws or exits when it is missing
 *   (`if (!process.env.X) throw …`, `if not key: sys.exit(…)`, `if token == "" { log.Fatal(…) }`), and
 *   Django's `SECRET_KEY` read without a default (Django refuses to start with an empty one);
 * - optional (false) when the code has a default (`?? "d"`, `|| "d"`, `.get("X", "d")`,
 *   `if v == "" { v = "d" }`, `unwrap_or`) or only tests it (`if (process.env.X)`, `=== "true"`);
 * - neither otherwise (the value is passed on as it is).
 */
export function fromCodeReads(files: CodeFile[]): Mention[] {
  const mentions: Mention[] = [];
  for (const file of files) {
    for (const read of readsIn(file)) {
      if (IGNORED.test(read.name)) continue;
      mentions.push({
        name: read.name,
        description: "",
        value: read.value,
        required: read.required,
        source: "code",
      });
    }
  }
  return mentions;
}

/** Whether the program reads `PORT` from its environment (and so listens where it is told). */
export function readsPort(files: CodeFile[]): boolean {
  return files.some((file) => readsIn(file).some((read) => read.name === "PORT"));
}

/** Names set by platforms, runtimes and tools rather than by the app's owner. */
const IGNORED =
  /^(PORT|NODE_ENV|HOSTNAME|HOME|PATH|PWD|USER|SHELL|TERM|TZ|LANG|CI|MODE|DEV|PROD|SSR|BASE_URL|NEXT_RUNTIME|NEXT_PHASE|NODE_OPTIONS|NODE_DEBUG|FORCE_COLOR|NO_COLOR|JEST_WORKER_ID|VITEST|TEST|DYNO|PYTHONPATH|VIRTUAL_ENV|GOPATH|GOOS|GOARCH|npm_.*|(VERCEL|NETLIFY|RENDER|RAILWAY|FLY|HEROKU|GITHUB|GITLAB|KUBERNETES|AWS_LAMBDA|CF_PAGES|K)_[A-Z0-9_]*|VERCEL|NETLIFY|RENDER|NEXT_PUBLIC_VERCEL_[A-Z0-9_]*|__[A-Z0-9_]*)$/;

interface Read {
  name: string;
  required: boolean | undefined;
  value: string | null;
}

function readsIn(file: CodeFile): Read[] {
  const text = file.text;
  if (/\.py$/i.test(file.path)) return pythonReads(text);
  if (/\.go$/i.test(file.path)) return goReads(text);
  if (/\.rs$/i.test(file.path)) return rustReads(text);
  if (/\.rb$/i.test(file.path)) return rubyReads(text);
  if (/\.php$/i.test(file.path)) return phpReads(text);
  if (/\.sh$/i.test(file.path)) return shellReads(text);
  return javascriptReads(text);
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
/** A check that stops the program: `throw`, `process.exit`, `sys.exit`, `raise`, `log.Fatal`, `panic`… */
const FAILS = /\bthrow\b|process\.exit\s*\(|Deno\.exit\s*\(|\bsys\.exit\s*\(|\bexit\s*\(\s*[1-9"']|\braise\b|\blog\.(Fatal|Panic)|\bpanic\s*\(|\bos\.Exit\s*\(\s*[1-9]|\bFatalf?\s*\(/;

/** A string or number literal at the start of `text`, unquoted; null when there is none. */
function literalAt(text: string): string | null {
  const match = /^\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$\n]*)`|(-?\d+(?:\.\d+)?)\b)/.exec(text);
  return match ? match[1] ?? match[2] ?? match[3] ?? match[4] ?? null : null;
}

/** Whether code near `at` checks `subject` is missing and then stops the program. */
function guardedAndFails(text: string, at: number, subject: string, language: "js" | "py" | "go" | "rb"): boolean {
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const checks = {
    js: `if\\s*\\([^)]*(!\\s*${escaped}\\b|\\b${escaped}\\s*(===?\\s*(undefined|null|""|'')|==\\s*null))`,
    py: `if\\s+(not\\s+${escaped}\\b|${escaped}\\s+is\\s+None|${escaped}\\s*==\\s*(""|''))`,
    go: `if\\s+${escaped}\\s*==\\s*""\\s*\\{`,
    rb: `(unless\\s+${escaped}\\b|if\\s+${escaped}\\.(nil\\?|blank\\?|empty\\?))`,
  }[language];
  const guard = new RegExp(checks, "g");
  guard.lastIndex = Math.max(0, at - 300);
  for (let match = guard.exec(text); match && match.index < at + 2000; match = guard.exec(text)) {
    if (FAILS.test(text.slice(match.index, match.index + match[0].length + 250))) return true;
  }
  return false;
}

/** `const name = <read>` / `name := <read>` / `NAME = <read>` right before a read: the variable it lands in. */
function assignedTo(before: string): string | null {
  const match = /(?:\b(?:const|let|var)\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*(?::\s*[\w<>|\[\] ]+)?(?::=|=)\s*$/.exec(before);
  return match && !/[=!<>]=\s*$/.test(before) ? match[1]! : null;
}

// ---------------------------------------------------------------------------------------------
// JavaScript and TypeScript

const VITE_OWN = /^(MODE|DEV|PROD|SSR|BASE_URL)$/;

function javascriptReads(text: string): Read[] {
  const reads: Read[] = [];
  const access = new RegExp(
    `\\b(process\\.env|Bun\\.env|import\\.meta\\.env)\\s*(?:\\.\\s*(${NAME})|\\[\\s*(["'\`])(${NAME})\\3\\s*\\])|\\bDeno\\.env\\.get\\(\\s*(["'\`])(${NAME})\\5\\s*\\)`,
    "g"
  );
  for (const match of text.matchAll(access)) {
    const name = match[2] ?? match[4] ?? match[6]!;
    if (match[1] === "import.meta.env" && VITE_OWN.test(name)) continue;
    const start = match.index;
    const end = start + match[0].length;
    reads.push({ name, ...judgeJavascript(text, start, end) });
  }
  // const { A, B = "d", C: c } = process.env
  const destructuring = /\{([^{}]*)\}\s*=\s*(?:process\.env|Bun\.env|import\.meta\.env)\b/g;
  for (const match of text.matchAll(destructuring)) {
    for (const part of match[1]!.split(",")) {
      const item = new RegExp(`^\\s*(${NAME})\\s*(?::\\s*(${NAME}))?\\s*(?:=\\s*([\\s\\S]*))?$`).exec(part);
      if (!item || !/^[A-Z]/.test(item[1]!)) continue;
      const variable = item[2] ?? item[1]!;
      const required = item[3] !== undefined ? false : guardedAndFails(text, match.index, variable, "js") ? true : undefined;
      reads.push({ name: item[1]!, required, value: item[3] !== undefined ? literalAt(item[3]) : null });
    }
  }
  return reads;
}

function judgeJavascript(text: string, start: number, end: number): Omit<Read, "name"> {
  const after = text.slice(end, end + 200);
  const before = text.slice(Math.max(0, start - 200), start);
  const fallback = /^\s*(\?\?|\|\|)\s*/.exec(after);
  if (fallback) return { required: false, value: literalAt(after.slice(fallback[0].length)) };
  if (/^\s*!(?!=)/.test(after)) return { required: true, value: null };
  if (/!\s*$/.test(before)) return { required: guardedAndFails(text, start, text.slice(start, end), "js") ? true : false, value: null };
  if (/^\s*(\?(?![?.])|&&|[!=]==?|\)\s*\{)/.test(after) || /(\bif\s*\(|\?|&&|\|\||[!=]==?)\s*$/.test(before))
    return { required: false, value: null };
  const variable = assignedTo(before);
  if (variable && guardedAndFails(text, end, variable, "js")) return { required: true, value: null };
  return { required: undefined, value: null };
}

// ---------------------------------------------------------------------------------------------
// Python

const PY_ENV_LIBRARY = /^\s*(import\s+environ|from\s+environs\s+import|from\s+decouple\s+import|import\s+decouple)\b/m;

function pythonReads(text: string): Read[] {
  const reads: Read[] = [];
  const django = /\bINSTALLED_APPS\b|\bdjango\b/.test(text);
  const push = (name: string, at: number, required: boolean | undefined, value: string | null) => {
    const line = text.slice(text.lastIndexOf("\n", at) + 1, at);
    // Django refuses to start with an empty SECRET_KEY.
    if (django && name === "SECRET_KEY" && /^\s*SECRET_KEY\s*=/.test(line) && required === undefined) required = true;
    reads.push({ name, required, value });
  };
  for (const match of text.matchAll(new RegExp(`\\bos\\.environ\\s*\\[\\s*(["'])(${NAME})\\1\\s*\\]`, "g"))) {
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 5);
    if (/^\s*=(?!=)/.test(after)) continue; // the code sets it
    // `if "X" in os.environ: … os.environ["X"]`: read only when it is there.
    const before = text.slice(Math.max(0, match.index - 300), match.index);
    const tested = new RegExp(`\\bif\\s+(["'])${match[2]}\\1\\s+in\\s+os\\.environ\\b`).test(before);
    push(match[2]!, match.index, !tested, null);
  }
  const getter = new RegExp(`\\b(?:os\\.environ\\.get|os\\.getenv|environ\\.get)\\(\\s*(["'])(${NAME})\\1\\s*(?:,\\s*([^)]*?))?\\s*\\)`, "g");
  for (const match of text.matchAll(getter)) {
    const fallback = match[3];
    if (fallback !== undefined && !/^None$/.test(fallback.trim())) {
      push(match[2]!, match.index, false, literalAt(fallback));
      // `os.environ.get("A", os.environ.get("B"))`: B is only A's fallback.
      const inner = new RegExp(`^(?:os\\.environ\\.get|os\\.getenv|environ\\.get)\\(\\s*(["'])(${NAME})\\1`).exec(fallback.trim());
      if (inner) push(inner[2]!, match.index, false, null);
      continue;
    }
    const before = text.slice(Math.max(0, match.index - 200), match.index);
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 40);
    const variable = assignedTo(before);
    if (/\bnot\s*$/.test(before)) push(match[2]!, match.index, guardedAndFailsInline(text, match.index) ? true : false, null);
    else if (variable && guardedAndFails(text, match.index, variable, "py")) push(match[2]!, match.index, true, null);
    else if (/^\s*(or\b|==|!=|\bin\b|\bis\b)/.test(after) || /\bif\s+$/.test(before)) push(match[2]!, match.index, false, literalAt(after.replace(/^\s*or\s*/, "")));
    else push(match[2]!, match.index, undefined, null);
  }
  if (PY_ENV_LIBRARY.test(text)) {
    const library = new RegExp(`\\b(?:env|config)(?:\\.[a-z_]+)?\\(\\s*(["'])(${NAME})\\1\\s*(,[^)]*)?\\)`, "g");
    for (const match of text.matchAll(library)) {
      const defaultArgument = /\bdefault\s*=\s*([^,)]*)/.exec(match[3] ?? "");
      if (defaultArgument) push(match[2]!, match.index, false, literalAt(defaultArgument[1]!));
      else push(match[2]!, match.index, true, null);
    }
  }
  return reads;
}

/** `if not os.environ.get("X"): raise …` on one line or the next few. */
function guardedAndFailsInline(text: string, at: number): boolean {
  return FAILS.test(text.slice(at, at + 250));
}

// ---------------------------------------------------------------------------------------------
// Go, Rust, Ruby, PHP, shell

function goReads(text: string): Read[] {
  const reads: Read[] = goHelperReads(text);
  for (const match of text.matchAll(new RegExp(`\\bos\\.(Getenv|LookupEnv)\\(\\s*"(${NAME})"\\s*\\)`, "g"))) {
    if (match[1] === "LookupEnv") {
      reads.push({ name: match[2]!, required: false, value: null });
      continue;
    }
    const before = text.slice(Math.max(0, match.index - 200), match.index);
    // `flag.String("name", os.Getenv("X"), …)`: the value is only a flag's default.
    if (/\bflag\.[A-Za-z]+\([^()]*$/.test(before)) {
      reads.push({ name: match[2]!, required: false, value: null });
      continue;
    }
    const variable = assignedTo(before);
    if (!variable) {
      const after = text.slice(match.index + match[0].length, match.index + match[0].length + 20);
      reads.push({ name: match[2]!, required: /^\s*[!=]=/.test(after) ? false : undefined, value: null });
      continue;
    }
    const check = new RegExp(`if\\s+${variable.replace(/\./g, "\\.")}\\s*==\\s*""\\s*\\{([^}]*)\\}`).exec(text.slice(match.index, match.index + 2000));
    if (!check) reads.push({ name: match[2]!, required: undefined, value: null });
    else if (FAILS.test(check[1]!)) reads.push({ name: match[2]!, required: true, value: null });
    else {
      const fallback = new RegExp(`${variable.replace(/\./g, "\\.")}\\s*=\\s*("[^"]*")`).exec(check[1]!);
      reads.push({ name: match[2]!, required: false, value: fallback ? literalAt(fallback[1]!) : null });
    }
  }
  return reads;
}

/**
 * Reads through a helper of the same file that wraps `os.Getenv(key)` with a fallback, the common
 * `func getEnv(key, fallback string) string`: `getEnv("X", "d")` reads X with the default "d".
 */
function goHelperReads(text: string): Read[] {
  const reads: Read[] = [];
  const helper = /\bfunc\s+([A-Za-z_]\w*)\s*\(\s*(\w+)\s*,\s*(\w+)\s+string\s*\)[^{]*\{/g;
  for (const found of text.matchAll(helper)) {
    const [, name, key] = found;
    const body = text.slice(found.index + found[0].length, found.index + found[0].length + 600);
    if (!new RegExp(`\\bos\\.(Getenv|LookupEnv)\\(\\s*${key}\\s*\\)`).test(body)) continue;
    for (const call of text.matchAll(new RegExp(`\\b${name}\\(\\s*"(${NAME})"\\s*,\\s*`, "g"))) {
      reads.push({ name: call[1]!, required: false, value: literalAt(text.slice(call.index + call[0].length)) });
    }
  }
  return reads;
}

function rustReads(text: string): Read[] {
  const reads: Read[] = [];
  for (const match of text.matchAll(new RegExp(`\\b(?:std::)?(?:env|dotenvy)::var(?:_os)?\\(\\s*"(${NAME})"\\s*\\)`, "g"))) {
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 120);
    if (/^\s*(\.\s*(expect|unwrap)\s*\(|\?)/.test(after)) reads.push({ name: match[1]!, required: true, value: null });
    else if (/^\s*\.\s*(unwrap_or|unwrap_or_else|unwrap_or_default|ok|is_ok|is_err|map|and_then)\b/.test(after)) {
      const fallback = /^\s*\.\s*unwrap_or(?:_else)?\(\s*(?:\|[^|]*\|\s*)?/.exec(after);
      reads.push({ name: match[1]!, required: false, value: fallback ? literalAt(after.slice(fallback[0].length)) : null });
    } else reads.push({ name: match[1]!, required: undefined, value: null });
  }
  return reads;
}

function rubyReads(text: string): Read[] {
  const reads: Read[] = [];
  for (const match of text.matchAll(new RegExp(`\\bENV\\.fetch\\(\\s*["'](${NAME})["']\\s*(,\\s*[^)]*)?\\)(\\s*\\{)?`, "g"))) {
    const defaulted = match[2] !== undefined || match[3] !== undefined;
    reads.push({ name: match[1]!, required: !defaulted, value: match[2] ? literalAt(match[2].replace(/^\s*,/, "")) : null });
  }
  for (const match of text.matchAll(new RegExp(`\\bENV\\[\\s*["'](${NAME})["']\\s*\\]`, "g"))) {
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 80);
    if (/^\s*=(?!=)/.test(after)) continue;
    const fallback = /^\s*(\|\||\bor\b)\s*/.exec(after);
    const before = text.slice(Math.max(0, match.index - 200), match.index);
    const variable = assignedTo(before);
    if (fallback) reads.push({ name: match[1]!, required: false, value: literalAt(after.slice(fallback[0].length)) });
    else if (variable && guardedAndFails(text, match.index, variable, "rb")) reads.push({ name: match[1]!, required: true, value: null });
    else reads.push({ name: match[1]!, required: /^\s*(\.present\?|\.nil\?|==|!=)/.test(after) ? false : undefined, value: null });
  }
  return reads;
}

function phpReads(text: string): Read[] {
  const reads: Read[] = [];
  for (const match of text.matchAll(new RegExp(`\\b(?:getenv|env)\\(\\s*["'](${NAME})["']\\s*(,\\s*[^)]*)?\\)`, "g"))) {
    reads.push({ name: match[1]!, required: match[2] ? false : undefined, value: match[2] ? literalAt(match[2].replace(/^\s*,/, "")) : null });
  }
  for (const match of text.matchAll(new RegExp(`\\$_(?:ENV|SERVER)\\[\\s*["'](${NAME})["']\\s*\\]`, "g"))) {
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 60);
    const fallback = /^\s*\?\?\s*/.exec(after);
    reads.push({ name: match[1]!, required: fallback ? false : undefined, value: fallback ? literalAt(after.slice(fallback[0].length)) : null });
  }
  return reads;
}

function shellReads(text: string): Read[] {
  const reads: Read[] = [];
  for (const match of text.matchAll(new RegExp(`\\$\\{(${NAME})(:?)([?-])([^}]*)\\}`, "g"))) {
    reads.push(match[3] === "?" ? { name: match[1]!, required: true, value: null } : { name: match[1]!, required: false, value: match[4]! });
  }
  return reads;
}
