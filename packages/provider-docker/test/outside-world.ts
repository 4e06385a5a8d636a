import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Addresses outside the host that a test serves itself: a network namespace behind a veth pair,
 * routed from the host like the internet is, with busybox httpd answering `outside` on port 80 at
 * each of `addresses`. An app reaches them through Docker's FORWARD path and masquerading, as it
 * would a server on the internet, so a refusal means a rule, not a missing service.
 */
export interface OutsideWorld {
  /** One more address of the namespace, routed from the host (for 169.254.169.254). */
  addresses: string[];
  close(): Promise<void>;
}

const sh = (command: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(command, args, (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args.join(" ")}: ${stderr || error.message}`)) : resolve(stdout))),
  );

/**
 * `name` is a short unique word (interface names hold 15 characters); `subnet` a /24 such as
 * `198.18.7` whose `.1` is the host's end; `addresses` the namespace's own, in that /24 or
 * single addresses routed to it (`169.254.169.254`).
 */
export async function startOutsideWorld(name: string, subnet: string, addresses: string[]): Promise<OutsideWorld> {
  const namespace = `rps-${name}`;
  const hostEnd = `rps${name}h`;
  const farEnd = `rps${name}n`;
  const routed = addresses.filter((address) => !address.startsWith(`${subnet}.`));
  const site = await mkdtemp(join(tmpdir(), "reposite-outside-"));
  let httpd: ChildProcess | null = null;
  const close = async () => {
    httpd?.kill("SIGKILL");
    for (const address of routed) await sh("ip", ["route", "del", `${address}/32`, "dev", hostEnd]).catch(() => undefined);
    await sh("ip", ["link", "del", hostEnd]).catch(() => undefined);
    await sh("ip", ["netns", "del", namespace]).catch(() => undefined);
    await rm(site, { recursive: true, force: true });
  };
  try {
    await writeFile(join(site, "index.html"), "outside\n");
    await sh("ip", ["netns", "add", namespace]);
    await sh("ip", ["link", "add", hostEnd, "type", "veth", "peer", "name", farEnd]);
    await sh("ip", ["link", "set", farEnd, "netns", namespace]);
    await sh("ip", ["addr", "add", `${subnet}.1/24`, "dev", hostEnd]);
    await sh("ip", ["link", "set", hostEnd, "up"]);
    for (const address of addresses) {
      const prefix = routed.includes(address) ? 32 : 24;
      await sh("ip", ["-n", namespace, "addr", "add", `${address}/${prefix}`, "dev", farEnd]);
    }
    await sh("ip", ["-n", namespace, "link", "set", farEnd, "up"]);
    await sh("ip", ["-n", namespace, "link", "set", "lo", "up"]);
    await sh("ip", ["-n", namespace, "route", "add", "default", "via", `${subnet}.1`]);
    for (const address of routed) await sh("ip", ["route", "replace", `${address}/32`, "dev", hostEnd]);
    httpd = spawn("ip", ["netns", "exec", namespace, "busybox", "httpd", "-f", "-p", "80", "-h", site], { stdio: "ignore" });
    // Answers from the host once httpd listens.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const answer = await fetch(`http://${addresses[0]}/`, { signal: AbortSignal.timeout(1_000) }).then((response) => response.text(), () => "");
      if (answer === "outside\n") break;
      if (Date.now() > deadline) throw new Error(`the outside world at ${addresses[0]} did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { addresses, close };
}
