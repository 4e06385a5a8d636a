import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { buildLocalBaseImages, docker, dockerForTests, removeLabelled } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerRuntime, type DockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `loopvol-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };
const MB = 1024 * 1024;

/** `dd` of `mb` MB into `path` inside the container: how far it got (MB written) and its error. */
async function fill(id: string, path: string, mb: number): Promise<{ ok: boolean; output: string }> {
  return docker(["exec", id, "sh", "-c", `dd if=/dev/zero of=${path} bs=1M count=${mb} 2>&1; echo "rc=$?"`]).then(({ stdout }) => ({
    ok: /rc=0/.test(stdout),
    output: stdout,
  }));
}
const sizeOf = async (id: string, path: string) => Number((await docker(["exec", id, "stat", "-c", "%s", path])).stdout.trim()) / MB;

// Write-time disk limits on the real Engine (root, loop devices): a volume is a loop-mounted ext4
// filesystem held to its limit, the root filesystem is read-only with a 64 MB /tmp.
describe.skipIf(!engine.available)("loop-mounted volumes on the Engine", () => {
  let dir: string;
  let runtime: DockerRuntime;
  let image: string;
  let loopOn = false;
  const volume = `${run}-data`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reposite-loopvol-"));
    runtime = createDockerRuntime({ volumesDir: join(dir, "volumes") });
    loopOn = (await runtime.diskLimits!()).atWriteTime;
    image = (await buildLocalBaseImages()).busybox;
  });
  afterAll(async () => {
    await removeLabelled(RUN_LABEL, run);
    const volumes = await runtime.loopVolumes();
    for (const name of (await volumes?.names()) ?? []) await volumes!.remove(name);
    await rm(dir, { recursive: true, force: true });
  });

  const start = (name: string, limitMb: number) =>
    runtime.runContainer({
      name: `${run}-${name}`,
      image,
      labels,
      env: {},
      command: ["sh", "-c", "httpd -p 3000 -h /tmp; sleep 3600"],
      port: 3000,
      memoryMb: 256,
      cpus: 0.5,
      pidsLimit: 50,
      volume: { name: volume, path: "/data", limitMb },
      network: `${run}-net`,
    });

  it("says how limits hold; as root with loop devices, at write time", async () => {
    const limits = await runtime.diskLimits!();
    expect(limits.note).toMatch(limits.atWriteTime ? /enforced at write time/ : /measured periodically/);
    // These machines are root with loop devices: the mechanism must be on here.
    if (process.getuid?.() === 0) expect(limits.atWriteTime).toBe(true);
    const measured = createDockerRuntime();
    expect(await measured.diskLimits!()).toEqual({ atWriteTime: false, note: expect.stringMatching(/measured periodically.*no folder/) });
  });

  it("a write past the limit fails with ENOSPC in the volume, EROFS on the root and ENOSPC past the 64 MB /tmp; a resize applies at once, up and down, while it runs; the host keeps only what was written", async () => {
    if (!loopOn) return expect(process.getuid?.()).not.toBe(0);
    const app = await start("writer", 40);
    const inVolume = await fill(app.id, "/data/fill", 200);
    expect(inVolume.ok).toBe(false);
    expect(inVolume.output).toMatch(/No space left on device/);
    const written = await sizeOf(app.id, "/data/fill");
    expect(written).toBeLessThanOrEqual(40);
    expect(written).toBeGreaterThan(30);
    console.log(`[loop volumes] limit 40 MB: dd of 200 MB into the volume stopped at ${written.toFixed(1)} MB`);
    expect((await runtime.volumeSize(volume))! / MB).toBeCloseTo(written, 0);

    const onRoot = await fill(app.id, "/fill", 10);
    expect(onRoot.output).toMatch(/Read-only file system/);
    const inTmp = await fill(app.id, "/tmp/fill", 200);
    expect(inTmp.output).toMatch(/No space left on device/);
    expect(await sizeOf(app.id, "/tmp/fill")).toBeLessThanOrEqual(64);
    await docker(["exec", app.id, "rm", "/tmp/fill"]);

    // A purchase: 40 → 100 MB, at once.
    await runtime.resizeVolume!(volume, 100);
    expect((await fill(app.id, "/data/more", 50)).ok).toBe(true);
    // A lowered limit below what it holds (90 MB): nothing more can be written.
    await runtime.resizeVolume!(volume, 20);
    const after = await fill(app.id, "/data/over", 10);
    expect(after.ok).toBe(false);
    expect(await sizeOf(app.id, "/data/over")).toBeLessThan(1);
    // Back under the limit once the app frees room.
    await docker(["exec", app.id, "rm", "/data/fill", "/data/more", "/data/over"]);
    await runtime.resizeVolume!(volume, 20);
    expect((await fill(app.id, "/data/small", 10)).ok).toBe(true);

    // The image file is sparse: the host holds about what the app wrote, not the capacity.
    const onHost = (await stat(join(dir, "volumes", `${volume}.img`))).blocks * 512;
    expect(onHost / MB).toBeLessThan(200);
  }, 120_000);

  it("after a reboot (the filesystem unmounted) the volume is mounted again before its app starts, with its data; a new runtime on the same folder finds it", async () => {
    if (!loopOn) return;
    const app = await start("reboot", 40);
    await docker(["exec", app.id, "sh", "-c", "echo kept > /data/note"]);
    await runtime.stopContainer(app.id, 0);
    await docker(["volume", "rm", "-f", volume]).catch(() => undefined); // what the Engine forgets
    await promisify(execFile)("umount", [join(dir, "volumes", volume)]);
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(join(dir, "volumes", volume));

    const restarted = createDockerRuntime({ volumesDir: join(dir, "volumes") });
    await restarted.removeContainer(app.id);
    const again = await restarted.runContainer({
      name: `${run}-reboot-2`,
      image,
      labels,
      env: {},
      command: ["sh", "-c", "sleep 3600"],
      port: 3000,
      memoryMb: 64,
      cpus: 0.5,
      pidsLimit: 50,
      volume: { name: volume, path: "/data", limitMb: 40 },
      network: `${run}-net`,
    });
    expect((await docker(["exec", again.id, "cat", "/data/note"])).stdout.trim()).toBe("kept");
    expect((await fill(again.id, "/data/fill", 100)).output).toMatch(/No space left on device/);
  }, 120_000);

  it("starting a stopped app after a reboot mounts its own volume again, with its data, and only its own", async () => {
    if (!loopOn) return;
    const withVolume = (name: string) =>
      runtime.runContainer({
        name: `${run}-${name}`,
        image,
        labels,
        env: {},
        command: ["sh", "-c", "sleep 3600"],
        port: 3000,
        memoryMb: 64,
        cpus: 0.5,
        pidsLimit: 50,
        volume: { name: `${run}-${name}`, path: "/data", limitMb: 20 },
        network: `${run}-net`,
      });
    const own = await withVolume("own");
    const neighbour = await withVolume("neighbour");
    await docker(["exec", own.id, "sh", "-c", "echo kept > /data/note"]);
    for (const app of [own, neighbour]) await runtime.stopContainer(app.id, 0);
    const mountPoint = (name: string) => join(dir, "volumes", `${run}-${name}`);
    for (const name of ["own", "neighbour"]) await promisify(execFile)("umount", [mountPoint(name)]);

    const state = await runtime.startContainer(own.id);
    expect(state.running).toBe(true);
    expect((await docker(["exec", own.id, "cat", "/data/note"])).stdout.trim()).toBe("kept");
    const mounts = await readFile("/proc/self/mountinfo", "utf8");
    expect(mounts).toContain(` ${mountPoint("own")} `);
    // Another app's volume stays as it is until its own app starts.
    expect(mounts).not.toContain(` ${mountPoint("neighbour")} `);
    for (const app of [own, neighbour]) await runtime.removeContainer(app.id);
  }, 120_000);

  it("removing the volume unmounts it and deletes its image", async () => {
    if (!loopOn) return;
    for (const container of await runtime.listContainers(labels)) await runtime.removeContainer(container.id);
    await runtime.removeVolume(volume);
    await expect(stat(join(dir, "volumes", `${volume}.img`))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(join(dir, "volumes", volume));
  }, 60_000);
});
