import { stat } from "node:fs/promises";
import { join } from "node:path";
import { AppDisk, DeploymentStore } from "@reposite/core";
import { docker, dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";

const engine = await dockerForTests();
const MB = 1024 * 1024;
const LIMIT_MB = 100;
/** The documented margin: what an app may write outside its volume (its /tmp, in memory). */
const MARGIN_MB = 64;

/** `dd` of `mb` MB of zeros to `path` inside a container: its output and whether it succeeded. */
async function dd(id: string, path: string, mb: number): Promise<{ ok: boolean; output: string }> {
  const { stdout } = await docker(["exec", id, "sh", "-c", `dd if=/dev/zero of=${path} bs=1M count=${mb} 2>&1; echo "rc=$?"`]);
  return { ok: /rc=0\s*$/.test(stdout), output: stdout };
}
const sizeMb = async (id: string, path: string) => Number((await docker(["exec", id, "stat", "-c", "%s", path])).stdout.trim()) / MB;

// Disk limits at write time, as a server running as root composes them: app volumes loop-mounted
// under the data dir, read-only root filesystems with a 64 MB /tmp. The periodic check is slow
// here (as in production, 60 s), so nothing below relies on it.
describe.skipIf(!engine.available)("disk limits at write time on the Engine", () => {
  let h: EngineHarness;
  let owner: string;
  let dataDir = "";
  let atWriteTime = false;
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
  const app = (name: string) => ({
    Dockerfile: [`FROM ${h.images.busybox}`, h.label, "RUN mkdir -p /www && echo ok > /www/index.html", 'CMD ["httpd", "-f", "-p", "3000", "-h", "/www"]', ""].join("\n"),
    "README.md": `# ${name}\n`,
  });

  beforeAll(async () => {
    h = await startEngineHarness({
      hosting: { diskLimitMb: LIMIT_MB, diskCheckIntervalMs: 60_000 },
      runtime: (dir) => ((dataDir = dir), { volumesDir: join(dir, "volumes") }),
    });
    atWriteTime = (await h.runtime.diskLimits!()).atWriteTime;
    owner = await h.account();
    await h.reposite.hosting.recover();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  it("as root with loop devices the limits hold at write time (else the server says they are measured)", () => {
    if (process.getuid?.() === 0) expect(atWriteTime).toBe(true);
  });

  it(`dd of 400 MB into the volume fails with ENOSPC before ${LIMIT_MB} MB; another app and the service go on; the image file lives under the data dir`, async () => {
    if (!atWriteTime) return;
    const writer = await h.project(owner, "wt-volume", app("writer"));
    const other = await h.project(owner, "wt-other", app("other"));
    await h.deploy(owner, writer, { volume_path: "/data" });
    await h.deploy(owner, other, { volume_path: "/data" });
    const id = (await container(writer)).id;

    const started = Date.now();
    const result = await dd(id, "/data/fill", 400);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/No space left on device/);
    const written = await sizeMb(id, "/data/fill");
    console.log(`[disk at write time] limit ${LIMIT_MB} MB: dd of 400 MB into the volume stopped at ${written.toFixed(1)} MB after ${Date.now() - started} ms (overshoot ${Math.max(0, written - LIMIT_MB).toFixed(1)} MB)`);
    expect(written).toBeLessThanOrEqual(LIMIT_MB);

    // The other app still writes to its own volume, answers, and the service measures both.
    expect((await dd((await container(other)).id, "/data/small", 10)).ok).toBe(true);
    expect((await h.reposite.hosting.read(owner, other)).status).toBe("running");
    // Measuring still covers the rest: the image on top of a full volume is over, and the app stops.
    const usage = await h.reposite.container.resolve(AppDisk).applyLimit(writer);
    expect(usage).toMatchObject({ over: true, limit_mb: LIMIT_MB });
    expect(usage!.volume_mb).toBeCloseTo(written, 0);
    expect(await h.reposite.hosting.read(owner, writer)).toMatchObject({ status: "stopped", stopped_reason: expect.stringMatching(/over its 100 MB/) });
    const image = await stat(join(dataDir, "volumes", `reposite-data-${writer.toLowerCase()}.img`));
    expect(image.blocks * 512).toBeLessThan((LIMIT_MB + 50) * MB); // sparse: what was written, not 80 GB

    // Deleting the app unmounts its volume and deletes the image.
    await h.reposite.hosting.remove(owner, writer);
    await expect(stat(join(dataDir, "volumes", `reposite-data-${writer.toLowerCase()}.img`))).rejects.toMatchObject({ code: "ENOENT" });
  }, 180_000);

  it(`dd into the container's filesystem: EROFS on the root, ENOSPC past the ${MARGIN_MB} MB /tmp`, async () => {
    if (!atWriteTime) return;
    const site = await h.project(owner, "wt-layer", app("layer"));
    await h.deploy(owner, site);
    const id = (await container(site)).id;
    const root = await dd(id, "/fill", 400);
    expect(root.output).toMatch(/Read-only file system/);
    const tmp = await dd(id, "/tmp/fill", 400);
    expect(tmp.output).toMatch(/No space left on device/);
    const written = await sizeMb(id, "/tmp/fill");
    console.log(`[disk at write time] dd of 400 MB into /tmp stopped at ${written.toFixed(1)} MB; the root filesystem refused any write`);
    expect(written).toBeLessThanOrEqual(MARGIN_MB);
    expect((await h.reposite.appOperations.metrics(owner, site)).storage.container_mb).toBeLessThan(1);
  }, 180_000);
});
