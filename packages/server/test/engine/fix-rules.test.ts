import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();

/**
 * The fix without a language model, on the Docker Engine: a real failure, its real diagnosis, and
 * the fix the diagnosis makes certain, deployed. Each case is its own account (one build each).
 */
// A failed first deploy, then the fix's build and deploy, on a loaded machine: more than the usual 30 s.
describe.skipIf(!engine.available)("the fix without a model on the Engine", { timeout: 120_000 }, () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness({ hosting: { healthTimeoutMs: 10_000, buildConcurrency: 4 } });
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  async function failedApp(name: string, files: Record<string, string>) {
    const owner = await h.account();
    const site = await h.project(owner, name, files);
    const { job } = await h.deploy(owner, site, { port: 3000 });
    expect(job.status).toBe("error");
    return { owner, site, read: await h.reposite.hosting.read(owner, site) };
  }

  it.concurrent("an app on port 8080 while PORT is 3000: the fix sets port 8080 and the plain deploy runs, no override kept", async () => {
    const { owner, site, read } = await failedApp("fix-port", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "COPY server.js /app/server.js", 'CMD ["node", "/app/server.js"]', ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(8080);\n",
    });
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "not_listening", evidence: { listening: [{ port: 8080 }] } });
    const started = await h.reposite.appFixer.fix(owner, site);
    expect(started.writer).toBe("rules");
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job.status).toBe("done");
    expect(text).toContain("set port to 8080");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", port: 8080, override: false, last_run: { status: "done" } });
    expect((await h.reposite.hosting.listRuns(owner, site)).map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "repository"],
      ["failed", "repository"],
    ]);
  });

  it.concurrent("no CMD, and a package.json start script: the fix adds CMD npm start, the app runs from the kept override", async () => {
    const { owner, site, read } = await failedApp("fix-no-cmd", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "WORKDIR /app", "COPY . /app", ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n",
      "package.json": JSON.stringify({ name: "fix-no-cmd", scripts: { start: "node server.js" } }),
    });
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "no_start_command", evidence: { start_command: ["npm", "start"] } });
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status, text).toBe("done");
    expect(text).toContain('add CMD ["npm","start"]');
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", override: true });
    const [fixed] = await h.reposite.hosting.listRuns(owner, site);
    expect(fixed).toMatchObject({ status: "done", dockerfile_source: "fix" });
    const override = (await h.reposite.container.resolve(DeploymentStore).get(site))!.override!;
    expect(override.run_id).toBe(fixed!.run_id);
    expect(override.dockerfile.trimEnd().split("\n").at(-1)).toBe('CMD ["npm","start"]');
  });

  it.concurrent("an app on 127.0.0.1 that reads HOST (as Nuxt and Next read HOST and HOSTNAME): the fix adds HOST=0.0.0.0 and the app runs", async () => {
    const { owner, site, read } = await failedApp("fix-localhost", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "COPY server.js /app/server.js", 'CMD ["node", "/app/server.js"]', ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT, process.env.HOST || '127.0.0.1');\n",
    });
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "listening_on_localhost" });
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status, text).toBe("done");
    expect(text).toContain("add ENV HOST=0.0.0.0 HOSTNAME=0.0.0.0");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", port: 3000, override: true });
  });
});
