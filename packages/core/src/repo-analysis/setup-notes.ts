import { analyzeParsedDockerfile, knownImageDefaults } from "./dockerfile-analysis.js";
import { finalStage, parseDockerfile, type ParsedDockerfile } from "./dockerfile-parser.js";
import { COMPOSE_FILES, composeAppServices, parseMemory, readComposeServices } from "./find-dockerfile.js";
import type { SetupNote } from "./repo-check.js";
import { readToml, tomlStrings, tomlTable, type TomlTable } from "./formats/toml.js";
import { codeFiles } from "./settings/code-files.js";
import { readsPort } from "./settings/code-reads.js";
import { EXAMPLE_ENV_FILES } from "./settings/env-files.js";
import type { SourceTree } from "./source-tree.js";

/** Memory of the free tier, in MB. */
export const FREE_MEMORY_MB = 512;
/** Added to a heap limit (`--max-old-space-size`, `-Xmx`): the process needs more than its heap. */
export const HEAP_HEADROOM_MB = 256;
/** The port the service gives an app unless told otherwise. */
const DEFAULT_PORT = 3000;

export interface SetupNotesContext {
  /** What auto-detection found, e.g. `Next.js (server)`; undefined when nothing was detected. */
  detected?: string;
  /** The text of the Dockerfile that would be built; null or undefined without one. */
  dockerfile?: string | null;
}

/**
 * Notes for the owner before a first deploy, in this order:
 *
 * - `memory` (with `needed_mb`, the largest of the reasons found) when the app or its build wants
 *   more than the free 512 MB: a heap limit above 512 MB (`--max-old-space-size=N` or `-Xmx` in the
 *   Dockerfile or a package.json script: N + 256 MB), a heavy front-end build (Next.js, Nuxt, Angular,
 *   SvelteKit, Astro, Gatsby, Remix: 1024 MB; from `detected` or a dependency plus a `build` script),
 *   machine-learning Python packages (torch, tensorflow, transformers, jax, …: 2048 MB), a JVM build
 *   (`pom.xml`, `build.gradle`: 1024 MB), or a memory setting above 512 MB in a compose file
 *   (`deploy.resources.limits.memory`, `mem_limit`) or `fly.toml` (`memory`, `memory_mb`);
 * - `port` when the Dockerfile of a web app exposes (or its copied server config listens on) a port
 *   other than 3000, or none at all while the code does not read `PORT`;
 * - `entrypoint` when the final stage's `ENTRYPOINT` waits for a command and no `CMD` follows it;
 * - `listen` when the start command binds to `127.0.0.1`/`localhost`, which cannot be reached;
 * - `volume` when the app keeps data on disk: `VOLUME` in the Dockerfile, SQLite (Prisma schema,
 *   `better-sqlite3`/`sqlite3`, a Django `sqlite3` setting, a `file:`/`sqlite:` database URL, a
 *   committed `.db`/`.sqlite` file) or uploads (an `uploads/` folder, `multer`); it names the
 *   `volume_path` to set (the Dockerfile's `VOLUME`, else `/data`).
 */
export function findSetupNotes(tree: SourceTree, context: SetupNotesContext): SetupNote[] {
  const dockerfile = context.dockerfile ? parseDockerfile(context.dockerfile, { imageDefaults: knownImageDefaults }) : null;
  const notes: SetupNote[] = [];
  const memory = memoryNote(tree, context);
  if (memory) notes.push(memory);
  notes.push(...portNotes(tree, dockerfile));
  const entrypoint = dockerfile ? entrypointNote(tree, dockerfile) : null;
  if (entrypoint) notes.push(entrypoint);
  const volume = volumeNote(tree, dockerfile);
  if (volume) notes.push(volume);
  return notes;
}

// ---------------------------------------------------------------------------------------------
// Memory

interface MemoryReason {
  mb: number;
  why: string;
}

function memoryNote(tree: SourceTree, context: SetupNotesContext): SetupNote | null {
  const packageJson = readPackageJson(tree);
  const reasons = [
    ...heapLimits(context.dockerfile ?? "", "the Dockerfile"),
    ...Object.entries(packageJson?.scripts ?? {}).flatMap(([name, script]) =>
      heapLimits(script, `the package.json script "${name}"`)
    ),
    ...frameworkBuilds(packageJson, context.detected),
    ...pythonPackages(tree),
    ...jvmBuilds(tree),
    ...memorySettings(tree),
  ].filter((reason) => reason.mb > FREE_MEMORY_MB);
  if (reasons.length === 0) return null;

  const unique = [...new Map(reasons.map((reason) => [reason.why, reason])).values()];
  unique.sort((a, b) => b.mb - a.mb || (a.why < b.why ? -1 : a.why > b.why ? 1 : 0));
  const needed = unique[0]!.mb;
  const list = unique.map((reason) => `${reason.why} (${reason.mb} MB)`).join("; ");
  return {
    kind: "memory",
    message: `This app wants about ${needed} MB of memory, more than the free ${FREE_MEMORY_MB} MB: ${list}.`,
    needed_mb: needed,
  };
}

function heapLimits(text: string, where: string): MemoryReason[] {
  const reasons: MemoryReason[] = [];
  for (const match of text.matchAll(/--max[-_]old[-_]space[-_]size[= ](\d+)/g)) {
    const heap = Number(match[1]);
    if (heap > FREE_MEMORY_MB)
      reasons.push({ mb: heap + HEAP_HEADROOM_MB, why: `--max-old-space-size=${heap} in ${where}, plus headroom` });
  }
  for (const match of text.matchAll(/-Xmx(\d+)([kKmMgG])\b/g)) {
    const heap = parseMemory(`${match[1]}${match[2]}`) ?? 0;
    if (heap > FREE_MEMORY_MB)
      reasons.push({ mb: heap + HEAP_HEADROOM_MB, why: `-Xmx${match[1]}${match[2]} in ${where}, plus headroom` });
  }
  return reasons;
}

const HEAVY_BUILDS: Array<{ name: string; detected: RegExp; dependency: (name: string) => boolean }> = [
  { name: "Next.js", detected: /\bnext(\.?js)?\b/i, dependency: (name) => name === "next" },
  { name: "Nuxt", detected: /\bnuxt\b/i, dependency: (name) => name === "nuxt" || name === "nuxt3" },
  { name: "Angular", detected: /\bangular\b/i, dependency: (name) => name === "@angular/core" },
  { name: "SvelteKit", detected: /\bsvelte\s?kit\b/i, dependency: (name) => name === "@sveltejs/kit" },
  { name: "Astro", detected: /\bastro\b/i, dependency: (name) => name === "astro" },
  { name: "Gatsby", detected: /\bgatsby\b/i, dependency: (name) => name === "gatsby" },
  { name: "Remix", detected: /\bremix\b/i, dependency: (name) => name.startsWith("@remix-run/") },
];
const HEAVY_BUILD_MB = 1024;

function frameworkBuilds(packageJson: PackageJson | null, detected: string | undefined): MemoryReason[] {
  const dependencies = Object.keys({ ...packageJson?.dependencies, ...packageJson?.devDependencies });
  const builds = packageJson?.scripts?.build !== undefined;
  return HEAVY_BUILDS.filter(
    (framework) =>
      (detected !== undefined && framework.detected.test(detected)) || (builds && dependencies.some(framework.dependency))
  ).map((framework) => ({ mb: HEAVY_BUILD_MB, why: `building ${framework.name}` }));
}

/** Python packages that pull in a machine-learning runtime, by normalized name. */
const HEAVY_PYTHON: Record<string, string> = {
  torch: "PyTorch",
  torchvision: "PyTorch",
  torchaudio: "PyTorch",
  tensorflow: "TensorFlow",
  "tensorflow-cpu": "TensorFlow",
  "tensorflow-gpu": "TensorFlow",
  "tf-nightly": "TensorFlow",
  keras: "Keras",
  transformers: "Hugging Face Transformers",
  "sentence-transformers": "sentence-transformers",
  jax: "JAX",
  jaxlib: "JAX",
};
const HEAVY_PYTHON_MB = 2048;

const REQUIREMENT = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:[<>=!~;[@ ]|$)/;

/**
 * Package names from requirements files (one requirement a line), `pyproject.toml` (PEP 621
 * `project.dependencies` and optional dependencies, PEP 735 `dependency-groups`, Poetry's
 * `tool.poetry.dependencies` and groups) and `Pipfile` (`packages`, `dev-packages`).
 */
function pythonPackages(tree: SourceTree): MemoryReason[] {
  const files = tree
    .paths()
    .filter((path) => /^requirements[\w.-]*\.(txt|in)$/i.test(path) || path === "pyproject.toml" || path === "Pipfile");
  const reasons: MemoryReason[] = [];
  for (const file of files) {
    const text = tree.read(file);
    if (text === null) continue;
    const names = /\.(txt|in)$/.test(file)
      ? text.split(/\r?\n/).map((line) => REQUIREMENT.exec(line)?.[1] ?? "")
      : tomlPackageNames(readToml(text));
    const labels = new Set(names.map((name) => HEAVY_PYTHON[name.toLowerCase().replace(/[._]/g, "-")]));
    for (const label of labels) if (label !== undefined) reasons.push({ mb: HEAVY_PYTHON_MB, why: `${label} in ${file}` });
  }
  return reasons;
}

function tomlPackageNames(toml: TomlTable | null): string[] {
  if (toml === null) return [];
  const requirementNames = (list: unknown) => tomlStrings(list).map((requirement) => REQUIREMENT.exec(requirement)?.[1] ?? "");
  const project = tomlTable(toml, "project");
  const poetry = tomlTable(toml, "tool", "poetry");
  return [
    ...requirementNames(project?.dependencies),
    ...Object.values(tomlTable(project, "optional-dependencies") ?? {}).flatMap(requirementNames),
    ...Object.values(tomlTable(toml, "dependency-groups") ?? {}).flatMap(requirementNames),
    ...Object.keys(tomlTable(poetry, "dependencies") ?? {}),
    ...Object.values(tomlTable(poetry, "group") ?? {}).flatMap((group) => Object.keys(tomlTable({ group }, "group", "dependencies") ?? {})),
    ...Object.keys(tomlTable(toml, "packages") ?? {}),
    ...Object.keys(tomlTable(toml, "dev-packages") ?? {}),
  ];
}

const JVM_MB = 1024;

function jvmBuilds(tree: SourceTree): MemoryReason[] {
  const tool = tree.has("pom.xml") ? "Maven" : tree.has("build.gradle") || tree.has("build.gradle.kts") ? "Gradle" : null;
  return tool ? [{ mb: JVM_MB, why: `a ${tool} build on the JVM` }] : [];
}

function memorySettings(tree: SourceTree): MemoryReason[] {
  const reasons: MemoryReason[] = [];
  for (const file of COMPOSE_FILES) {
    const text = tree.read(file);
    if (text === null) continue;
    for (const service of composeAppServices(readComposeServices(text))) {
      if (service.memoryLimitMb !== null) {
        reasons.push({ mb: service.memoryLimitMb, why: `the memory limit of the service "${service.name}" in ${file}` });
      }
    }
  }
  // fly.toml: `[[vm]]` (or `[vm]`) `memory = "1gb"` / `memory_mb = 1024`, or the older top-level keys.
  const fly = readToml(tree.read("fly.toml") ?? "");
  if (fly !== null) {
    const vms = Array.isArray(fly.vm) ? fly.vm : [fly.vm ?? fly];
    for (const vm of vms) {
      const table = tomlTable({ vm }, "vm");
      for (const key of ["memory", "memory_mb"] as const) {
        const raw = table?.[key];
        if (typeof raw !== "string" && typeof raw !== "number") continue;
        const mb = typeof raw === "number" ? raw : /^\d+$/.test(raw.trim()) ? Number(raw) : parseMemory(raw);
        if (mb !== null) reasons.push({ mb, why: `${key} = ${raw} in fly.toml` });
      }
    }
  }
  return reasons;
}

// ---------------------------------------------------------------------------------------------
// Port and listening address

const LOCAL_BIND = /(?:^|\s)(?:--host|--hostname|--bind|--listen|--address|-H|-b)[= ]['"]?(127\.0\.0\.1|localhost)\b/;

function portNotes(tree: SourceTree, dockerfile: ParsedDockerfile | null): SetupNote[] {
  const notes: SetupNote[] = [];
  let command: string | null = null;
  if (dockerfile) {
    const stage = finalStage(dockerfile);
    const analysis = analyzeParsedDockerfile(dockerfile, { tree });
    command = analysis.command;
    const first = analysis.expose[0];
    if (analysis.kind === "web" && first !== undefined && first !== DEFAULT_PORT) {
      notes.push({
        kind: "port",
        message: `The Dockerfile exposes port ${first}; set the app's port to ${first} (the default is ${DEFAULT_PORT}).`,
      });
    } else if (
      analysis.kind === "web" &&
      first === undefined &&
      stage &&
      stage.unresolvedExpose.length === 0 &&
      !readsPort(codeFiles(tree))
    ) {
      notes.push({
        kind: "port",
        message: `The Dockerfile declares no port (no EXPOSE): the app gets PORT=${DEFAULT_PORT} and must listen on it, or set the app's port to the one it listens on.`,
      });
    }
  } else {
    command = readPackageJson(tree)?.scripts?.start ?? null;
  }
  const local = command === null ? null : LOCAL_BIND.exec(command);
  if (local) {
    notes.push({
      kind: "listen",
      message: `The start command listens on ${local[1]}, which cannot be reached from outside the container; make it listen on 0.0.0.0.`,
    });
  }
  return notes;
}

function entrypointNote(tree: SourceTree, dockerfile: ParsedDockerfile): SetupNote | null {
  const stage = finalStage(dockerfile);
  if (!stage?.entrypoint || !analyzeParsedDockerfile(dockerfile, { tree }).warnings.includes("entrypoint-without-cmd")) return null;
  const written = stage.entrypoint.form === "exec" ? JSON.stringify(stage.entrypoint.args) : stage.entrypoint.command;
  return {
    kind: "entrypoint",
    message:
      `The Dockerfile sets ENTRYPOINT ${written} with no CMD after it. Setting ENTRYPOINT drops the base image's CMD, ` +
      `so the entrypoint runs with no arguments; an init or a wrapper script that ends with exec "$@" then starts nothing ` +
      `and the container exits. Add a CMD with the command that starts the server.`,
  };
}

// ---------------------------------------------------------------------------------------------
// Data on disk

const SKIPPED = /(^|\/)(node_modules|vendor|\.git|test|tests|__tests__|testdata|fixtures|examples?)\//;

function volumeNote(tree: SourceTree, dockerfile: ParsedDockerfile | null): SetupNote | null {
  const reasons: string[] = [];
  const volumes = (dockerfile && finalStage(dockerfile)?.volumes) ?? [];
  if (volumes.length > 0) reasons.push(`VOLUME ${volumes.join(" ")} in the Dockerfile`);

  const paths = tree.paths().filter((path) => !SKIPPED.test(path));
  const prisma = paths.find((path) => path.endsWith(".prisma") && /provider\s*=\s*["']sqlite["']/.test(tree.read(path) ?? ""));
  if (prisma) reasons.push(`SQLite in ${prisma}`);
  const packageJson = readPackageJson(tree);
  const dependencies = { ...packageJson?.dependencies, ...packageJson?.devDependencies };
  const sqlitePackage = ["better-sqlite3", "sqlite3", "sqlite"].find((name) => name in (packageJson?.dependencies ?? {}));
  if (sqlitePackage) reasons.push(`SQLite (${sqlitePackage} in package.json)`);
  const django = paths.find(
    (path) => /(^|\/)settings\.py$/.test(path) && path.split("/").length <= 3 && /backends\.sqlite3/.test(tree.read(path) ?? "")
  );
  if (django) reasons.push(`SQLite in ${django}`);
  const envFile = EXAMPLE_ENV_FILES.find((file) => /^\s*DATABASE_URL\s*=\s*["']?(file:|sqlite:)/m.test(tree.read(file) ?? ""));
  if (envFile) reasons.push(`a SQLite DATABASE_URL in ${envFile}`);
  const databaseFile = paths.find((path) => /\.(db|sqlite3?)$/i.test(path));
  if (databaseFile) reasons.push(`the database file ${databaseFile}`);
  const uploads = paths.find((path) => /(^|\/)uploads\//i.test(path));
  if (uploads) reasons.push(`uploads in ${uploads.slice(0, uploads.search(/uploads\//i) + "uploads/".length)}`);
  if ("multer" in dependencies) reasons.push("uploads (multer in package.json)");
  if (reasons.length === 0) return null;

  const path = volumes[0] ?? "/data";
  const keep = volumes.length > 0 ? "" : " and keep that data under it";
  return {
    kind: "volume",
    message: `The app keeps data on disk (${reasons.join(
      "; "
    )}); set volume_path to ${path}${keep}, or it is lost on every deploy.`,
  };
}

// ---------------------------------------------------------------------------------------------

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function readPackageJson(tree: SourceTree): PackageJson | null {
  const text = tree.read("package.json");
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object") return null;
    const record = parsed as Record<string, unknown>;
    const strings = (value: unknown): Record<string, string> =>
      value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
        : {};
    return {
      scripts: strings(record.scripts),
      dependencies: strings(record.dependencies),
      devDependencies: strings(record.devDependencies),
    };
  } catch {
    return null;
  }
}
