import { describe, expect, it } from "vitest";
import { findSetupNotes } from "../../src/repo-analysis/setup-notes.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";
import type { SetupNote } from "../../src/repo-analysis/repo-check.js";

const lines = (...text: string[]) => text.join("\n");
const notes = (files: Record<string, string>, context: { detected?: string; dockerfile?: string | null } = {}) =>
  findSetupNotes(sourceTreeFromFiles(files), context);
const packageJson = (value: object) => JSON.stringify(value);

describe("findSetupNotes: memory", () => {
  it("says nothing for a small app", () => {
    expect(
      notes(
        { "package.json": packageJson({ scripts: { start: "node index.js" }, dependencies: { express: "^5" } }) },
        { detected: "Express", dockerfile: null }
      )
    ).toEqual([]);
  });

  it("counts a heavy framework build, from detection or from package.json", () => {
    const expected: SetupNote[] = [
      {
        kind: "memory",
        message: "This app wants about 1024 MB of memory, more than the free 512 MB: building Next.js (1024 MB).",
        needed_mb: 1024,
      },
    ];
    expect(notes({}, { detected: "Next.js (server)" })).toEqual(expected);
    expect(
      notes({ "package.json": packageJson({ scripts: { build: "next build" }, dependencies: { next: "15.0.0" } }) })
    ).toEqual(expected);
    // A framework that is only a dependency, never built, costs nothing extra.
    expect(notes({ "package.json": packageJson({ dependencies: { next: "15.0.0" } }) })).toEqual([]);
  });

  it.each([
    ["Nuxt", { nuxt: "^3" }],
    ["Angular", { "@angular/core": "^18" }],
    ["SvelteKit", { "@sveltejs/kit": "^2" }],
    ["Astro", { astro: "^4" }],
    ["Gatsby", { gatsby: "^5" }],
    ["Remix", { "@remix-run/node": "^2" }],
  ])("knows %s builds", (name, dependencies) => {
    expect(notes({ "package.json": packageJson({ scripts: { build: "x" }, devDependencies: dependencies }) })).toEqual([
      {
        kind: "memory",
        message: `This app wants about 1024 MB of memory, more than the free 512 MB: building ${name} (1024 MB).`,
        needed_mb: 1024,
      },
    ]);
  });

  it("reads heap limits from the Dockerfile and package.json scripts, and takes the largest need", () => {
    const dockerfile = lines(
      "FROM node:22",
      'ENV NODE_OPTIONS="--max-old-space-size=3072"',
      "RUN npm run build",
      'CMD ["node", "server.js"]',
      "EXPOSE 3000"
    );
    const files = {
      "package.json": packageJson({
        scripts: { build: "NODE_OPTIONS=--max-old-space-size=4096 vite build", start: "node --max-old-space-size=400 server.js" },
        dependencies: { vite: "^5" },
      }),
    };
    expect(notes(files, { dockerfile })).toEqual<SetupNote[]>([
      {
        kind: "memory",
        message:
          'This app wants about 4352 MB of memory, more than the free 512 MB: --max-old-space-size=4096 in the package.json script "build", plus headroom (4352 MB); --max-old-space-size=3072 in the Dockerfile, plus headroom (3328 MB).',
        needed_mb: 4352,
      },
    ]);
  });

  it("reads -Xmx and JVM builds", () => {
    const dockerfile = lines(
      "FROM eclipse-temurin:21",
      'ENTRYPOINT ["java", "-Xmx1g", "-jar", "app.jar", "--server.port=3000"]',
      "EXPOSE 3000"
    );
    expect(notes({ "pom.xml": "<project/>" }, { dockerfile })).toEqual<SetupNote[]>([
      {
        kind: "memory",
        message:
          "This app wants about 1280 MB of memory, more than the free 512 MB: -Xmx1g in the Dockerfile, plus headroom (1280 MB); a Maven build on the JVM (1024 MB).",
        needed_mb: 1280,
      },
    ]);
    expect(notes({ "build.gradle.kts": "plugins {}" })[0]?.needed_mb).toBe(1024);
  });

  it("finds machine-learning packages in requirements files and pyproject.toml", () => {
    expect(
      notes({ "requirements.txt": lines("flask==3.0.0", "# torch is below", "torch>=2.2 ; platform_system == 'Linux'", "numpy") })
    ).toEqual<SetupNote[]>([
      {
        kind: "memory",
        message: "This app wants about 2048 MB of memory, more than the free 512 MB: PyTorch in requirements.txt (2048 MB).",
        needed_mb: 2048,
      },
    ]);
    const pyproject = lines(
      "[project]",
      'name = "demo"',
      'dependencies = ["fastapi>=0.110", "transformers[torch]>=4.40", "uvicorn"]',
      "[tool.poetry.dependencies]",
      'tensorflow-cpu = "^2.16"'
    );
    expect(notes({ "pyproject.toml": pyproject })[0]?.message).toBe(
      "This app wants about 2048 MB of memory, more than the free 512 MB: Hugging Face Transformers in pyproject.toml (2048 MB); TensorFlow in pyproject.toml (2048 MB)."
    );
    expect(notes({ "requirements.txt": "torchmetrics-lite==1.0\nflask\n" })).toEqual([]);
  });

  it("reads memory settings of compose files and fly.toml", () => {
    const compose = lines(
      "services:",
      "  app:",
      "    build: .",
      "    deploy:",
      "      resources:",
      "        limits:",
      "          memory: 1.5G",
      "  db:",
      "    image: postgres:16",
      "    mem_limit: 4g"
    );
    expect(notes({ "docker-compose.yml": compose })).toEqual<SetupNote[]>([
      {
        kind: "memory",
        message:
          'This app wants about 1536 MB of memory, more than the free 512 MB: the memory limit of the service "app" in docker-compose.yml (1536 MB).',
        needed_mb: 1536,
      },
    ]);
    const fly = lines('app = "demo"', "", "[[vm]]", "  memory = '2gb'", "  cpu_kind = 'shared'", "  cpus = 1");
    expect(notes({ "fly.toml": fly })[0]?.needed_mb).toBe(2048);
    expect(notes({ "fly.toml": "[[vm]]\nmemory_mb = 256\n" })).toEqual([]);
    expect(notes({ "fly.toml": "[[vm]]\nmemory = 1024\n" })[0]?.needed_mb).toBe(1024);
  });
});

describe("findSetupNotes: port and listening address", () => {
  it("asks for the exposed port when it is not 3000", () => {
    expect(notes({}, { dockerfile: 'FROM python:3.12\nEXPOSE 8000\nCMD ["gunicorn", "app:app"]' })).toEqual<SetupNote[]>([
      { kind: "port", message: "The Dockerfile exposes port 8000; set the app's port to 8000 (the default is 3000)." },
    ]);
    expect(notes({}, { dockerfile: 'FROM node:22\nEXPOSE 3000\nCMD ["npm", "start"]' })).toEqual([]);
  });

  it("warns when a web app declares no port, unless EXPOSE names a variable", () => {
    expect(notes({}, { dockerfile: 'FROM node:22\nCMD ["npm", "start"]' })).toEqual<SetupNote[]>([
      {
        kind: "port",
        message:
          "The Dockerfile declares no port (no EXPOSE): the app gets PORT=3000 and must listen on it, or set the app's port to the one it listens on.",
      },
    ]);
    expect(notes({}, { dockerfile: 'FROM node:22\nEXPOSE $PORT\nCMD ["npm", "start"]' })).toEqual([]);
    // A CLI image gets the analysis warning `not-a-server` instead.
    expect(notes({}, { dockerfile: 'FROM alpine\nENTRYPOINT ["mytool"]' })).toEqual([]);
  });

  it("warns about listening on localhost", () => {
    const listen: SetupNote = {
      kind: "listen",
      message:
        "The start command listens on 127.0.0.1, which cannot be reached from outside the container; make it listen on 0.0.0.0.",
    };
    expect(
      notes(
        {},
        { dockerfile: 'FROM python:3.12\nEXPOSE 3000\nCMD ["uvicorn", "main:app", "--host", "127.0.0.1", "--port", "3000"]' }
      )
    ).toEqual([listen]);
    expect(notes({ "package.json": packageJson({ scripts: { start: "vite preview --host=localhost" } }) })).toEqual<SetupNote[]>([
      { ...listen, message: listen.message.replace("127.0.0.1", "localhost") },
    ]);
  });
});

describe("findSetupNotes: data on disk", () => {
  it("names the Dockerfile's VOLUME", () => {
    expect(notes({}, { dockerfile: 'FROM node:22\nEXPOSE 3000\nVOLUME ["/var/lib/app"]\nCMD ["npm", "start"]' })).toEqual<
      SetupNote[]
    >([
      {
        kind: "volume",
        message:
          "The app keeps data on disk (VOLUME /var/lib/app in the Dockerfile); set volume_path to /var/lib/app, or it is lost on every deploy.",
      },
    ]);
  });

  it("sees SQLite and uploads", () => {
    const files = {
      "prisma/schema.prisma": 'datasource db {\n  provider = "sqlite"\n  url      = env("DATABASE_URL")\n}',
      "package.json": packageJson({ dependencies: { "better-sqlite3": "^11", multer: "^1" } }),
      ".env.example": 'DATABASE_URL="file:./dev.db"',
      "public/uploads/.gitkeep": "",
      "node_modules/x/test.db": "",
    };
    expect(notes(files)).toEqual<SetupNote[]>([
      {
        kind: "volume",
        message:
          "The app keeps data on disk (SQLite in prisma/schema.prisma; SQLite (better-sqlite3 in package.json); a SQLite DATABASE_URL in .env.example; uploads in public/uploads/; uploads (multer in package.json)); set volume_path to /data and keep that data under it, or it is lost on every deploy.",
      },
    ]);
  });

  it("sees Django's default SQLite database and committed database files", () => {
    const settings = "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': BASE_DIR / 'db.sqlite3'}}";
    expect(notes({ "mysite/settings.py": settings, "data/app.sqlite": "" })).toEqual<SetupNote[]>([
      {
        kind: "volume",
        message:
          "The app keeps data on disk (SQLite in mysite/settings.py; the database file data/app.sqlite); set volume_path to /data and keep that data under it, or it is lost on every deploy.",
      },
    ]);
  });

  it("puts the notes in a fixed order: memory, port, listen, volume", () => {
    const dockerfile = lines("FROM node:22", "EXPOSE 8080", "VOLUME /data", 'CMD ["node", "server.js", "--host", "localhost"]');
    expect(notes({}, { detected: "Nuxt", dockerfile }).map((note) => note.kind)).toEqual(["memory", "port", "listen", "volume"]);
  });
});
