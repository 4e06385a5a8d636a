import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { LABEL_ROLE, LABEL_RUN } from "@reposite/core";
import { engineMessage } from "./docker-build.js";

/** `dev.reposite.role` of a holder (apps are `app`, so the server's lookups of apps never see one). */
export const HOLDER_ROLE = "network-holder";
/** On a holder and on the app containers in it: the app network it is on. */
export const LABEL_NETWORK = "dev.reposite.network";
/** On a holder: the container port it publishes on 127.0.0.1. */
export const LABEL_HOLDER_PORT = "dev.reposite.holder-port";
/** On an app container: the id of the holder whose network namespace it joined. */
export const LABEL_HOLDER = "dev.reposite.network-holder";

const MiB = 1024 * 1024;

/** A running holder a new app container can join: its id and the host port its app port is published on. */
export interface HeldNetwork {
  id: string;
  hostPort: number;
}

/**
 * Network holders: small idle containers that hold an app's place on its own bridge network (its
 * endpoint, embedded DNS and published port), whose network namespace the app's containers join
 * (`NetworkMode: container:<holder>`), as Kubernetes' pause container holds a pod's.
 *
 * Why: the Engine sets up a container's endpoint on a user-defined network when the container
 * starts, and that start is ~85–200 ms slower than on the default bridge (its embedded DNS: a
 * process run in the new namespace that writes eleven iptables rules there). A holder pays that
 * once; an app container that joins it starts with no network work. Two per app are used in turn:
 * a redeploy's new container takes the holder its last-but-one container left free, while the
 * current one keeps serving from the other. Isolation is the network's and stays: a holder is on
 * the app's bridge, so the app firewall's rules and Docker's isolation apply to all it carries.
 */
export interface NetworkHolders {
  /** The image holders run (its own command must wait forever, as `registry.k8s.io/pause` does). */
  readonly image: string;
  /** Whether the Engine has `image` (asked again until it does; then remembered). */
  imagePresent(): Promise<boolean>;
  /**
   * When the Engine lacks `image`, pulls it once (at most `timeoutMs`), saying in one line how it
   * went; never throws. A server calls it at start, in the background: deploys meanwhile (and
   * after a failed pull) start their containers without holders, as before.
   */
  pullImage(timeoutMs?: number): Promise<"present" | "pulled" | "failed">;
  /**
   * A running holder on `network` publishing `port` that no container uses: one left free, else
   * one made now (`ensureNetwork` first). Claimed for the caller until `settle` says its container
   * was made (labelled `LABEL_HOLDER`) or was not.
   */
  take(network: string, port: number, labels: Record<string, string>, ensureNetwork: () => Promise<void>): Promise<HeldNetwork>;
  /** Ends the claim `take` gave: the container that joined it carries its label now, or was not made. */
  settle(holderId: string): void;
  /** After a container of `network` was removed: keeps one free holder for the next deploy and removes the others. */
  tidy(network: string): Promise<void>;
  /** Removes every holder of `network` (before the network itself goes). */
  removeAll(network: string): Promise<void>;
}

/** Holders on `docker`'s Engine running `image`. */
export function createNetworkHolders(docker: Docker, image: string): NetworkHolders {
  const claimed = new Set<string>();
  // One choice at a time per network: two deploys at once must not take the same holder.
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(network: string, body: () => Promise<T>): Promise<T> => {
    const next = (queues.get(network) ?? Promise.resolve()).catch(() => undefined).then(body);
    queues.set(network, next);
    void next.finally(() => queues.get(network) === next && queues.delete(network)).catch(() => undefined);
    return next;
  };

  /** The network's holders (any state) and the ones its containers use, in one listing. */
  const survey = async (network: string) => {
    const listed = await docker.listContainers({ all: true, filters: { label: [`${LABEL_NETWORK}=${network}`] } });
    const holders = listed.filter((container) => container.Labels[LABEL_ROLE] === HOLDER_ROLE);
    const used = new Set(listed.map((container) => container.Labels[LABEL_HOLDER]).filter(Boolean));
    const free = holders.filter((holder) => !used.has(holder.Id) && !claimed.has(holder.Id));
    return { holders, free };
  };

  const make = async (network: string, port: number, labels: Record<string, string>): Promise<HeldNetwork> => {
    const published = `${port}/tcp`;
    // The app's labels (the server's own, its site) without the run: a holder outlives the deploy that made it.
    const { [LABEL_RUN]: _run, ...appLabels } = labels;
    const holder = await docker
      .createContainer({
        name: `${network}-holder-${randomBytes(4).toString("hex")}`,
        Image: image,
        Labels: { ...appLabels, [LABEL_ROLE]: HOLDER_ROLE, [LABEL_NETWORK]: network, [LABEL_HOLDER_PORT]: String(port) },
        ExposedPorts: { [published]: {} },
        HostConfig: {
          NetworkMode: network,
          PortBindings: { [published]: [{ HostIp: "127.0.0.1", HostPort: "" }] },
          // It only waits: as little as the Engine allows, nothing it could do more.
          Memory: 8 * MiB,
          MemorySwap: 8 * MiB,
          NanoCpus: 0.05e9,
          PidsLimit: 4,
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges"],
          ReadonlyRootfs: true,
          LogConfig: { Type: "json-file", Config: { "max-size": "64k", "max-file": "1" } },
          RestartPolicy: { Name: "no" },
        },
      })
      .catch((error: unknown) => {
        throw new Error(`[provider-docker] cannot create a network holder on ${network}: ${engineMessage(error)}`);
      });
    try {
      await holder.start();
      return { id: holder.id, hostPort: await hostPortOf(docker, holder.id) };
    } catch (error) {
      await holder.remove({ force: true }).catch(() => undefined);
      throw new Error(`[provider-docker] cannot start a network holder on ${network}: ${engineMessage(error)}`);
    }
  };

  let found = false;
  const imagePresent = async () =>
    (found ||= await docker
      .getImage(image)
      .inspect()
      .then(
        () => true,
        () => false,
      ));
  let pulling: Promise<"present" | "pulled" | "failed"> | null = null;
  const pullImage = (timeoutMs = DEFAULT_PULL_TIMEOUT_MS) =>
    (pulling ??= (async () => {
      if (await imagePresent()) return "present" as const;
      try {
        await pullWithin(docker, image, timeoutMs);
        if (!(await imagePresent())) throw new Error("the Engine finished the pull but has no such image");
        console.log(`[provider-docker] pulled the network holder image ${image}: app containers start in network holders now`);
        return "pulled" as const;
      } catch (error) {
        // A notice on stdout, like the other start-up lines: deploys work without holders, only slower.
        console.log(
          `[provider-docker] could not pull the network holder image ${image} (${oneLine(engineMessage(error))}): app containers join their network themselves until it is on the Engine (docker load it, or set REPOSITE_NETWORK_HOLDER_IMAGE); tried again at the next start`,
        );
        return "failed" as const;
      }
    })());

  const remove = (id: string) =>
    docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);

  return {
    image,
    imagePresent,
    pullImage,
    take: (network, port, labels, ensureNetwork) =>
      serial(network, async () => {
        const { free } = await survey(network);
        const ready = free.find((holder) => holder.State === "running" && holder.Labels[LABEL_HOLDER_PORT] === String(port));
        // A free holder for another port, or one stopped with the Engine, is of no more use.
        for (const stale of free.filter((holder) => holder !== ready)) await remove(stale.Id);
        const held = ready ? { id: ready.Id, hostPort: await hostPortOf(docker, ready.Id) } : (await ensureNetwork(), await make(network, port, labels));
        claimed.add(held.id);
        return held;
      }),
    settle(holderId) {
      claimed.delete(holderId);
    },
    tidy: (network) =>
      serial(network, async () => {
        const { free } = await survey(network);
        for (const extra of free.slice(1)) await remove(extra.Id);
      }),
    removeAll: (network) =>
      serial(network, async () => {
        const { holders } = await survey(network);
        for (const holder of holders) await remove(holder.Id);
      }),
  };
}

/** How long a server's pull of the holder image may take at start: the image is about 300 KB. */
export const DEFAULT_PULL_TIMEOUT_MS = 60_000;

/** Pulls `image` through the Engine's API, aborted after `timeoutMs`. */
async function pullWithin(docker: Docker, image: string, timeoutMs: number): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const stream: NodeJS.ReadableStream = await docker.pull(image, { abortSignal: abort.signal });
    // The Engine reports a failure after its 200 as an `error` message in the progress stream.
    await new Promise<void>((resolve, reject) => {
      stream.on("error", reject);
      docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
    });
  } catch (error) {
    throw abort.signal.aborted ? new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`) : error;
  } finally {
    clearTimeout(timer);
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The host port a holder publishes on 127.0.0.1 (the Engine picks it at each start). */
export async function hostPortOf(docker: Docker, holderId: string): Promise<number> {
  const info = await docker.getContainer(holderId).inspect();
  for (const bindings of Object.values(info.NetworkSettings.Ports ?? {})) {
    const binding = bindings?.find((candidate) => candidate.HostIp === "127.0.0.1" && candidate.HostPort);
    if (binding) return Number(binding.HostPort);
  }
  throw new Error(`[provider-docker] the network holder ${holderId.slice(0, 12)} publishes no port`);
}

/** The holder a container joined (`container:<id>` network mode), or null when it has a network of its own. */
export function holderOf(networkMode: string | undefined): string | null {
  return networkMode?.startsWith("container:") ? networkMode.slice("container:".length) : null;
}
