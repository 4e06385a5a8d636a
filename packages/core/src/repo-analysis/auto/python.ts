import { readPythonVersion } from "../formats/python-version.js";
import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { procfileStart, type Procfile } from "./procfile.js";
import type { BuildDraft, Detector } from "./types.js";

const VENV = "/opt/venv";
const USER = "10001:10001";

/** Files that make a repository a Python project (Railpack's signals, plus Django's manage.py). */
const SIGNALS = ["requirements.txt", "pyproject.toml", "Pipfile", "setup.py", "main.py", "manage.py"];

/** Plain scripts started when no web framework is found. */
const MAIN_FILES = ["main.py", "app.py", "server.py"];

/**
 * Python: installed with pip (requirements.txt), uv (pyproject.toml + uv.lock), Poetry
 * (pyproject.toml + poetry.lock), pipenv (Pipfile) or `pip install .` (pyproject.toml alone) into a
 * virtual environment that the runtime image copies. Django (manage.py) collects static files at
 * build, migrates at start and runs gunicorn; Flask runs gunicorn and FastAPI uvicorn, pointed at the
 * `Flask(…)` / `FastAPI(…)` object found in the source; Streamlit runs `streamlit run` of the script
 * importing it; a package with a `__main__.py` (setup.py or pyproject.toml) runs `python -m <package>`;
 * otherwise `python main.py|app.py|server.py`. A Procfile's `web:` command (with `release:` first)
 * replaces the start command, as Railpack does.
 *
 * Django's SQLite database: the app's root filesystem is read-only, so the database file named in
 * the settings (`db.sqlite3` next to manage.py) is a link to `/data/…` in a folder the app's user
 * owns; with the setup's `volume_path` at `/data` it is kept across deploys (the warning says so).
 */
export const pythonDetector: Detector = {
  family: "python",
  detect({ tree, images, procfile }) {
    if (!SIGNALS.some((path) => tree.has(path))) return null;
    const deps = dependencyText(tree);
    const found = pythonApp(tree, deps);
    if ("reason" in found && !procfile) return found;
    const app = procfile ? withProcfile(found, procfile) : (found as PythonApp);
    const installer = pythonInstaller(tree);
    const extra = app.server && !usesDependency(deps, app.server) ? app.server : null;
    const install = installer ? withExtra(installer.install, extra, installer.kind) : extra ? `pip install ${extra}` : null;

    const dockerfile = new DockerfileWriter();
    const version = readPythonVersion(tree.read(".python-version") ?? tree.read("runtime.txt") ?? "");
    if (version) dockerfile.comment(`${tree.has(".python-version") ? ".python-version" : "runtime.txt"} asks for ${version}; the image is ${images.python}.`);
    const runtimeEnv = { PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1" };
    if (!install && !app.build) {
      // Nothing to install or build: one stage with the source is the whole image.
      dockerfile.from(images.python).env({ ...runtimeEnv, PORT: "3000" }).workdir("/app").copy(".", "./");
      return finish(dockerfile, app, install);
    }
    dockerfile
      .from(images.python, "build")
      .env({ PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_NO_CACHE_DIR: "1" })
      .workdir("/app");
    if (installer?.tool) dockerfile.run(`pip install ${installer.tool}`);
    dockerfile.run(`python -m venv ${VENV}`).env({ VIRTUAL_ENV: VENV, PATH: `${VENV}/bin:$PATH`, ...installer?.env });
    if (install && installer && !installer.needsSource) {
      dockerfile.copy(installer.files, "./").run(install).copy(".", ".");
    } else {
      dockerfile.copy(".", ".");
      if (install) dockerfile.run(install);
    }
    if (app.build) dockerfile.run(app.build);
    dockerfile
      .from(images.python)
      .env({ ...runtimeEnv, VIRTUAL_ENV: VENV, PATH: `${VENV}/bin:$PATH`, PORT: "3000" })
      .workdir("/app")
      .copy(VENV, VENV, { from: "build" })
      .copy("/app", "./", { from: "build" });
    return finish(dockerfile, app, install);
  },
};

function finish(dockerfile: DockerfileWriter, app: PythonApp, install: string | null): BuildDraft {
  const warnings: string[] = [];
  if (app.sqlite) {
    // The root filesystem is read-only: the database lives in /data, owned by the app's user.
    dockerfile.run(`mkdir -p ${DATA_DIR} && chown ${USER} ${DATA_DIR} && ln -sf ${DATA_DIR}/${app.sqlite} /app/${app.sqlite}`);
    warnings.push(
      `Django keeps its SQLite database in ${app.sqlite}; Reposite links it to ${DATA_DIR}/${app.sqlite}, the app's data folder: set volume_path to ${DATA_DIR} so the database is writable and kept across deploys (or set DATABASE_URL to a database server).`,
    );
  }
  dockerfile.user(USER).expose(3000).start(app.start);
  return { name: app.name, install, build: app.build, start: app.start, dockerfile: dockerfile.toString(), warnings };
}

/** Where Django's SQLite database is kept: the folder to give the setup's `volume_path`. */
export const DATA_DIR = "/data";

/** The Procfile's command starts the app; the server package it runs is installed when missing. */
function withProcfile(found: PythonApp | { reason: string }, procfile: Procfile): PythonApp {
  const start = procfileStart(procfile);
  const server = /(^|\s|&&\s*)gunicorn\s/.test(start) ? "gunicorn" : /(^|\s|&&\s*)uvicorn\s/.test(start) ? "uvicorn" : null;
  if ("reason" in found) return { name: "Python (Procfile)", start, build: null, server, sqlite: null };
  return { ...found, start, server };
}

interface PythonApp {
  name: string;
  start: string;
  build: string | null;
  /** The server package the start command needs (installed when the project does not list it). */
  server: "gunicorn" | "uvicorn" | null;
  /** Django: the SQLite database file the settings keep next to manage.py, or null. */
  sqlite?: string | null;
}

function pythonApp(tree: SourceTree, deps: string): PythonApp | { reason: string } {
  if (tree.has("manage.py") && usesDependency(deps, "django")) {
    const project = djangoProject(tree);
    if (!project) {
      return { reason: "This Django project names no WSGI_APPLICATION in its settings and no DJANGO_SETTINGS_MODULE in manage.py, so Reposite cannot tell what to start. Add a Dockerfile." };
    }
    const collects = tree.paths().some((path) => path.endsWith(".py") && /^\s*STATIC_ROOT\s*=/m.test(tree.read(path) ?? ""));
    return {
      name: "Django",
      build: collects ? "python manage.py collectstatic --noinput" : null,
      start: `python manage.py migrate --noinput && gunicorn --bind 0.0.0.0:$PORT ${project}.wsgi:application`,
      server: "gunicorn",
      sqlite: sqliteFile(tree),
    };
  }
  const streamlit = usesDependency(deps, "streamlit") ? streamlitScript(tree) : null;
  if (streamlit) {
    return {
      name: "Streamlit",
      build: null,
      start: `streamlit run ${streamlit} --server.port $PORT --server.address 0.0.0.0 --server.headless true`,
      server: null,
    };
  }
  if (usesDependency(deps, "fastapi")) {
    const target = findApp(tree, /^(\w+)\s*(?::\s*[\w.]+\s*)?=\s*(?:fastapi\.)?FastAPI\(/m, null);
    if (target) {
      return {
        name: "FastAPI",
        build: null,
        start: `uvicorn ${target} --host 0.0.0.0 --port $PORT`,
        server: /fastapi\[(?:standard|all)\]/i.test(deps) ? null : "uvicorn",
      };
    }
  }
  if (usesDependency(deps, "flask")) {
    const target = findApp(tree, /^(\w+)\s*(?::\s*[\w.]+\s*)?=\s*(?:flask\.)?Flask\(/m, /^def\s+(create_app)\s*\(/m);
    if (target) return { name: "Flask", build: null, start: `gunicorn --bind 0.0.0.0:$PORT ${shellWord(target)}`, server: "gunicorn" };
  }
  const main = MAIN_FILES.find((path) => tree.has(path));
  if (main) return { name: "Python", build: null, start: `python ${main}`, server: null };
  const module = mainModule(tree);
  if (module) return { name: "Python", build: null, start: `python -m ${module}`, server: null };
  return {
    reason:
      "This Python project has no main.py, app.py or server.py, and no Django, Flask or FastAPI app Reposite could find, so Reposite cannot tell what to start. Add a main.py, or add a Dockerfile.",
  };
}

/** The SQLite file Django's settings name (`BASE_DIR / "db.sqlite3"`), or null with another database. */
function sqliteFile(tree: SourceTree): string | null {
  for (const path of tree.paths()) {
    if (!path.endsWith("settings.py") && !/\/settings\/[\w]+\.py$/.test(path)) continue;
    const text = tree.read(path) ?? "";
    if (!/sqlite3/.test(text)) continue;
    // `"NAME": BASE_DIR / "db.sqlite3"`, or dj-database-url's relative `sqlite:///db.sqlite3`.
    const named = /["']NAME["']\s*:[^\n]*?["']([\w-]+(?:\.[\w-]+)?\.sqlite3?)["']/.exec(text)?.[1];
    return named ?? /["']sqlite:\/\/\/([\w-]+(?:\.[\w-]+)?\.sqlite3?)["']/.exec(text)?.[1] ?? null;
  }
  return null;
}

/** The script a Streamlit app runs: the root .py file importing streamlit, the usual names first. */
function streamlitScript(tree: SourceTree): string | null {
  const preferred = ["streamlit_app.py", "app.py", "main.py", "Home.py", "Hello.py"];
  const roots = tree.paths().filter((path) => path.endsWith(".py") && !path.includes("/") && !/(^test_|_test\.py$|^conftest\.py$)/.test(path));
  const ordered = [...preferred.filter((path) => roots.includes(path)), ...roots.filter((path) => !preferred.includes(path))];
  return ordered.find((path) => /^\s*(?:import\s+streamlit\b|from\s+streamlit\b)/m.test(tree.read(path) ?? "")) ?? null;
}

/** A package with a `__main__.py` (at the root or under src/): run as `python -m <package>`. */
function mainModule(tree: SourceTree): string | null {
  if (!tree.has("setup.py") && !tree.has("pyproject.toml") && !tree.has("setup.cfg")) return null;
  const found = tree
    .paths()
    .map((path) => /^(?:src\/)?([A-Za-z_]\w*)\/__main__\.py$/.exec(path)?.[1])
    .filter((name): name is string => Boolean(name) && !/^(tests?|docs|examples?)$/.test(name!));
  return found[0] ?? null;
}

/** `proj` from `WSGI_APPLICATION = "proj.wsgi.application"`, else from manage.py's settings module. */
function djangoProject(tree: SourceTree): string | null {
  for (const path of tree.paths()) {
    if (!path.endsWith(".py")) continue;
    const match = /WSGI_APPLICATION\s*=\s*["']([\w.]+)\.wsgi\.application["']/.exec(tree.read(path) ?? "");
    if (match?.[1]) return match[1];
  }
  return /DJANGO_SETTINGS_MODULE["']\s*,\s*["']([\w.]+)\.settings["']/.exec(tree.read("manage.py") ?? "")?.[1] ?? null;
}

/**
 * `module:object` for the first source file creating the app (root files first, then a package's
 * `__init__.py`, `main.py`, `app.py`), or `module:factory()` for an app factory.
 */
function findApp(tree: SourceTree, object: RegExp, factory: RegExp | null): string | null {
  const candidates = tree
    .paths()
    .filter((path) => path.endsWith(".py") && path.split("/").length <= 2 && !/(^|\/)(tests?|venv|\.venv|migrations)\//.test(path))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const pattern of [object, factory]) {
    if (!pattern) continue;
    for (const path of candidates) {
      const name = pattern.exec(tree.read(path) ?? "")?.[1];
      if (!name) continue;
      const module = path.replace(/\.py$/, "").replace(/\/__init__$/, "").replace(/\//g, ".");
      return pattern === factory ? `${module}:${name}()` : `${module}:${name}`;
    }
  }
  return null;
}

const ROOT_ORDER = ["app.py", "main.py", "wsgi.py", "asgi.py", "server.py", "api.py", "application.py"];

function rank(path: string): number {
  const root = ROOT_ORDER.indexOf(path);
  if (root >= 0) return root;
  if (!path.includes("/")) return 10;
  if (path.endsWith("/__init__.py")) return 20;
  if (path.endsWith("/main.py") || path.endsWith("/app.py")) return 21;
  return 30;
}

interface Installer {
  kind: "pip" | "uv" | "poetry" | "pipenv";
  /** Tool installed into the build image's own Python first (not into the app's environment). */
  tool: string | null;
  files: string[];
  install: string;
  /** The install reads the project's source (`pip install .`, local requirements). */
  needsSource: boolean;
  env?: Record<string, string>;
}

function pythonInstaller(tree: SourceTree): Installer | null {
  if (tree.has("requirements.txt")) {
    const local = /^\s*(?:-r|-c|--requirement|--constraint|-e|--editable|\.)|@\s*file:/m.test(tree.read("requirements.txt") ?? "");
    return { kind: "pip", tool: null, files: ["requirements.txt"], install: "pip install -r requirements.txt", needsSource: local };
  }
  if (tree.has("pyproject.toml") && tree.has("uv.lock")) {
    return {
      kind: "uv",
      tool: "uv",
      files: ["pyproject.toml", "uv.lock"],
      install: "uv sync --locked --no-dev --no-install-project",
      needsSource: false,
      env: { UV_PROJECT_ENVIRONMENT: VENV, UV_PYTHON_DOWNLOADS: "never" },
    };
  }
  if (tree.has("pyproject.toml") && tree.has("poetry.lock")) {
    return {
      kind: "poetry",
      tool: "poetry",
      files: ["pyproject.toml", "poetry.lock"],
      install: "poetry install --only main --no-root --no-interaction --no-ansi",
      needsSource: false,
    };
  }
  if (tree.has("Pipfile")) {
    const locked = tree.has("Pipfile.lock");
    return {
      kind: "pipenv",
      tool: "pipenv",
      files: locked ? ["Pipfile", "Pipfile.lock"] : ["Pipfile"],
      install: `${locked ? "" : "pipenv lock && "}pipenv requirements > /tmp/requirements.txt && pip install -r /tmp/requirements.txt`,
      needsSource: false,
    };
  }
  if (tree.has("pyproject.toml") || tree.has("setup.py")) {
    return { kind: "pip", tool: null, files: [], install: "pip install .", needsSource: true };
  }
  return null;
}

function withExtra(install: string, extra: string | null, kind: Installer["kind"]): string {
  if (!extra) return install;
  return kind === "pip" ? `${install} ${extra}` : `${install} && pip install ${extra}`;
}

/** Quotes an app factory call (`pkg:create_app()`) for the shell. */
function shellWord(word: string): string {
  return /^[\w.:-]+$/.test(word) ? word : `"${word}"`;
}

function dependencyText(tree: SourceTree): string {
  return ["requirements.txt", "pyproject.toml", "Pipfile"].map((path) => tree.read(path) ?? "").join("\n");
}

function usesDependency(deps: string, name: string): boolean {
  return new RegExp(`(?:^|[\\s"'])${name.replace(/[-_.]/g, "[-_.]")}(?=[\\s<>=!~\\[;"',]|$)`, "im").test(deps);
}
