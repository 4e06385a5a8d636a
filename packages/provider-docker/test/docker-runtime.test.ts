import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { Readable } from "node:stream";
import { BuildFailure } from "@reposite/core";
import { buildLocalBaseImages, containerRuntimeContract, docker, dockerForTests, writeTar } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerRuntime, detectDockerRuntime, type DockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
/** Everything this file makes carries this label, and is removed by it at the end. */
const RUN_LABEL = "reposite-test.run";
const run = `docker-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Removes every container, image, volume and network labelled with this file's run. */
async function removeEverything(): Promise<void> {
  const filter = `label=${RUN_LABEL}=${run}`;
  const ids = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
  const containers = await ids(["ps", "-aq", "--filter", filter]);
  if (containers.length) await docker(["rm", "-f", "-v", ...containers]);
  const images = await ids(["images", "-aq", "--filter", filter]);
  if (images.length) await docker(["rmi", "-f", ...new Set(images)]).catch(() => undefined);
  const volumes = await ids(["volume", "ls", "-q", "--filter", filter]);
  if (volumes.length) await docker(["volume", "rm", "-f", ...volumes]);
  const networks = await ids(["network", "ls", "-q", "--filter", filter]);
  if (networks.length) await docker(["network", "rm", ...networks]);
}

const tarOf = (files: Record<string, string>) =>
  writeTar(Object.entries(files).map(([path, content]) => ({ path, type: "file" as const, content: Buffer.from(content) })));

describe.skipIf(!engine.available)("provider-docker", () => {
  let base: Awaited<ReturnType<typeof buildLocalBaseImages>>;
  let runtime: DockerRuntime;
  /** A node image whose server answers `hello` on 8080, shared by the tests below. */
  let webImage = "";

  beforeAll(async () => {
    base = await buildLocalBaseImages();
    runtime = createDockerRuntime();
    const server = "require('node:http').createServer((request, response) => response.end('hello\\n')).listen(8080)";
    const dockerfile = [`FROM ${base.node}`, `LABEL ${RUN_LABEL}=${run}`, `CMD ["node", "-e", ${JSON.stringify(server)}]`].join("\n");
    webImage = (await runtime.buildImage(buildRequest(dockerfile, "web"))).id;
  });
  afterAll(async () => {
    await removeEverything();
  });

  const buildRequest = (dockerfile: string, name: string, onLog: (line: string) => void = () => undefined) => ({
    context: Readable.from([tarOf({ Dockerfile: dockerfile })]),
    dockerfile: "Dockerfile",
    tag: `reposite-test/${run}-${name}:1`,
    labels,
    memoryMb: 128,
    timeoutMs: 60_000,
    onLog,
  });
  const runWeb = (name: string, network: string) =>
    runtime.runContainer({
      name: `${run}-${name}`,
      image: webImage,
      labels,
      env: {},
      port: 8080,
      memoryMb: 64,
      cpus: 0.5,
      pidsLimit: 50,
      network: `${run}-${network}`,
    });

  containerRuntimeContract("docker", async () => {
    const images = await buildLocalBaseImages();
    return {
      runtime: createDockerRuntime(),
      baseImages: { node: images.node, busybox: images.busybox },
      labels,
      async publishedHostIps(id) {
        const { stdout } = await docker(["inspect", "--format", "{{json .NetworkSettings.Ports}}", id]);
        const ports = JSON.parse(stdout) as Record<string, { HostIp: string }[] | null>;
        return Object.values(ports).flatMap((bindings) => (bindings ?? []).map((binding) => binding.HostIp));
      },
      teardown: async () => undefined, // removeEverything, at the end of the file
    };
  });

  it("keeps one app from reaching another: names resolve only inside an app's own network", async () => {
    const a = await runWeb("app-a", "net-a");
    await runWeb("app-b", "net-b");
    // From inside A, as its code would (busybox's static wget cannot resolve names).
    const get = (url: string) => {
      const script = `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(3000) }).then((r) => r.text()).then((t) => process.stdout.write(t), (e) => { console.error(e.cause?.code ?? e.name); process.exit(1); })`;
      return docker(["exec", a.id, "node", "-e", script]);
    };
    expect((await get(`http://${run}-app-a:8080/`)).stdout.trim()).toBe("hello");
    await expect(get(`http://${run}-app-b:8080/`)).rejects.toThrow(/ENOTFOUND|EAI_AGAIN/);
  });

  it("runs an app without privileges, with a pids limit, no swap and its port on 127.0.0.1 only", async () => {
    const app = await runWeb("locked-down", "net-locked");
    const { stdout } = await docker(["inspect", "--format", "{{json .HostConfig}}", app.id]);
    const host = JSON.parse(stdout) as {
      SecurityOpt: string[];
      CapDrop: string[];
      CapAdd: string[] | null;
      Privileged: boolean;
      PidsLimit: number;
      Memory: number;
      MemorySwap: number;
      NanoCpus: number;
      NetworkMode: string;
      Binds: string[] | null;
      Mounts?: unknown[];
      PortBindings: Record<string, { HostIp: string; HostPort: string }[]>;
    };
    expect(host.SecurityOpt).toContain("no-new-privileges");
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.Privileged).toBe(false);
    expect(host.PidsLimit).toBe(50);
    expect(host.Memory).toBe(64 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(500_000_000);
    expect(host.NetworkMode).toBe(`${run}-net-locked`);
    expect(host.Binds ?? []).toEqual([]); // no Docker socket, nothing of the host's
    expect(host.PortBindings).toEqual({ "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] });

    // And inside, as the kernel sees the app: no capabilities, no new privileges, the pids cap.
    const status = (await docker(["exec", app.id, "cat", "/proc/1/status"])).stdout;
    expect(/^CapEff:\s*(\w+)/m.exec(status)?.[1]).toMatch(/^0+$/);
    expect(/^NoNewPrivs:\s*(\d)/m.exec(status)?.[1]).toBe("1");
    const published = (await docker(["port", app.id, "8080/tcp"])).stdout.trim().split("\n");
    expect(published).toEqual([`127.0.0.1:${app.hostPort}`]);
    expect(await (await fetch(`http://127.0.0.1:${app.hostPort}/`)).text()).toBe("hello\n");
  });

  it("streams the build log one readable line at a time, progress redrawn with \\r shown as it ends", async () => {
    const lines: string[] = [];
    const dockerfile = [
      `FROM ${base.busybox}`,
      `LABEL ${RUN_LABEL}=${run}`,
      "RUN printf 'one\\ntwo\\nthree\\n' && printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\n' && printf '\\033[32mgreen\\033[0m\\n'",
    ].join("\n");
    await runtime.buildImage(buildRequest(dockerfile, "log-lines", (line) => lines.push(line)));
    // BuildKit's steps, numbered as they appear, and each output line under its step's number.
    const step = lines.find((line) => /^#\d+ \[2\/2\] RUN printf 'one/.test(line));
    expect(step).toBeDefined();
    const number = /^#(\d+) /.exec(step!)![1];
    const output = lines.filter((line) => line.startsWith(`#${number} `)).map((line) => line.slice(`#${number} `.length));
    expect(output).toEqual(expect.arrayContaining(["one", "two", "three", "progress 100%", "green"]));
    expect(output.indexOf("one")).toBeLessThan(output.indexOf("three"));
    expect(lines).toContainEqual(expect.stringMatching(/^#\d+ \[1\/2\] FROM /));
    for (const line of lines) expect(line).not.toMatch(/[\r\n\u001b]/);
  });

  it("holds a build to its memory with no extra swap, as the step's own cgroup tells", async () => {
    const lines: string[] = [];
    const v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes";
    const v2 = "/sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.swap.max";
    const dockerfile = [`FROM ${base.busybox}`, `LABEL ${RUN_LABEL}=${run}`, `RUN cat ${v1} 2>/dev/null || cat ${v2}`].join("\n");
    await runtime.buildImage({ ...buildRequest(dockerfile, "build-limits", (line) => lines.push(line)), memoryMb: 96 });
    const limit = String(96 * 1024 * 1024);
    const [memory, swap] = lines.map((line) => line.replace(/^#\d+ /, "")).filter((line) => /^\d+$/.test(line));
    expect(memory).toBe(limit);
    expect([limit, "0"]).toContain(swap); // cgroup v1: memory+swap equals memory; v2: no swap
  });

  it("stops the build's running step on the Engine when the build times out or is cancelled", async () => {
    const marker = `${run}-stopped`;
    const dockerfile = [`FROM ${base.busybox}`, `LABEL ${RUN_LABEL}=${run}`, `RUN echo ${marker} && sleep 60 && echo never`].join("\n");
    // BuildKit runs a step as a process of its own (no container): found by its command line.
    const stepRunning = async () => ((await stepProcesses(marker)).length > 0 ? "running" : "");

    const controller = new AbortController();
    const building = runtime.buildImage({ ...buildRequest(dockerfile, "cancelled"), signal: controller.signal });
    await until(async () => (await stepRunning()) !== ""); // the RUN step is running
    controller.abort();
    await expect(building).rejects.toMatchObject({ reason: "cancelled" });
    await until(async () => (await stepRunning()) === "");

    const timed = runtime.buildImage({ ...buildRequest(dockerfile, "timed-out"), timeoutMs: 2_500 });
    await until(async () => (await stepRunning()) !== "");
    const failure = await timed.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BuildFailure);
    expect(failure).toMatchObject({ reason: "timeout" });
    await until(async () => (await stepRunning()) === "");
  });

  it("finds the Engine when it answers, and answers null quickly when it does not", async () => {
    const found = await detectDockerRuntime();
    expect(found?.name).toMatch(/^docker \d+\.\d+/);

    expect(await detectDockerRuntime({ dockerHost: `unix:///tmp/${run}-no-such.sock` })).toBeNull();
    // An address that accepts connections but never answers: given up on at the timeout.
    const held = new Set<Socket>();
    const silent: Server = createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    const started = Date.now();
    try {
      expect(await detectDockerRuntime({ dockerHost: `tcp://127.0.0.1:${port}`, timeoutMs: 500 })).toBeNull();
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});

/** Ids of this machine's processes whose command line names `marker`. */
async function stepProcesses(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (command.includes(marker) && command.includes("sleep")) found.push(pid);
  }
  return found;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
