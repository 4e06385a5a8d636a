import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildLocalPythonImage, docker, dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectAutoBuild } from "../../../src/repo-analysis/auto/detect.js";
import { sourceTreeFromFiles } from "../../../src/repo-analysis/source-tree.js";

/**
 * Django on SQLite, as issue 21 runs apps: a read-only root filesystem, a 64 MB /tmp, and the app's
 * volume as the one writable folder. The final stage Reposite writes is built as written and run
 * that way, as the app's user; what migrate does to the database file (create it, write through a
 * journal) is done with Python's sqlite3. Django itself is not installed: builds cannot download
 * it here, so the build stage is replaced by one holding the repository's files and an empty
 * virtual environment.
 */
const engine = await dockerForTests();
const run = randomBytes(4).toString("hex");

const django = {
  "manage.py": "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')\n",
  "requirements.txt": "django\n",
  "mysite/settings.py": [
    "from pathlib import Path",
    "BASE_DIR = Path(__file__).resolve().parent.parent",
    "WSGI_APPLICATION = 'mysite.wsgi.application'",
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': BASE_DIR / 'db.sqlite3'}}",
    "",
  ].join("\n"),
};

/** What `migrate` does to the file: create it, then write a table through a journal. */
const MIGRATE_LIKE = "import sqlite3; c = sqlite3.connect('db.sqlite3'); c.execute('create table if not exists t (x)'); c.execute('insert into t values (1)'); c.commit(); print('written', c.execute('select count(*) from t').fetchone()[0])";

describe.skipIf(!engine.available)("Django's SQLite database on a read-only root filesystem", () => {
  let python: string | null;
  let folder: string;
  const images: string[] = [];
  const volumes: string[] = [];

  beforeAll(async () => {
    python = await buildLocalPythonImage();
    folder = await mkdtemp(join(tmpdir(), "reposite-django-db-"));
  }, 300_000);

  afterAll(async () => {
    if (images.length > 0) await docker(["rmi", "-f", ...images]).catch(() => undefined);
    if (volumes.length > 0) await docker(["volume", "rm", "-f", ...volumes]).catch(() => undefined);
    if (folder) await rm(folder, { recursive: true, force: true });
  }, 60_000);

  /** Builds the written Dockerfile's final stage (optionally without some lines) on a stand-in build stage. */
  async function buildFinalStage(dropLine?: RegExp): Promise<string> {
    const { auto } = detectAutoBuild(sourceTreeFromFiles(django), { baseImages: { python: python! } });
    if (!auto.found) throw new Error(auto.reason);
    const finalStage = auto.dockerfile.slice(auto.dockerfile.lastIndexOf("\nFROM ") + 1);
    const kept = finalStage.split("\n").filter((line) => !(dropLine && dropLine.test(line)));
    const dockerfile = [`FROM ${python} AS build`, "RUN mkdir -p /opt/venv/bin", "WORKDIR /app", "COPY . .", "", ...kept].join("\n");
    const context = join(folder, `context-${images.length}`);
    for (const [path, content] of Object.entries({ ...django, Dockerfile: dockerfile })) {
      await mkdir(dirname(join(context, path)), { recursive: true });
      await writeFile(join(context, path), content);
    }
    const tag = `reposite-test/django-db:${run}-${images.length}`;
    images.push(tag);
    await docker(["build", "--quiet", "--tag", tag, context], { timeoutMs: 120_000 });
    return tag;
  }

  /** Runs as Reposite runs apps (issue 21): read-only root, /tmp a tmpfs, the volume (if any) at /data. */
  async function migrateLike(image: string, volume: string | null): Promise<{ ok: boolean; output: string }> {
    const args = ["run", "--rm", "--read-only", "--tmpfs", "/tmp:size=64m", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"];
    if (volume) args.push("--volume", `${volume}:/data`);
    return docker([...args, "--entrypoint", "python", image, "-c", MIGRATE_LIKE], { timeoutMs: 60_000 }).then(
      ({ stdout }) => ({ ok: true, output: stdout.trim() }),
      (error: Error) => ({ ok: false, output: error.message }),
    );
  }

  it("the written image writes db.sqlite3 into the app's volume at /data, as its own user, and keeps it for the next container", async () => {
    if (!python) throw new Error("no CPython on this machine for the local Python image");
    const image = await buildFinalStage();
    const volume = `reposite-test-django-${run}`;
    volumes.push(volume);
    expect(await migrateLike(image, volume)).toEqual({ ok: true, output: "written 1" });
    // A new container (the next deploy) finds the same database.
    expect(await migrateLike(image, volume)).toEqual({ ok: true, output: "written 2" });
    const { stdout } = await docker(["run", "--rm", "--volume", `${volume}:/data`, "--entrypoint", "stat", image, "-c", "%u %n", "/data/db.sqlite3"]);
    expect(stdout.trim()).toBe("10001 /data/db.sqlite3");
  }, 300_000);

  it("without the link the same image cannot open its database (the fault), and without the volume it cannot either (why volume_path is /data)", async () => {
    if (!python) throw new Error("no CPython on this machine for the local Python image");
    const unlinked = await buildFinalStage(/ln -sf \/data\//);
    const withoutLink = await migrateLike(unlinked, null);
    expect(withoutLink.ok).toBe(false);
    expect(withoutLink.output).toContain("unable to open database file");
    const linked = await buildFinalStage();
    const withoutVolume = await migrateLike(linked, null);
    expect(withoutVolume.ok).toBe(false);
    expect(withoutVolume.output).toContain("unable to open database file");
  }, 300_000);
});
