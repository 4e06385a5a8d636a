import type {
  BuildRequest,
  BuiltImage,
  ContainerHandle,
  ContainerRuntime,
  ContainerSpec,
  ContainerState,
  ContainerStats,
  ContainerSummary,
} from "@reposite/core";
import { LABEL_ROLE } from "@reposite/core";
import Docker from "dockerode";
import { createAppFirewall, type AppFirewall, type AppFirewallOptions } from "./app-firewall.js";
import { BuildCache } from "./build-cache.js";
import { detectBuildMemoryLimit, type BuildMemoryLimit } from "./build-memory-limit.js";
import { buildImage, engineMessage } from "./docker-build.js";
import { execInContainer, openTerminal } from "./docker-exec.js";
import { engineVolumeUsage } from "./engine-disk-usage.js";
import { detectLoopVolumes, type LoopVolumes } from "./loop-volumes.js";
import { createNetworkHolders, HOLDER_ROLE, holderOf, hostPortOf, LABEL_HOLDER, LABEL_NETWORK } from "./network-holders.js";

export interface DockerRuntimeOptions {
  /**
   * Keep apps from reaching the host, each other and the denied ranges with iptables rules on this
   * machine (app-firewall.ts): installed for each app network made, removed with it. Off when
   * absent; the server turns it on.
   */
  appFirewall?: AppFirewallOptions;
  /**
   * Where the Engine answers, in `DOCKER_HOST`'s form: `unix:///var/run/docker.sock`,
   * `tcp://127.0.0.1:2375`. When absent, dockerode's default: `DOCKER_HOST`, then the default socket.
   */
  dockerHost?: string;
  /**
   * Run an init process (Docker's `--init`, tini) as each app's PID 1, so an app that does not
   * handle SIGTERM still stops at once and zombies are reaped. On by default; turn it off for an
   * Engine without `docker-init`.
   */
  init?: boolean;
  /** Bytes of output kept per container (json-file log, two files of half each); 20 MB by default. */
  logBytes?: number;
  /**
   * Where app volumes live as loop-mounted filesystems of their limit's size (the server's
   * `<dataDir>/volumes`), so a write past the limit fails at once. Needs root and loop devices;
   * without them, or without this folder, volumes are Docker's own and their disk is measured.
   */
  volumesDir?: string;
  /**
   * A JSON file noting which BuildKit cache records each app's builds made (the server's
   * `<dataDir>/build-cache.json`), so they are pruned with the app after a restart too. In memory
   * when absent.
   */
  buildCacheIndex?: string;
  /**
   * The image of the network holders app containers start in (network-holders.ts): an idle
   * container per app that holds its place on its network, so a deploy's container starts without
   * the Engine's per-container network setup. Its own command must wait forever. Used while the
   * Engine has it (`pullNetworkHolderImage` pulls it once, a server calls it at start); without
   * it, or with null, each container joins the network itself. `registry.k8s.io/pause:3.10` by default.
   */
  networkHolderImage?: string | null;
  /** Size of each volume's filesystem in MB, the most disk any app can be given (sparse: 80 GB by default). */
  volumeCapacityMb?: number;
  /**
   * MB of `/tmp` (a tmpfs, counted in the app's memory) in a container whose root filesystem is
   * read-only: what an app may write outside its volume. 64 by default.
   */
  tmpMb?: number;
}

/** A ContainerRuntime on the Docker Engine, with the few extras a server and tests use. */
export interface DockerRuntime extends ContainerRuntime {
  /** The dockerode client, for what the port does not cover. */
  readonly docker: Docker;
  /** The app firewall when `appFirewall` was given: the server calls its `start()` and reports it. */
  readonly appFirewall: AppFirewall | null;
  /** The loop-mounted volumes, or null when volumes are Docker's own (measured). */
  loopVolumes(): Promise<LoopVolumes | null>;
  /**
   * At a server's start: pulls the network holder image once when holders are on and the Engine
   * lacks it (bounded; one line says how it went). Null when holders are off.
   */
  pullNetworkHolderImage(timeoutMs?: number): Promise<"present" | "pulled" | "failed"> | null;
}

const MiB = 1024 * 1024;
/** Entries read beyond a logs tail, for lines the Engine stored in pieces. */
const EXTRA_LOG_ENTRIES = 100;
const NEVER = "0001-01-01T00:00:00Z";
/** Kubernetes' pause image: a static binary that waits, about 300 KB. */
export const DEFAULT_NETWORK_HOLDER_IMAGE = "registry.k8s.io/pause:3.10";

/**
 * The ContainerRuntime on Docker (dockerode 5, Engine API). Every app container is held in:
 * - memory with `MemorySwap` equal to `Memory` (no extra swap: outgrowing it is an OOM kill),
 *   `NanoCpus`, a `PidsLimit` (a fork bomb stays inside);
 * - `no-new-privileges` and every capability dropped (`CapDrop: ALL`). An app that runs as a
 *   non-root user on a port above 1023, the usual case, needs none: capabilities only matter for
 *   binding ports below 1024, changing file owners, or switching users at start (images whose
 *   entrypoint runs `su-exec`/`gosu` from root, which then fail; run them as their user instead).
 *   A root app still writes the files it owns (the volume is created for it);
 * - its own user-defined bridge network (`spec.network`, made when missing, labelled): Docker
 *   isolates bridge networks from each other, so apps cannot reach one another, and names resolve
 *   only inside a network;
 * - one port published on 127.0.0.1 only (a free host port the Engine picks), nothing mounted but
 *   its named volume (never the Docker socket), and logs rotated at `logBytes`.
 * No restart policy: the server decides what runs (it finds apps again by their labels on boot).
 */
export function createDockerRuntime(options: DockerRuntimeOptions = {}): DockerRuntime {
  const docker = new Docker(connection(options.dockerHost));
  const init = options.init ?? true;
  const logBytes = options.logBytes ?? 20 * MiB;
  const tmpMb = options.tmpMb ?? 64;
  let version: string | null = null;
  const volumeUsage = engineVolumeUsage(docker);
  // Found once, on first use: whether this process can make loop-mounted volumes, and why not.
  let loop: Promise<{ volumes: LoopVolumes } | { reason: string }> | null = null;
  const findLoop = () =>
    (loop ??= options.volumesDir
      ? detectLoopVolumes({ dir: options.volumesDir, ...(options.volumeCapacityMb ? { capacityMb: options.volumeCapacityMb } : {}) }).then(async (found) => {
          // After a reboot the images are there but not mounted: mount them before any app starts.
          if ("volumes" in found) await found.volumes.mountAll();
          return found;
        })
      : Promise.resolve({ reason: "no folder for loop-mounted volumes was given" }));
  const loopVolumes = async () => {
    const found = await findLoop();
    return "volumes" in found ? found.volumes : null;
  };
  const networksInProgress = new Map<string, Promise<void>>();
  const appFirewall = options.appFirewall ? createAppFirewall(docker, options.appFirewall) : null;
  const buildCache = new BuildCache(docker, options.buildCacheIndex);
  const holderImage = options.networkHolderImage === undefined ? DEFAULT_NETWORK_HOLDER_IMAGE : options.networkHolderImage;
  const holders = holderImage ? createNetworkHolders(docker, holderImage) : null;
  let holderImageMissingSaid = false;
  let holderPullTried = false;
  /** The holders while the Engine has their image (looked for again at each deploy until it does). */
  const usableHolders = async () => {
    if (!holders) return null;
    const holderImageFound = await holders.imagePresent();
    // A pull at start said why already.
    if (!holderImageFound && !holderImageMissingSaid && !holderPullTried) {
      holderImageMissingSaid = true;
      console.log(`[provider-docker] the network holder image ${holders.image} is not on the Engine: app containers join their network themselves, which makes each start slower (load it with docker pull or docker load)`);
    }
    return holderImageFound ? holders : null;
  };
  let buildMemory: Promise<BuildMemoryLimit | { reason: string }> | null = null;
  const engineIsLocal = isLocal(options.dockerHost ?? process.env.DOCKER_HOST);

  const ensureNetwork = (name: string, labels: Record<string, string>) => {
    // One creation at a time per name: two at once could make two networks of the same name.
    const pending = networksInProgress.get(name);
    if (pending) return pending;
    const made = (async () => {
      const existing = await docker.listNetworks({ filters: { name: [name] } });
      if (existing.some((network) => network.Name === name)) return;
      const network = await docker.createNetwork({ Name: name, Driver: "bridge", CheckDuplicate: true, Labels: labels }).catch((error: unknown) => {
        const message = engineMessage(error);
        // Docker's default address pools hold about 30 bridge networks: one per app runs out fast.
        if (/address pool/i.test(message)) {
          throw new Error(`[provider-docker] no subnet left for the network ${name} (${message}): give the Engine smaller networks with "default-address-pools" in daemon.json, for example [{"base": "10.200.0.0/16", "size": 28}] for 4096 apps`);
        }
        throw new Error(`[provider-docker] cannot create the network ${name}: ${message}`);
      });
      await appFirewall?.protect(network.id);
    })().finally(() => networksInProgress.delete(name));
    networksInProgress.set(name, made);
    return made;
  };

  const ensureVolume = async (volume: { name: string; limitMb?: number }, labels: Record<string, string>) => {
    const volumes = volume.limitMb ? await loopVolumes() : null;
    // Mounted (again) and held to the limit before the container binds it.
    const folder = volumes ? await volumes.prepare(volume.name, volume.limitMb!) : null;
    const existing = await docker.getVolume(volume.name).inspect().catch(ifMissing(null));
    if (existing) return;
    // A named volume bound to the loop filesystem's folder: Docker still copies what the image
    // holds at the volume's path (and its owner) into it the first time.
    await docker.createVolume({ Name: volume.name, Labels: labels, ...(folder ? { Driver: "local", DriverOpts: { type: "none", o: "bind", device: folder } } : {}) });
  };

  const inspect = async (id: string): Promise<Docker.ContainerInspectInfo | null> => docker.getContainer(id).inspect().catch(ifMissing(null));
  // Started again right after a stop, the Engine can answer "cannot start a stopped process" while
  // containerd still tears the old task down (a known moby race): that answer is tried again briefly.
  const startSoonAfterStop = async (id: string): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await docker.getContainer(id).start().catch(ifStatus([304], undefined));
        return;
      } catch (error) {
        if (attempt >= 10 || !/cannot start a stopped process/.test(engineMessage(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  /** The host port a running container answers on: its own, or its network holder's. */
  const hostPortIn = async (info: Docker.ContainerInspectInfo): Promise<number | null> => {
    const holder = holderOf(info.HostConfig.NetworkMode);
    return holder ? hostPortOf(docker, holder).catch(() => null) : publishedPort(info);
  };

  return {
    docker,
    appFirewall,
    get name() {
      return version ? `docker ${version}` : "docker";
    },
    loopVolumes,
    pullNetworkHolderImage: (timeoutMs) => {
      if (!holders) return null;
      holderPullTried = true;
      return holders.pullImage(timeoutMs);
    },

    async diskLimits() {
      const found = await findLoop();
      if ("volumes" in found) {
        return {
          atWriteTime: true,
          note: `enforced at write time: each app volume is a loop-mounted filesystem of its limit in ${found.volumes.dir}, the root filesystem is read-only with a ${tmpMb} MB /tmp`,
        };
      }
      return { atWriteTime: false, note: `measured periodically, not enforced at write time (${found.reason})` };
    },
    capabilities: { stats: true, exec: true, execTty: true },

    async ping() {
      // dockerode passes `abortSignal` on; its types do not know it.
      const pingable = docker as unknown as { ping(options: { abortSignal: AbortSignal }): Promise<unknown> };
      await pingable.ping({ abortSignal: AbortSignal.timeout(5_000) });
      version ??= ((await docker.version()) as { Version?: string }).Version ?? null;
    },

    buildImage(request: BuildRequest): Promise<BuiltImage> {
      buildMemory ??= detectBuildMemoryLimit(docker, engineIsLocal);
      return buildMemory.then((memory) => buildImage(docker, request, { memory, cache: buildCache }));
    },

    async removeBuildCache(labels: Record<string, string>) {
      await buildCache.remove(labels);
    },

    async runContainer(spec: ContainerSpec): Promise<ContainerHandle> {
      const usable = await usableHolders();
      const [held] = await Promise.all([
        // A holder ready on the network (made now only when none is free): the container starts in it.
        usable ? usable.take(spec.network, spec.port, spec.labels, () => ensureNetwork(spec.network, spec.labels)) : ensureNetwork(spec.network, spec.labels).then(() => null),
        spec.volume ? ensureVolume(spec.volume, spec.labels) : null,
      ]);
      const port = `${spec.port}/tcp`;
      const memory = Math.round(spec.memoryMb * MiB);
      // With write-time limits on, nothing outside the volume grows on the host: the root
      // filesystem is read-only and /tmp is a tmpfs, counted in the app's memory.
      const readOnly = !spec.writableRoot && (await loopVolumes()) !== null;
      const container = await docker
        .createContainer({
          name: spec.name,
          Image: spec.image,
          ...(spec.command ? { Cmd: spec.command } : {}),
          Env: Object.entries({ ...spec.env, PORT: String(spec.port) }).map(([key, value]) => `${key}=${value}`),
          Labels: held ? { ...spec.labels, [LABEL_NETWORK]: spec.network, [LABEL_HOLDER]: held.id } : spec.labels,
          // In a holder, the holder publishes the port and is on the network.
          ...(held ? {} : { ExposedPorts: { [port]: {} } }),
          HostConfig: {
            ...(held ? {} : { PortBindings: { [port]: [{ HostIp: "127.0.0.1", HostPort: "" }] } }),
            Memory: memory,
            MemorySwap: memory,
            NanoCpus: Math.round(spec.cpus * 1e9),
            PidsLimit: spec.pidsLimit,
            SecurityOpt: ["no-new-privileges"],
            CapDrop: ["ALL"],
            Init: init,
            NetworkMode: held ? `container:${held.id}` : spec.network,
            Mounts: spec.volume ? [{ Type: "volume", Source: spec.volume.name, Target: spec.volume.path }] : [],
            ...(readOnly ? { ReadonlyRootfs: true, Tmpfs: { "/tmp": `rw,nosuid,nodev,size=${tmpMb}m,mode=1777` } } : {}),
            LogConfig: { Type: "json-file", Config: { "max-size": String(Math.ceil(logBytes / 2)), "max-file": "2" } },
            RestartPolicy: { Name: "no" },
          },
        })
        .catch((error: unknown) => {
          throw new Error(`[provider-docker] cannot create ${spec.name}: ${engineMessage(error)}`);
        })
        // Made or not, the holder's use is on record now (the container's label) or over.
        .finally(() => held && holders?.settle(held.id));
      try {
        await container.start();
      } catch (error) {
        // Never started (a missing command, say): nothing to keep but the name it would block.
        await container.remove({ force: true }).catch(() => undefined);
        throw new Error(`[provider-docker] cannot start ${spec.name}: ${engineMessage(error)}`);
      }
      if (held) return { id: container.id, host: "127.0.0.1", hostPort: held.hostPort };
      const info = await container.inspect();
      return { id: info.Id, host: "127.0.0.1", hostPort: publishedPort(info) ?? 0 };
    },

    async inspectContainer(id: string): Promise<ContainerState | null> {
      const info = await inspect(id);
      if (!info) return null;
      const running = info.State.Running;
      return {
        id: info.Id,
        running,
        exitCode: running ? null : info.State.ExitCode,
        oomKilled: info.State.OOMKilled,
        startedAt: timeOrNull(info.State.StartedAt),
        finishedAt: running ? null : timeOrNull(info.State.FinishedAt),
        hostPort: running ? await hostPortIn(info) : null,
      };
    },

    async stopContainer(id: string, graceSeconds = 10) {
      await docker
        .getContainer(id)
        .stop({ t: graceSeconds })
        .catch(ifStatus([304, 404], undefined));
    },

    async startContainer(id: string): Promise<ContainerState> {
      // Its own volume's filesystem is mounted again first (after a reboot), never an empty folder
      // bound; other apps' volumes are not this start's business (each would cost a look at the mounts).
      const volumes = await loopVolumes();
      if (volumes) {
        for (const mount of (await inspect(id))?.Mounts ?? []) {
          if (mount.Type === "volume" && mount.Name) await volumes.mount(mount.Name);
        }
      }
      // Its network holder first, when the Engine stopped it (a restart): the container joins it.
      const holder = holderOf((await inspect(id))?.HostConfig.NetworkMode);
      for (const which of holder ? [holder, id] : [id]) {
        await startSoonAfterStop(which).catch((error: unknown) => {
          throw new Error(`[provider-docker] cannot start ${which === id ? id : `the network holder of ${id}`}: ${engineMessage(error)}`);
        });
      }
      const state = await this.inspectContainer(id);
      if (!state) throw new Error(`[provider-docker] ${id} is gone`);
      return state;
    },

    async removeContainer(id: string) {
      const network = holders ? (await inspect(id))?.Config.Labels?.[LABEL_NETWORK] : undefined;
      // 409: another removal of the same container is under way.
      await docker
        .getContainer(id)
        .remove({ force: true })
        .catch(ifStatus([404, 409], undefined));
      // Its holder is free now: kept for the app's next deploy (one free holder per app at most).
      if (network) await holders!.tidy(network).catch(() => undefined);
    },

    async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
      const filters = { label: Object.entries(labels).map(([key, value]) => `${key}=${value}`) };
      const found = (await docker.listContainers({ all: true, filters })).filter((container) => container.Labels[LABEL_ROLE] !== HOLDER_ROLE);
      // Containers in a holder have their port on the holder.
      const holderPorts = new Map<string, Docker.Port[]>();
      if (found.some((container) => holderOf(container.HostConfig?.NetworkMode))) {
        for (const holder of await docker.listContainers({ filters: { label: [`${LABEL_ROLE}=${HOLDER_ROLE}`] } })) holderPorts.set(holder.Id, holder.Ports);
      }
      return found.map((container) => {
        const running = container.State === "running";
        const holder = holderOf(container.HostConfig?.NetworkMode);
        const ports = holder ? (holderPorts.get(holder) ?? []) : container.Ports;
        const published = ports.find((port) => port.IP === "127.0.0.1" && port.PublicPort && port.Type === "tcp");
        return {
          id: container.Id,
          name: (container.Names[0] ?? "").replace(/^\//, ""),
          labels: container.Labels,
          running,
          hostPort: running && published ? published.PublicPort : null,
        };
      });
    },

    async logs(id: string, tail: number): Promise<string[]> {
      if (tail <= 0) return [];
      const raw = (await docker
        .getContainer(id)
        // The Engine's `tail` counts log entries, and a line longer than its 16 KB copy buffer is
        // stored as several: ask for a few more and cut to whole lines here.
        .logs({ stdout: true, stderr: true, follow: false, tail: tail + EXTRA_LOG_ENTRIES })
        .catch(ifMissing(null))) as Buffer | string | null;
      if (raw === null) return [];
      const output = demuxLogs(Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
      const lines = output.split("\n");
      if (lines.at(-1) === "") lines.pop();
      return lines.map((line) => line.replace(/\r$/, "")).slice(-tail);
    },

    async removeImage(id: string) {
      await docker.getImage(id).remove().catch(ifMissing(undefined));
    },

    async removeVolume(name: string) {
      await docker.getVolume(name).remove().catch(ifMissing(undefined));
      await (await loopVolumes())?.remove(name);
    },

    async resizeVolume(name: string, limitMb: number) {
      await (await loopVolumes())?.resize(name, limitMb);
    },

    async removeNetwork(name: string) {
      // Its holders hold endpoints on it: they go first.
      await holders?.removeAll(name);
      const networks = await docker.listNetworks({ filters: { name: [name] } });
      for (const network of networks.filter((candidate) => candidate.Name === name)) {
        await docker.getNetwork(network.Id).remove().catch(ifMissing(undefined));
        await appFirewall?.release(network.Id);
      }
    },

    async imageSize(id: string) {
      const info = await docker.getImage(id).inspect().catch(ifMissing(null));
      return info ? info.Size : null;
    },

    async volumeSize(name: string) {
      // A loop volume is measured by its filesystem, at once and without the Engine.
      const volumes = await loopVolumes();
      if (volumes && (await volumes.has(name))) return volumes.usedBytes(name);
      const usage = await volumeUsage();
      const volume = usage.Volumes?.find((candidate) => candidate.Name === name);
      if (!volume) return null;
      const size = volume.UsageData?.Size ?? -1;
      return size >= 0 ? size : null;
    },

    async containerSize(id: string) {
      // `size: true` makes the Engine measure the writable layer (SizeRw); slower than a plain inspect.
      const info = (await docker.getContainer(id).inspect({ size: true } as Docker.ContainerInspectOptions).catch(ifMissing(null))) as (Docker.ContainerInspectInfo & { SizeRw?: number }) | null;
      return info ? (info.SizeRw ?? 0) : null;
    },

    exec(id, command, execOptions) {
      return execInContainer(docker, id, command, execOptions);
    },

    openTerminal(id, terminalOptions) {
      return openTerminal(docker, id, terminalOptions);
    },

    async stats(id: string): Promise<ContainerStats> {
      const stats = (await docker.getContainer(id).stats({ stream: false })) as unknown as Docker.ContainerStats;
      const cpuDelta = stats.cpu_stats.cpu_usage.total_usage - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
      const systemDelta = (stats.cpu_stats.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
      const cpus = stats.cpu_stats.online_cpus || stats.cpu_stats.cpu_usage.percpu_usage?.length || 1;
      // Like `docker stats`: the page cache the kernel can drop is not counted as used.
      const memoryStats = stats.memory_stats.stats as Record<string, number> | undefined;
      const cache = memoryStats?.total_inactive_file ?? memoryStats?.inactive_file ?? 0;
      const networks = Object.values(stats.networks ?? {});
      return {
        cpuPercent: systemDelta > 0 && cpuDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0,
        memoryBytes: Math.max(0, (stats.memory_stats.usage ?? 0) - cache),
        memoryLimitBytes: stats.memory_stats.limit ?? 0,
        networkRxBytes: networks.reduce((sum, network) => sum + network.rx_bytes, 0),
        networkTxBytes: networks.reduce((sum, network) => sum + network.tx_bytes, 0),
      };
    },
  };
}

/** dockerode's connection options for a `DOCKER_HOST`-style address, or its defaults. */
/** Whether the Engine runs on this machine: reached through a unix socket (the default). */
function isLocal(dockerHost: string | undefined): boolean {
  return !dockerHost || dockerHost.startsWith("unix://");
}

function connection(dockerHost: string | undefined): Docker.DockerOptions | undefined {
  if (!dockerHost) return undefined;
  if (dockerHost.startsWith("unix://")) return { socketPath: dockerHost.slice("unix://".length) };
  const url = new URL(dockerHost.includes("://") ? dockerHost : `tcp://${dockerHost}`);
  const https = url.protocol === "https:" || url.port === "2376";
  return { host: url.hostname, port: Number(url.port || (https ? 2376 : 2375)), protocol: https ? "https" : "http" };
}

/** The host port of the container's one published port, bound on 127.0.0.1. */
function publishedPort(info: Docker.ContainerInspectInfo): number | null {
  for (const bindings of Object.values(info.NetworkSettings.Ports ?? {})) {
    const binding = bindings?.find((candidate) => candidate.HostIp === "127.0.0.1" && candidate.HostPort);
    if (binding) return Number(binding.HostPort);
  }
  return null;
}

function timeOrNull(time: string | undefined): string | null {
  return !time || time === NEVER ? null : new Date(time).toISOString();
}

/**
 * The non-TTY log format multiplexes stdout and stderr in frames: a byte for the stream (1 or 2),
 * three zero bytes, the length (uint32, big-endian), then the bytes. Frames are read in order, so
 * stdout and stderr stay interleaved as the app wrote them. Output that is not framed (a TTY
 * container's) is taken as it is.
 */
export function demuxLogs(raw: Buffer): string {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset]!;
    if (stream > 2 || raw[offset + 1] !== 0 || raw[offset + 2] !== 0 || raw[offset + 3] !== 0) return raw.toString("utf8");
    const length = raw.readUInt32BE(offset + 4);
    chunks.push(raw.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  if (offset < raw.length && chunks.length === 0) return raw.toString("utf8");
  return Buffer.concat(chunks).toString("utf8");
}

function ifMissing<T>(value: T) {
  return ifStatus([404], value);
}

/** Turns the Engine answering one of `statuses` into `value`; other errors go on. */
function ifStatus<T>(statuses: number[], value: T) {
  return (error: unknown): T => {
    if (statuses.includes((error as { statusCode?: number } | null)?.statusCode ?? 0)) return value;
    throw error;
  };
}
