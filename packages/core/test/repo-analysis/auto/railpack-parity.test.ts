import { describe, expect, it } from "vitest";
import { detectAutoBuild } from "../../../src/repo-analysis/auto/detect.js";
import type { AutoBuild } from "../../../src/repo-analysis/repo-check.js";
import { sourceTreeFromFiles } from "../../../src/repo-analysis/source-tree.js";

/** Detection at least as good as Railpack's providers: one case per rule, each small and made up. */

type Found = Extract<AutoBuild, { found: true }>;
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function detect(files: Record<string, string>, rootDir?: string): AutoBuild {
  return detectAutoBuild(sourceTreeFromFiles(files), rootDir ? { rootDir } : {}).auto;
}
function found(files: Record<string, string>, rootDir?: string): Found {
  const auto = detect(files, rootDir);
  if (!auto.found) throw new Error(`expected a build, got: ${auto.reason}`);
  return auto;
}
function reason(files: Record<string, string>, rootDir?: string): string {
  const auto = detect(files, rootDir);
  if (auto.found) throw new Error(`expected nothing found, got ${auto.name}`);
  return auto.reason;
}

describe("Procfile", () => {
  it("web: starts a Node app that carries an index.html and public/ (not a static folder)", () => {
    const auto = found({
      Procfile: "web: node web.js\nworker: node jobs.js\n",
      "package.json": json({ name: "site", dependencies: { express: "^4.0.0" } }),
      "web.js": "require('express')().listen(process.env.PORT)\n",
      "index.html": "<h1>hi</h1>\n",
      "public/app.css": "",
    });
    expect(auto.start).toBe("node web.js");
    expect(auto.output).toBeUndefined();
    expect(auto.dockerfile).toContain('CMD ["node", "web.js"]');
  });

  it("release: runs before web:, both kept in Python (gunicorn with its own config)", () => {
    const auto = found({
      Procfile: "release: flask db upgrade\nweb: gunicorn --config gunicorn.conf.py app:app\n",
      "requirements.txt": "flask\ngunicorn\n",
      "app.py": "from flask import Flask\napp = Flask(__name__)\n",
    });
    expect(auto.start).toBe("flask db upgrade && gunicorn --config gunicorn.conf.py app:app");
    expect(auto.dockerfile).toContain("CMD flask db upgrade && exec gunicorn --config gunicorn.conf.py app:app");
  });

  it("a web: command of several steps keeps every step, the last exec-ed", () => {
    const auto = found({ Procfile: "web: flask db upgrade; gunicorn app:app\n", "requirements.txt": "flask\n", "app.py": "" });
    expect(auto.dockerfile).toContain("CMD flask db upgrade; exec gunicorn app:app");
  });
});

describe("start commands checked against the build", () => {
  it("a start script that runs tsc moves tsc to the build: the dev dependency is pruned before start", () => {
    const auto = found({
      "package.json": json({ scripts: { start: "tsc && node dist/index.js" }, dependencies: { express: "^4.0.0" }, devDependencies: { typescript: "^5.0.0" } }),
      "package-lock.json": "{}\n",
    });
    expect(auto.build).toBe("npx tsc");
    expect(auto.start).toBe("node dist/index.js");
    expect(auto.dockerfile.indexOf("RUN npx tsc")).toBeLessThan(auto.dockerfile.indexOf("RUN npm prune --omit=dev"));
  });

  it("npm run build && node … keeps the build script as the build, once", () => {
    const auto = found({
      "package.json": json({ scripts: { build: "tsc", start: "npm run build && node dist/server.js" }, dependencies: { fastify: "^5.0.0" }, devDependencies: { typescript: "^5.0.0" } }),
      "src/server.ts": "app.listen({ host: '0.0.0.0' })\n",
    });
    expect(auto.build).toBe("npm run build");
    expect(auto.start).toBe("node dist/server.js");
  });

  it("a dev server as start, with the built site committed in dist/, is that static site (nothing installed)", () => {
    const auto = found({
      "package.json": json({ scripts: { start: "browser-sync start --server dist" }, devDependencies: { "browser-sync": "^3.0.0" } }),
      "dist/index.html": "<h1>built</h1>\n",
    });
    expect(auto.output).toBe("dist");
    expect(auto.install).toBeNull();
    expect(auto.build).toBeNull();
  });

  it("a dev server as start without a committed site says so", () => {
    expect(reason({ "package.json": json({ scripts: { start: "live-server src" }, devDependencies: { "live-server": "^1.0.0" } }), "src/index.js": "" })).toMatch(
      /development server \(`live-server src`\)/,
    );
  });

  it("a Next.js app whose start script is next dev is started with next start", () => {
    const auto = found({ "package.json": json({ scripts: { build: "next build", start: "next dev" }, dependencies: { next: "^15.0.0", react: "^19.0.0" } }) });
    expect(auto.start).toBe("node_modules/.bin/next start");
  });

  it("nodemon runs the program itself in production", () => {
    expect(found({ "package.json": json({ scripts: { start: "nodemon server.js" }, devDependencies: { nodemon: "^3.0.0" } }), "server.js": "" }).start).toBe("node server.js");
  });

  it("main is used only when it is the server: a library's main gives way to the file that listens", () => {
    const auto = found({
      "package.json": json({ main: "lib/format.js" }),
      "lib/format.js": "module.exports = (s) => s.trim();\n",
      "server.js": "require('node:http').createServer(() => {}).listen(process.env.PORT);\n",
    });
    expect(auto.start).toBe("node server.js");
  });

  it("a zero-dependency server installs nothing (its linters are dev dependencies)", () => {
    const auto = found({ "package.json": json({ scripts: { start: "node server.js" }, devDependencies: { eslint: "^9.0.0" } }), "server.js": "" });
    expect(auto.install).toBeNull();
    expect(auto.dockerfile).not.toContain("npm ");
  });
});

describe("languages Railpack knows", () => {
  it("Streamlit: streamlit run of the script importing it, on PORT and every address", () => {
    const auto = found({ "requirements.txt": "streamlit\npandas\n", "dashboard.py": "import streamlit as st\nst.write('hi')\n", "test_dashboard.py": "import streamlit\n" });
    expect(auto.name).toBe("Streamlit");
    expect(auto.start).toBe("streamlit run dashboard.py --server.port $PORT --server.address 0.0.0.0 --server.headless true");
  });

  it("a setup.py package with __main__.py runs with python -m, installed with pip install .", () => {
    const auto = found({ "setup.py": "from setuptools import setup\nsetup(name='svc')\n", "svc/__init__.py": "", "svc/__main__.py": "print('serve')\n" });
    expect(auto.start).toBe("python -m svc");
    expect(auto.install).toBe("pip install .");
  });

  it("Rust: cargo build --release of the package's binary, run from the repository's files", () => {
    const auto = found({
      "Cargo.toml": '[package]\nname = "hello-web"\nversion = "0.1.0"\n\n[dependencies]\naxum = "0.8"\n',
      "Cargo.lock": "version = 4\n",
      "src/main.rs": 'let port = std::env::var("PORT").unwrap();\n',
      "templates/index.html": "",
    });
    expect(auto.name).toBe("Rust");
    expect(auto.build).toBe("cargo build --release --locked --bin hello-web");
    expect(auto.start).toBe("/usr/local/bin/hello-web");
    expect(auto.dockerfile).toContain("COPY --from=build /src/target/release/hello-web /usr/local/bin/hello-web");
    expect(auto.dockerfile).toMatch(/WORKDIR \/app\nCOPY \. \.\//);
  });

  it("Rust: a fixed port is the one exposed, with a warning", () => {
    const auto = found({ "Cargo.toml": '[package]\nname = "api"\n', "src/main.rs": 'TcpListener::bind("0.0.0.0:8080")\n' });
    expect(auto.dockerfile).toContain("EXPOSE 8080");
    expect(auto.warnings.join("\n")).toContain("port 8080");
  });

  it("Deno: the start task, else deno run --allow-all main.ts", () => {
    expect(found({ "deno.json": json({ tasks: { start: "deno run -A --env server.ts" } }), "server.ts": "Deno.serve({ port: Number(Deno.env.get('PORT')) }, h)\n" }).start).toBe("deno task start");
    const plain = found({ "deno.jsonc": '{ // config\n "imports": {}, }\n', "main.ts": "Deno.serve(app.fetch)\n" });
    expect(plain.start).toBe("deno run --allow-all main.ts");
    expect(plain.dockerfile).toContain("EXPOSE 8000");
  });

  it("Bun without a start script: bun run of the file its dev script watches", () => {
    const auto = found({
      "package.json": json({ name: "api", module: "index.ts", scripts: { dev: "bun run --watch src/index.ts" }, dependencies: { elysia: "^1.0.0" }, devDependencies: { "@types/bun": "latest" } }),
      "bun.lock": "{}\n",
      "src/index.ts": "new Elysia().listen(3000)\n",
    });
    expect(auto.name).toBe("Bun");
    expect(auto.start).toBe("bun run src/index.ts");
  });

  it("Go: the runtime image keeps the built tree as its working directory (templates, static files)", () => {
    const auto = found({ "go.mod": "module example.com/web\n\ngo 1.22\n\nrequire github.com/gin-gonic/gin v1.10.0\n", "main.go": 'package main\nfunc main() { r.LoadHTMLGlob("templates/*") }\n', "templates/index.tmpl": "" });
    expect(auto.name).toBe("Go (Gin)");
    expect(auto.dockerfile).toContain("WORKDIR /app\nCOPY --from=build /src /app\n");
  });
});

describe("Django's database on a read-only root filesystem", () => {
  it("links the SQLite file the settings name to /data, owned by the app's user, and says to set volume_path", () => {
    const auto = found({
      "manage.py": "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'site.settings')\n",
      "requirements.txt": "django\n",
      "site/settings.py": "WSGI_APPLICATION = 'site.wsgi.application'\nDATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': BASE_DIR / 'db.sqlite3'}}\n",
    });
    expect(auto.dockerfile).toContain("RUN mkdir -p /data && chown 10001:10001 /data && ln -sf /data/db.sqlite3 /app/db.sqlite3");
    expect(auto.warnings.join("\n")).toContain("set volume_path to /data");
  });
});

describe("monorepos and root_dir", () => {
  const workspace = {
    "package.json": json({ name: "mono", private: true, workspaces: ["apps/*", "packages/*"], devDependencies: { turbo: "^2.0.0" } }),
    "package-lock.json": "{}\n",
    "turbo.json": "{}\n",
    "packages/ui/package.json": json({ name: "@mono/ui", main: "index.ts" }),
    "apps/web/package.json": json({ name: "web", scripts: { build: "vite build" }, dependencies: { "@mono/ui": "*" }, devDependencies: { vite: "^6.0.0" } }),
    "apps/web/index.html": "",
  };

  it("the one app of a workspace is built from the workspace's root with turbo, served from its folder", () => {
    const auto = found(workspace);
    expect(auto.name).toBe("Vite (apps/web, turborepo)");
    expect(auto.install).toBe("npm ci");
    expect(auto.build).toBe("npx turbo run build --filter=web...");
    expect(auto.output).toBe("apps/web/dist");
  });

  it("several apps are named, with root_dir to choose", () => {
    const files = { ...workspace, "apps/api/package.json": json({ name: "api", scripts: { start: "node server.js" }, dependencies: { express: "^4.0.0" } }) };
    expect(reason(files)).toBe(
      'This is a turborepo with 2 apps: apps/api (Express), apps/web (Vite). Set root_dir to the one to deploy (PUT …/deployment {"root_dir": "apps/api"}).',
    );
    const api = found(files, "apps/api");
    expect(api.name).toBe("Express (apps/api, turborepo)");
    expect(api.dockerfile).toContain("WORKDIR /app/apps/api");
    expect(api.start).toBe("node server.js");
  });

  it("pnpm workspaces are read from pnpm-workspace.yaml", () => {
    const auto = found({
      "package.json": json({ name: "mono", private: true, packageManager: "pnpm@9.0.0" }),
      "pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n",
      "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
      "apps/site/package.json": json({ name: "site", scripts: { start: "node index.js" } }),
    });
    expect(auto.install).toBe("pnpm install --frozen-lockfile");
    expect(auto.dockerfile).toContain("WORKDIR /app/apps/site");
  });

  it("root_dir outside a workspace builds that folder, copying from it", () => {
    const auto = found({ "README.md": "", "backend/requirements.txt": "flask\n", "backend/app.py": "from flask import Flask\napp = Flask(__name__)\n" }, "backend");
    expect(auto.name).toBe("Flask");
    expect(auto.dockerfile).toContain("COPY backend/requirements.txt ./");
  });

  it("a root_dir that is no folder of the repository is refused with what to do", () => {
    expect(reason({ "index.html": "" }, "apps/none")).toMatch(/^root_dir apps\/none is not a folder of this repository/);
  });
});
