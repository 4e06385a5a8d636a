import type { DeploymentView } from "@reposite/core";
import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";

const engine = await dockerForTests();

/**
 * Each diagnosis kind from a real failure on the Docker Engine: small self-contained fixtures on
 * the local node and busybox images, each deployed by its own account (one build per account),
 * all at once. The app gets 3 s to answer; builds get 128 MB (so a build step can outgrow it).
 */
describe.skipIf(!engine.available)("diagnoses of failed runs on the Engine", () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness({ hosting: { healthTimeoutMs: 3_000, buildMemoryMb: 128, buildConcurrency: 8 } });
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  /** Deploys `files` as a new project of a new account; answers the deployment read after the run. */
  async function failedRun(name: string, files: Record<string, string>, setup: Record<string, unknown> = {}): Promise<DeploymentView> {
    const owner = await h.account();
    const site = await h.project(owner, name, files);
    const { job } = await h.deploy(owner, site, setup);
    expect(job.status).toBe("error");
    const read = await h.reposite.hosting.read(owner, site);
    expect(read.last_run).toMatchObject({ status: "failed", diagnosis: { title: expect.any(String), detail: expect.any(String), fix: expect.any(String) } });
    return read;
  }

  /** A node app: `server.js` run by CMD. */
  const nodeApp = (server: string, extra: Record<string, string> = {}) => ({
    Dockerfile: [`FROM ${h.images.node}`, h.label, "COPY server.js /app/server.js", 'CMD ["node", "/app/server.js"]', ""].join("\n"),
    "server.js": server,
    ...extra,
  });

  it.concurrent("a build step that fails: its Dockerfile line and its last error lines", async () => {
    const read = await failedRun("step-fails", {
      Dockerfile: [`FROM ${h.images.busybox}`, h.label, "# make the site", "RUN echo preparing && \\", "    echo still preparing", 'RUN echo "config.yml: no such file" >&2 && exit 3', 'CMD ["httpd", "-f"]', ""].join("\n"),
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "build_step_failed", evidence: { dockerfile_line: 6, exit_code: 3, step: expect.stringContaining("exit 3") } });
    expect(diagnosis.title).toContain("line 6 of the Dockerfile");
    expect(diagnosis.detail).toContain("config.yml: no such file");
    expect(read.last_exit_oom).toBe(false);
  });

  it.concurrent("a build step that outgrows the build's memory: exit 137, 1 GB wanted, last_exit_oom", async () => {
    const read = await failedRun("build-oom", {
      Dockerfile: [`FROM ${h.images.busybox}`, h.label, "RUN dd if=/dev/zero of=/dev/null bs=300M count=1", 'CMD ["httpd", "-f"]', ""].join("\n"),
    });
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "build_out_of_memory", limit: { kind: "memory", needed: 1024 }, evidence: { dockerfile_line: 3, exit_code: 137 } });
    expect(read.last_run!.last_exit_oom).toBe(true);
    expect(read.last_exit_oom).toBe(true);
  });

  it.concurrent("a data volume on a file of the image: said as such, and no text of the run shows the server's own paths", async () => {
    const read = await failedRun("volume-on-file", nodeApp("require('http').createServer((q, s) => s.end('ok')).listen(3000);"), { volume_path: "/app/server.js" });
    expect(read.last_run!.diagnosis!.title).toBe("The data volume's path is a file in the image");
    // The engine's error names its data root (/var/lib/docker/…): the reason and diagnosis never do.
    expect(JSON.stringify(read.last_run)).not.toMatch(/\/var\/lib\/docker|overlay2|\/proc\/self/);
    expect(read.last_run!.reason).toContain("(a path on the server)");
  });

  it.concurrent("an image with no CMD: the base image's node ends at once; the repository's start script is named", async () => {
    const read = await failedRun("no-cmd", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "WORKDIR /app", "COPY . /app", ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n",
      "package.json": JSON.stringify({ name: "no-cmd", scripts: { start: "node server.js" } }),
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "no_start_command", evidence: { exit_code: 0, start_command: ["npm", "start"] } });
    expect(diagnosis.fix).toContain('CMD ["npm","start"]');
  });

  it.concurrent("an image whose command is emptied: Docker has nothing to run, no_start_command with the Procfile's web line", async () => {
    const read = await failedRun("empty-cmd", {
      Dockerfile: [`FROM ${h.images.busybox}`, h.label, "COPY . /www", "CMD []", ""].join("\n"),
      Procfile: "web: httpd -f -p $PORT -h /www\n",
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "no_start_command", evidence: { start_command: ["sh", "-c", "httpd -f -p $PORT -h /www"] } });
    expect(diagnosis.detail).toContain("Docker had nothing to run");
  });

  it.concurrent("an app on 127.0.0.1: listening_on_localhost, found inside the container", async () => {
    const read = await failedRun("localhost", nodeApp("require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT, '127.0.0.1');\n"));
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "listening_on_localhost", evidence: { listening: [{ address: "127.0.0.1", port: 3000 }] } });
  });

  it.concurrent("an app on 8080 while PORT is 3000: not_listening, naming 8080", async () => {
    const read = await failedRun("other-port", nodeApp("require('node:http').createServer((q, s) => s.end('ok')).listen(8080);\n"));
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "not_listening", title: "The app listens on port 8080, not 3000", evidence: { listening: [{ port: 8080 }] } });
    expect(diagnosis.evidence!.listening!.every((socket) => socket.port === 8080)).toBe(true);
    expect(diagnosis.fix).toContain('"port": 8080');
  });

  it.concurrent("an app that listens nowhere: not_listening, no socket at all", async () => {
    const read = await failedRun("nowhere", nodeApp("setInterval(() => {}, 1000);\n"));
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "not_listening", title: "The app does not listen on any port", evidence: { listening: [] } });
  });

  it.concurrent("an app that answers 500: health_error", async () => {
    const read = await failedRun(
      "answers-500",
      nodeApp("require('node:http').createServer((q, s) => { console.error('GET', q.url, 'failed: no database'); s.statusCode = 500; s.end('no'); }).listen(process.env.PORT);\n"),
      { health_path: "/health" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "health_error", title: "The app answers /health with an error (500)" });
    // Logged at every probe: quoted once, with how many times.
    expect(diagnosis.detail).toMatch(/GET \/health failed: no database \(\d+ times\)/);
  });

  it.concurrent("an app that accepts but never answers: health_timeout, listening on its port", async () => {
    const read = await failedRun("silent", nodeApp("require('node:http').createServer(() => {}).listen(process.env.PORT);\n"));
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "health_timeout", evidence: { listening: [{ port: 3000 }] } });
  });

  it.concurrent("an app that exits 2 with an error: crash_on_start with the code and its last lines", async () => {
    const read = await failedRun("crashes", nodeApp("console.log('starting');\nconsole.error('Error: DATABASE_URL is not set');\nprocess.exit(2);\n"));
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "crash_on_start", evidence: { exit_code: 2 } });
    expect(diagnosis.detail).toContain("exited with code 2");
    expect(diagnosis.detail).toContain("Error: DATABASE_URL is not set");
  });

  it.concurrent("an app that allocates past its 512 MB at start: out_of_memory, 1 GB wanted, last_exit_oom", async () => {
    const read = await failedRun("run-oom", nodeApp("const kept = [];\nfor (;;) kept.push(Buffer.alloc(32 * 1024 * 1024, 1));\n"));
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "out_of_memory", limit: { kind: "memory", needed: 1024 }, evidence: { exit_code: 137, peak_memory_mb: 512 } });
    expect(read.last_run!.last_exit_oom).toBe(true);
    expect(read.last_exit_oom).toBe(true);
  });
});
