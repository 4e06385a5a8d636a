import type { DockerRuntime } from "@reposite/provider-docker";

/**
 * Starts the app firewall of a detected Docker runtime and says in one phrase what it does, for
 * the start-up line. An operator must know when apps are not kept from the host: that phrase is
 * also written to stderr.
 */
export async function startAppFirewall(runtime: DockerRuntime): Promise<string> {
  if (!runtime.appFirewall) return "apps not firewalled (no app firewall given)";
  const status = await runtime.appFirewall.start();
  if (status.on) return `apps kept from the host, each other and ${status.denied.join(", ")} (${status.iptables})`;
  const phrase = `APPS CAN REACH THIS HOST: the app firewall is off, ${status.reason} (see docs/deploy/app-network.md)`;
  console.warn(`[reposite] ${phrase}`);
  return phrase;
}
