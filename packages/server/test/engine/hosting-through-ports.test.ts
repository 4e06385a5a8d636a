import { request } from "node:http";
import { join } from "node:path";
import { asPorts, CONTAINER_RUNTIME, DeploymentStore, type ContainerRuntime } from "@reposite/core";
import { buildLocalPauseImage, docker, dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness, type HostingPorts } from "./engine-harness.js";

const engine = await dockerForTests();
const root = process.getuid?.() === 0;

/** Every call made on `port`, as `<what>.<method> <first argument when it is a string>`. */
function recorded<T extends object>(port: T, what: string, calls: string[]): T {
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(`${what}.${String(key)}${typeof args[0] === "string" ? ` ${args[0]}` : ""}${key === "stop" && args[1] ? ` ${JSON.stringify(args[1])}` : ""}`);
        return (value as (...all: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function get(target: { host: string; port: number }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path: "/", agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

// Core hosts apps on one Engine through provider-docker's ImageBuilder and AppRuntime (`caller`
// rollout): every runtime call of a deploy, a redeploy's switch-over, stop/start, logs, disk
// figures and removal is a call on one of the two ports.
describe.skipIf(!engine.available)("hosting on one Engine through the ImageBuilder and AppRuntime ports", () => {
  let h: EngineHarness;
  let owner: string;
  const calls: string[] = [];
  const since = (mark: number) => calls.slice(mark);
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;

  beforeAll(async () => {
    const networkHolderImage = await buildLocalPauseImage();
    h = await startEngineHarness({
      // Network holders and loop-mounted volumes (root only) stay behind the adapters, as a server has them.
      runtime: (dataDir) => ({ networkHolderImage, ...(root ? { volumesDir: join(dataDir, "volumes") } : {}) }),
      ports: ({ imageBuilder, appRuntime }: HostingPorts) => ({ imageBuilder: recorded(imageBuilder, "builder", calls), appRuntime: recorded(appRuntime, "apps", calls) }),
    });
    owner = await h.account();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  it("deploys, switches over, stops, starts, reads logs and disk, and removes the app through the two ports", async () => {
    const runtime = h.reposite.container.resolve<ContainerRuntime>(CONTAINER_RUNTIME);
    expect(asPorts(runtime)?.apps.capabilities.rollout).toBe("caller");
    const site = await h.project(owner, "through-ports", {
      Dockerfile: [`FROM ${h.images.busybox}`, h.label, "RUN mkdir -p /www && echo ported > /www/index.html", 'CMD ["sh", "-c", "echo hello-from-the-app; exec httpd -f -p 3000 -h /www"]', ""].join("\n"),
    });

    // A deploy: built by the builder, run by the app runtime, health-checked where address() says.
    let mark = calls.length;
    const first = await h.deploy(owner, site, { volume_path: "/data" });
    expect(first.job.status, first.text).toBe("done");
    const one = await container(site);
    expect(since(mark)).toEqual(expect.arrayContaining(["builder.build", expect.stringMatching(/^apps\.run$/), `apps.inspect ${one.id}`, `apps.address ${one.id}`]));
    expect(await get(one)).toEqual({ status: 200, body: "ported\n" });

    // A redeploy: a second app beside the first, the route switched to it, the first drained and removed.
    mark = calls.length;
    const second = await h.deploy(owner, site);
    expect(second.job.status, second.text).toBe("done");
    const two = await container(site);
    expect(two.id).not.toBe(one.id);
    expect(await get(two)).toEqual({ status: 200, body: "ported\n" });
    await expect.poll(() => since(mark), { timeout: 10_000 }).toEqual(expect.arrayContaining(["builder.build", "apps.run", `apps.stop ${one.id} {"graceSeconds":1}`, `apps.remove ${one.id}`]));
    await expect.poll(() => h.runtime.inspectContainer(one.id), { timeout: 10_000 }).toBeNull();

    // Logs and metrics (disk figures included).
    mark = calls.length;
    expect(await h.reposite.appOperations.logs(owner, site)).toContain("hello-from-the-app");
    const metrics = await h.reposite.appOperations.metrics(owner, site);
    expect(metrics.running).toBe(true);
    expect(metrics.storage.image_mb).toBeGreaterThan(0);
    expect(since(mark)).toEqual(expect.arrayContaining([`apps.logs ${two.id}`, `apps.stats ${two.id}`]));
    // The disk figures were measured after the deploy (metrics reads them while fresh).
    expect(calls).toEqual(expect.arrayContaining(["builder.imageSize", expect.stringMatching(/^apps\.diskUsage /), expect.stringMatching(/^apps\.volumeSize reposite-data-/)]));

    // Stop keeps the container; start runs a new one from the same image.
    mark = calls.length;
    await h.reposite.hosting.stop(owner, site);
    expect(since(mark)).toContain(`apps.stop ${two.id} {"graceSeconds":1}`);
    expect((await h.runtime.inspectContainer(two.id))?.running).toBe(false);
    mark = calls.length;
    const started = await h.reposite.hosting.start(owner, site);
    expect(started.status).toBe("running");
    const three = await container(site);
    expect(since(mark)).toContain("apps.run");
    expect(await get(three)).toEqual({ status: 200, body: "ported\n" });

    // Removal: the apps, their image, the volume, the build cache; the network goes with the last app.
    mark = calls.length;
    await h.reposite.hosting.remove(owner, site);
    expect(since(mark)).toEqual(expect.arrayContaining([`apps.remove ${three.id}`, "builder.remove", expect.stringMatching(/^apps\.removeVolume reposite-data-/), "builder.removeBuildCache"]));
    const left = await docker(["ps", "-aq", "--filter", `label=dev.reposite.site=${site}`]);
    expect(left.stdout.trim()).toBe("");
    const networks = await docker(["network", "ls", "-q", "--filter", `name=reposite-app-${site.toLowerCase()}`]);
    expect(networks.stdout.trim()).toBe("");
  }, 180_000);

  it("leaves no network or network holder behind when an app that never started is deleted", async () => {
    // The volume's path is a file in the image: the Engine refuses the container, after its network and holder were made.
    const site = await h.project(owner, "never-starts", { Dockerfile: [`FROM ${h.images.busybox}`, h.label, "RUN echo file > /data", ""].join("\n") });
    const network = `reposite-app-${site.toLowerCase()}`;
    const { job, text } = await h.deploy(owner, site, { volume_path: "/data" });
    expect(job.status, text).toBe("error");
    expect(text).toMatch(/cannot (create|start) reposite-/);
    await h.reposite.hosting.remove(owner, site);
    expect((await docker(["ps", "-aq", "--filter", `label=dev.reposite.network=${network}`])).stdout.trim()).toBe("");
    expect((await docker(["network", "ls", "-q", "--filter", `name=${network}`])).stdout.trim()).toBe("");
  }, 120_000);
});
