import { randomBytes, randomInt } from "node:crypto";
import { createServer, type Server } from "node:http";
import { networkInterfaces } from "node:os";
import { Readable } from "node:stream";
import { buildLocalBaseImages, buildLocalPauseImage, docker, dockerForTests, removeLabelled, writeTar } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppFirewall, createDockerRuntime, type AppFirewallOptions, type DockerRuntime } from "../src/index.js";
import { startOutsideWorld, type OutsideWorld } from "./outside-world.js";

const engine = await dockerForTests();
const root = process.getuid?.() === 0;
// The rules need root (iptables). Where CI requires the engine tests, a run without root fails instead of skipping.
if (engine.required && !root) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but the app firewall tests need root (iptables)");
// Changing the host's firewall and network namespaces needs root; CI must not skip it silently.
if (engine.available && engine.required && !root) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but the app firewall test needs root (iptables, ip netns)");

const RUN_LABEL = "reposite-test.run";
const hex = randomBytes(4).toString("hex");
const run = `firewall-${hex}`;
const labels = { [RUN_LABEL]: run };
/** A /24 of the benchmarking range 198.18.0.0/15 for this run's outside world. */
const subnet = `198.18.${randomInt(2, 250)}`;
const allowed = `${subnet}.2`;
const denied = `${subnet}.18`;
const METADATA = "169.254.169.254";
const firewallOptions: AppFirewallOptions = { denyCidrs: [`${subnet}.16/28`], networkLabels: labels };

/** The body `address:port` answers to an HTTP GET from inside `container`, or "" when it cannot be reached. */
async function reach(container: string, address: string, port: number): Promise<string> {
  const request = `printf 'GET / HTTP/1.0\\r\\nHost: probe\\r\\n\\r\\n' | nc -w 3 ${address} ${port}`;
  const { stdout } = await docker(["exec", container, "sh", "-c", request], { timeoutMs: 15_000 }).catch(() => ({ stdout: "" }));
  return stdout.split("\r\n\r\n").slice(1).join("\r\n\r\n");
}

const iptables = async (args: string[]) => (await import("node:child_process")).execFileSync("iptables", ["-w", ...args], { stdio: ["ignore", "pipe", "ignore"] }).toString();
const gatewayOf = async (network: string) => (await docker(["network", "inspect", "--format", "{{range .IPAM.Config}}{{.Gateway}}{{end}}", network])).stdout.trim();
const networkIdOf = async (network: string) => (await docker(["network", "inspect", "--format", "{{.Id}}", network])).stdout.trim();
const addressIn = async (container: string) => (await docker(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", container])).stdout.trim();

/** This machine's own address on its real network (not loopback, not a bridge of Docker's or ours). */
function hostAddress(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (/^(br-|docker|veth|rps)/.test(name)) continue;
    const address = addresses?.find((candidate) => candidate.family === "IPv4" && !candidate.internal);
    if (address) return address.address;
  }
  throw new Error("this machine has no non-loopback IPv4 address");
}

describe.skipIf(!engine.available || !root)("app firewall (iptables on the Docker Engine's host)", () => {
  let outside: OutsideWorld;
  let hostService: Server;
  let hostPort = 0;
  /** Apps on networks the firewall protects, as the server runs them. */
  let protectedRuntime: DockerRuntime;
  /** Docker as it was before: a network with no rules of ours. */
  let plainRuntime: DockerRuntime;
  /** Apps that start in their network's holder (network-holders.ts), on protected networks. */
  let heldRuntime: DockerRuntime;
  let image = "";
  const app = (runtime: DockerRuntime, name: string) =>
    runtime.runContainer({ name: `${run}-${name}`, image, labels, env: {}, port: 8080, memoryMb: 32, cpus: 0.25, pidsLimit: 20, network: `${run}-${name}` });

  beforeAll(async () => {
    const base = await buildLocalBaseImages();
    plainRuntime = createDockerRuntime();
    protectedRuntime = createDockerRuntime({ appFirewall: firewallOptions });
    heldRuntime = createDockerRuntime({ appFirewall: firewallOptions, networkHolderImage: await buildLocalPauseImage() });
    // A probe app: busybox httpd answers `app` on 8080, and `nc` tries addresses from inside.
    const dockerfile = [`FROM ${base.busybox}`, `LABEL ${RUN_LABEL}=${run}`, "RUN mkdir /www && echo app > /www/index.html", 'CMD ["httpd", "-f", "-p", "8080", "-h", "/www"]'].join("\n");
    const context = writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from(dockerfile) }]);
    image = (await plainRuntime.buildImage({ context: Readable.from([context]), dockerfile: "Dockerfile", tag: `reposite-test/${run}-probe:1`, labels, memoryMb: 64, timeoutMs: 60_000, onLog: () => undefined })).id;
    outside = await startOutsideWorld(hex, subnet, [allowed, denied, METADATA]);
    // A service of the host's bound to every address, as databases and admin panels often are.
    hostService = createServer((_, response) => response.end("host\n"));
    await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
    hostPort = (hostService.address() as { port: number }).port;
    expect(await protectedRuntime.appFirewall!.start()).toMatchObject({ on: true, denied: ["169.254.0.0/16", `${subnet}.16/28`] });
  });

  afterAll(async () => {
    hostService?.close();
    await outside?.close();
    await removeLabelled(RUN_LABEL, run); // networks go with their rules at the next start below
    await createAppFirewall(plainRuntime.docker, firewallOptions).start();
  });

  it("without the rules (Docker alone) an app reaches the host through its gateway and the host's address, a private range and 169.254.169.254", async () => {
    const before = await app(plainRuntime, "plain");
    const gateway = await gatewayOf(`${run}-plain`);
    expect(await reach(before.id, gateway, hostPort)).toBe("host\n");
    expect(await reach(before.id, hostAddress(), hostPort)).toBe("host\n");
    expect(await reach(before.id, denied, 80)).toBe("outside\n");
    expect(await reach(before.id, METADATA, 80)).toBe("outside\n");
  });

  it("an app reaches neither the host (gateway, own address), another app, a denied range nor 169.254.169.254, yet the internet and its published port", async () => {
    const probe = await app(protectedRuntime, "probe");
    const other = await app(protectedRuntime, "other");
    const gateway = await gatewayOf(`${run}-probe`);
    const targets = {
      gateway: [gateway, hostPort],
      hostAddress: [hostAddress(), hostPort],
      otherGateway: [await gatewayOf(`${run}-other`), hostPort],
      otherApp: [await addressIn(other.id), 8080],
      deniedRange: [denied, 80],
      metadata: [METADATA, 80],
    } as const;
    const answers = await Promise.all(Object.entries(targets).map(async ([name, [address, port]]) => [name, await reach(probe.id, address, port)]));
    expect(Object.fromEntries(answers)).toEqual({ gateway: "", hostAddress: "", otherGateway: "", otherApp: "", deniedRange: "", metadata: "" });
    // Targeted, not a blanket drop: an address outside the deny list answers through the same path.
    expect(await reach(probe.id, allowed, 80)).toBe("outside\n");
    // Replies to connections the app accepted: its published port answers on 127.0.0.1.
    expect(await (await fetch(`http://127.0.0.1:${probe.hostPort}/`)).text()).toBe("app\n");
    expect(await (await fetch(`http://127.0.0.1:${other.hostPort}/`)).text()).toBe("app\n");
    // And what the other app itself answers from inside its own network still works.
    expect(await reach(other.id, "127.0.0.1", 8080)).toBe("app\n");
  });

  it("an app started in its network holder is kept by the same rules: neither the host, another app, a denied range nor 169.254.169.254; the holder's published port answers", async () => {
    const probe = await app(heldRuntime, "held");
    expect((await docker(["inspect", "--format", "{{.HostConfig.NetworkMode}}", probe.id])).stdout.trim()).toMatch(/^container:[0-9a-f]{64}$/);
    const other = await app(protectedRuntime, "held-other");
    const targets = {
      gateway: [await gatewayOf(`${run}-held`), hostPort],
      hostAddress: [hostAddress(), hostPort],
      otherGateway: [await gatewayOf(`${run}-held-other`), hostPort],
      otherApp: [await addressIn(other.id), 8080],
      deniedRange: [denied, 80],
      metadata: [METADATA, 80],
    } as const;
    const answers = await Promise.all(Object.entries(targets).map(async ([name, [address, port]]) => [name, await reach(probe.id, address, port)]));
    expect(Object.fromEntries(answers)).toEqual({ gateway: "", hostAddress: "", otherGateway: "", otherApp: "", deniedRange: "", metadata: "" });
    expect(await reach(probe.id, allowed, 80)).toBe("outside\n");
    expect(await (await fetch(`http://127.0.0.1:${probe.hostPort}/`)).text()).toBe("app\n");
  });

  it("a restarted server installs its chains once: no duplicate jumps or rules, and the rules still hold", async () => {
    const probe = await app(protectedRuntime, "restart");
    const networkId = await networkIdOf(`${run}-restart`);
    for (let restart = 0; restart < 2; restart++) expect((await createAppFirewall(plainRuntime.docker, firewallOptions).start()).on).toBe(true);
    const count = (listing: string, pattern: RegExp) => listing.split("\n").filter((line) => pattern.test(line)).length;
    expect(count(await iptables(["-S", "DOCKER-USER"]), /-j REPOSITE-APPS$/)).toBe(1);
    expect(count(await iptables(["-S", "INPUT"]), /-j REPOSITE-APPS-INPUT$/)).toBe(1);
    const short = networkId.slice(0, 12);
    expect(count(await iptables(["-S", "REPOSITE-APPS"]), new RegExp(`-j REPOSITE-FWD-${short}$`))).toBe(1);
    expect(count(await iptables(["-S", "REPOSITE-APPS-INPUT"]), new RegExp(`-j REPOSITE-IN-${short}$`))).toBe(1);
    expect(count(await iptables(["-S", `REPOSITE-FWD-${short}`]), new RegExp(`-d ${subnet}.16/28`))).toBe(1);
    expect(await reach(probe.id, await gatewayOf(`${run}-restart`), hostPort)).toBe("");
    expect(await reach(probe.id, allowed, 80)).toBe("outside\n");
  });

  it("removes a network's rules with the network, and at the next start those of networks removed while it was away", async () => {
    const chainsOf = async (networkId: string) => (await iptables(["-S"])).split("\n").filter((line) => line.includes(networkId.slice(0, 12)));

    const removed = await app(protectedRuntime, "removed");
    const removedId = await networkIdOf(`${run}-removed`);
    expect(await chainsOf(removedId)).not.toEqual([]);
    await protectedRuntime.removeContainer(removed.id);
    await protectedRuntime.removeNetwork(`${run}-removed`);
    expect(await chainsOf(removedId)).toEqual([]);

    // Removed behind the server's back (by hand, or while it was stopped).
    const orphan = await app(protectedRuntime, "orphan");
    const orphanId = await networkIdOf(`${run}-orphan`);
    await docker(["rm", "-f", orphan.id]);
    await docker(["network", "rm", `${run}-orphan`]);
    expect(await chainsOf(orphanId)).not.toEqual([]);
    await createAppFirewall(plainRuntime.docker, firewallOptions).start();
    expect(await chainsOf(orphanId)).toEqual([]);
  });

  it("says why when it cannot change the firewall", async () => {
    const status = await createAppFirewall(plainRuntime.docker, { iptables: ["/nonexistent/iptables"] }).start();
    expect(status).toMatchObject({ on: false, reason: expect.stringMatching(/iptables cannot change this machine's firewall .*needs root/) });
  });
});
