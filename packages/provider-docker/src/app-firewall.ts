import { existsSync } from "node:fs";
import type Docker from "dockerode";
import { LABEL_ROLE } from "@reposite/core";
import {
  DOCKER_USER_CHAIN,
  FORWARD_CHAIN,
  INPUT_CHAIN,
  KERNEL_INPUT_CHAIN,
  forwardChainOf,
  inputChainOf,
  jumpsOf,
  networkChainsRestore,
  networkIdsInRules,
  type AppBridge,
} from "./app-firewall-rules.js";
import { ALWAYS_DENIED_CIDRS } from "./deny-cidrs.js";
import { findIptables, type Iptables } from "./iptables.js";

export interface AppFirewallOptions {
  /**
   * IPv4 ranges apps may not reach (REPOSITE_APP_DENY_CIDRS), besides what is always refused:
   * the host's own addresses and bridge gateways, every other Docker network, 169.254.0.0/16.
   */
  denyCidrs?: readonly string[];
  /** `iptables` binaries to try, in order; the first that sees Docker's `DOCKER-USER` chain is used. */
  iptables?: readonly string[];
  /** Labels of the app networks `start()` protects when it finds them; `dev.reposite.role=app` by default. */
  networkLabels?: Record<string, string>;
}

/** What the firewall does, or why it cannot: the server prints it at start. */
export type AppFirewallStatus =
  | { on: true; iptables: string; denied: readonly string[] }
  | { on: false; reason: string };

/** Keeps apps' networks from reaching the host, each other and the denied ranges (iptables). */
export interface AppFirewall {
  /**
   * Installs Reposite's chains and the jumps to them once, protects every app network already on
   * the Engine (`dev.reposite.role=app`) and drops the rules of networks that are gone. Runs once;
   * later calls answer the same status. Never throws: a firewall it cannot install is reported.
   */
  start(): Promise<AppFirewallStatus>;
  /** (Re)writes one network's rules; throws when they cannot be installed, so the app does not run unprotected. */
  protect(networkId: string): Promise<void>;
  /** Removes one network's rules (its jumps and chains); nothing when it has none. */
  release(networkId: string): Promise<void>;
}

const DEFAULT_BINARIES = ["iptables", "iptables-nft", "iptables-legacy"];

/** The app firewall on this machine's iptables, for the networks of `docker`'s Engine. */
export function createAppFirewall(docker: Docker, options: AppFirewallOptions = {}): AppFirewall {
  const denied = [...ALWAYS_DENIED_CIDRS, ...(options.denyCidrs ?? [])];
  let started: Promise<{ status: AppFirewallStatus; iptables: Iptables | null }> | undefined;

  const bridgeOf = async (networkId: string): Promise<AppBridge | null> => {
    const network = (await docker.getNetwork(networkId).inspect()) as { Id: string; Driver: string; Options?: Record<string, string> };
    if (network.Driver !== "bridge") return null;
    const bridge = network.Options?.["com.docker.network.bridge.name"] ?? `br-${network.Id.slice(0, 12)}`;
    return { networkId: network.Id, bridge };
  };

  const install = async (iptables: Iptables, networkId: string) => {
    const bridge = await bridgeOf(networkId);
    if (!bridge) return;
    await iptables.restore(networkChainsRestore(bridge, denied));
    for (const { chain, rule } of jumpsOf(bridge)) {
      if (!(await iptables.has(chain, rule))) await iptables.run(["-A", chain, ...rule]);
    }
  };

  const uninstall = async (iptables: Iptables, networkId: string) => {
    const chains = [forwardChainOf(networkId), inputChainOf(networkId)];
    // The jumps are found by their target: the bridge may be gone with its network.
    for (const parent of [FORWARD_CHAIN, INPUT_CHAIN]) {
      const listing = await iptables.run(["-S", parent]);
      for (const line of listing.split("\n")) {
        const words = line.trim().split(/\s+/);
        if (words[0] === "-A" && chains.includes(words.at(-1)!)) await iptables.run(["-D", ...words.slice(1)]).catch(() => undefined);
      }
    }
    for (const chain of chains) {
      await iptables.run(["-F", chain]).catch(() => undefined);
      await iptables.run(["-X", chain]).catch(() => undefined);
    }
  };

  const setUp = async (): Promise<{ status: AppFirewallStatus; iptables: Iptables | null }> => {
    const found = await findIptables(options.iptables ?? DEFAULT_BINARIES);
    if ("problem" in found) {
      return { status: { on: false, reason: `iptables cannot change this machine's firewall (${found.problem}); it needs root, iptables and a local Docker Engine` }, iptables: null };
    }
    const iptables = found;
    // Rules here hold only packets of an Engine on this machine: its default bridge must be here.
    const defaultBridge = await bridgeOf("bridge").catch(() => null);
    if (defaultBridge && !existsSync(`/sys/class/net/${defaultBridge.bridge}`)) {
      return { status: { on: false, reason: `the Docker Engine runs on another machine (its bridge ${defaultBridge.bridge} is not on this one): install the server beside it` }, iptables: null };
    }
    try {
      for (const chain of [FORWARD_CHAIN, INPUT_CHAIN]) {
        await iptables.run(["-N", chain]).catch((error: Error) => {
          if (!/exists/i.test(error.message)) throw error;
        });
      }
      await jumpFirst(iptables, DOCKER_USER_CHAIN, ["-j", FORWARD_CHAIN]);
      await jumpFirst(iptables, KERNEL_INPUT_CHAIN, ["-j", INPUT_CHAIN]);
      // Apps made before this start (or before the firewall existed) get their rules, with the
      // deny list as it is now; rules of networks removed meanwhile go.
      const labels = Object.entries(options.networkLabels ?? { [LABEL_ROLE]: "app" }).map(([key, value]) => `${key}=${value}`);
      const apps = await docker.listNetworks({ filters: { label: labels, driver: ["bridge"] } });
      for (const network of apps) await install(iptables, network.Id);
      const existing = (await docker.listNetworks()).map((network) => network.Id);
      for (const id of networkIdsInRules(await iptables.run(["-S"]))) {
        if (!existing.some((networkId) => networkId.startsWith(id))) await uninstall(iptables, id);
      }
    } catch (error) {
      return { status: { on: false, reason: `installing the rules failed: ${(error as Error).message}` }, iptables: null };
    }
    return { status: { on: true, iptables: iptables.binary, denied }, iptables };
  };

  const ready = () => (started ??= setUp());

  return {
    async start() {
      return (await ready()).status;
    },
    async protect(networkId) {
      const { iptables } = await ready();
      if (!iptables) return; // reported at start
      await install(iptables, networkId).catch((error: Error) => {
        throw new Error(`[provider-docker] cannot install the firewall rules of network ${networkId.slice(0, 12)}: ${error.message}`);
      });
    },
    async release(networkId) {
      const { iptables } = await ready();
      if (iptables) await uninstall(iptables, networkId);
    },
  };
}

/**
 * Puts `rule` first in `chain` unless it is there already, and leaves exactly one copy: two
 * servers starting at once may both insert it.
 */
async function jumpFirst(iptables: Iptables, chain: string, rule: string[]): Promise<void> {
  if (!(await iptables.has(chain, rule))) await iptables.run(["-I", chain, "1", ...rule]);
  const copies = (await iptables.run(["-S", chain])).split("\n").filter((line) => line.trim() === ["-A", chain, ...rule].join(" ")).length;
  for (let extra = 1; extra < copies; extra++) await iptables.run(["-D", chain, ...rule]);
}
