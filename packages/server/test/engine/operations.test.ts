import { request } from "node:http";
import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();
const SECRET = "tok_8c1f2b9e77d3";

/** Status and body of a GET straight to the app's published port. */
function get(target: { host: string; port: number }, path = "/"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

// Logs, metrics and reset-data of apps on the real Engine.
describe.skipIf(!engine.available)("operating an app on the Engine", () => {
  let h: EngineHarness;
  let owner: string;
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
  /** A busybox web server on 3000 that runs `before` first. */
  const app = (before: string) => ({
    Dockerfile: [
      `FROM ${h.images.busybox}`,
      h.label,
      "RUN mkdir -p /www && echo ok > /www/index.html",
      `CMD ["sh", "-c", ${JSON.stringify(`${before} exec httpd -f -p 3000 -h /www`)}]`,
      "",
    ].join("\n"),
  });

  beforeAll(async () => {
    h = await startEngineHarness();
    owner = await h.account();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  it("logs: stdout and stderr in the order written, at most 5000 lines, env values masked", async () => {
    const site = await h.project(
      owner,
      "ops-logs",
      app('echo out-1; sleep 0.05; echo err-1 >&2; sleep 0.05; echo out-2; sleep 0.05; echo err-2 >&2; sleep 0.05; i=0; while [ $i -lt 5200 ]; do i=$((i+1)); echo line-$i; done; sleep 0.05; echo "token is $TOKEN" >&2;'),
    );
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { TOKEN: SECRET } });
    const { job } = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(job.status).toBe("done");

    // Docker copies stdout and stderr apart and orders them as they arrive: lines written
    // milliseconds apart keep their order, lines of both streams in the same instant may not.
    const all = (await h.reposite.appOperations.logs(owner, site, "5000")).trimEnd().split("\n");
    expect(all).toHaveLength(5000);
    expect(all.at(-1)).toBe("token is ***");
    expect(all.at(-2)).toBe("line-5200");
    expect(all[0]).toBe("line-202");
    expect(await h.reposite.appOperations.logs(owner, site, "99999")).toBe(`${all.join("\n")}\n`);

    // Fewer lines, so the start shows: stdout and stderr interleaved as written.
    const small = await h.project(owner, "ops-logs-order", app("echo out-1; sleep 0.05; echo err-1 >&2; sleep 0.05; echo out-2; sleep 0.05; echo err-2 >&2;"));
    await h.deploy(owner, small);
    expect(await h.reposite.appOperations.logs(owner, small)).toBe("out-1\nerr-1\nout-2\nerr-2\n");
    expect(await h.reposite.appOperations.logs(owner, small, "2")).toBe("out-2\nerr-2\n");
    await h.reposite.hosting.stop(owner, small);
    expect(await h.reposite.appOperations.logs(owner, small, "1")).toBe("err-2\n");
  }, 120_000);

  it("metrics: memory in use against 512 MB, CPU of one CPU, network bytes that grow with a request; zeros once stopped", async () => {
    const site = await h.project(owner, "ops-metrics", app(""));
    await h.deploy(owner, site);
    const target = await container(site);
    const first = await h.reposite.appOperations.metrics(owner, site);
    expect(first).toMatchObject({ running: true, cpu: { cpus: 1 }, memory: { limit_mb: 512 }, storage: { over: false, limit_mb: 3072 } });
    expect(first.memory.used_mb).toBeGreaterThan(0);
    expect(first.cpu.percent).toBeGreaterThanOrEqual(0);
    expect(first.cpu.percent).toBeLessThanOrEqual(100);
    expect(first.storage.image_mb).toBeGreaterThan(0.5);
    expect((await get(target, "/index.html")).body).toBe("ok\n");
    const second = await h.reposite.appOperations.metrics(owner, site);
    expect(second.network.rx_bytes).toBeGreaterThan(first.network.rx_bytes);
    expect(second.network.tx_bytes).toBeGreaterThan(first.network.tx_bytes);

    await h.reposite.hosting.stop(owner, site);
    expect(await h.reposite.appOperations.metrics(owner, site)).toMatchObject({
      running: false,
      cpu: { percent: 0 },
      memory: { used_mb: 0, limit_mb: 512 },
      network: { rx_bytes: 0, tx_bytes: 0 },
    });
  }, 120_000);

  it("reset-data: a file written to the volume is gone and the app runs again in a new container", async () => {
    const site = await h.project(owner, "ops-reset", app(""));
    await h.deploy(owner, site, { volume_path: "/data" });
    const before = await container(site);
    expect(await h.runtime.exec!(before.id, ["sh", "-c", "echo precious > /data/notes && cat /data/notes"])).toEqual({ exitCode: 0, output: "precious\n" });
    const { slug } = await h.reposite.hosting.read(owner, site);
    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: "wrong" })).rejects.toMatchObject({ status: 422, code: "confirm_mismatch" });
    expect((await h.runtime.exec!(before.id, ["cat", "/data/notes"])).output).toBe("precious\n");

    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).resolves.toMatchObject({ status: "running" });
    const after = await container(site);
    expect(after.id).not.toBe(before.id);
    expect(await h.runtime.inspectContainer(before.id)).toBeNull();
    expect(await h.runtime.exec!(after.id, ["ls", "-A", "/data"])).toEqual({ exitCode: 0, output: "" });
    expect((await get(after, "/index.html")).status).toBe(200);
  }, 120_000);
});
