import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { superviseMaster, untilAnswering, type Listen, type NginxProcess, type NginxRunner } from "./nginx-process.js";

/** The official image; `REPOSITE_EDGE_NGINX_IMAGE` names another (a pinned version, a mirror). */
export const DEFAULT_NGINX_IMAGE = "nginx:stable";

/** Every edge container carries this label, its value the container's name: how a restarted Reposite finds it. */
export const EDGE_CONTAINER_LABEL = "dev.reposite.edge";
/** What the container was made with: one found again with other settings is made anew. */
const SETTINGS_LABEL = "dev.reposite.edge.settings";

export interface NginxContainerOptions {
  /** The nginx image (`REPOSITE_EDGE_NGINX_IMAGE`); `DEFAULT_NGINX_IMAGE` by default. */
  image?: string;
  /** The Engine (`DOCKER_HOST` by default, as dockerode reads it). It must run on this machine: nginx reads this machine's files. */
  docker?: Docker;
  /** The container's name, unique per edge on the Engine (`reposite-edge-<port>` by default). */
  name?: string;
  /** Folders of this machine bind-mounted at the same paths besides the edge's own (Node's socket folder). */
  mounts?: readonly string[];
  labels?: Record<string, string>;
}

/** Where the nginx edge runs: the machine's own binary, or a container on the Engine. */
export type NginxPlacement = { kind: "host" } | { kind: "container"; image: string };

/**
 * REPOSITE_EDGE_NGINX: `host` (the machine's nginx) or `container` (nginx in a container that joins
 * the Swarm apps' overlay networks). `container` by default with REPOSITE_RUNTIME=swarm, since a
 * process on the host cannot join an overlay; `host` otherwise. REPOSITE_EDGE_NGINX_IMAGE names the
 * container's image (`nginx:stable` by default). `container` is refused with the Docker runtime.
 */
export function nginxPlacementFromEnv(env: Record<string, string | undefined>, runtime: { swarm: boolean }): NginxPlacement {
  const value = env.REPOSITE_EDGE_NGINX || (runtime.swarm ? "container" : "host");
  const image = env.REPOSITE_EDGE_NGINX_IMAGE;
  if (value !== "host" && value !== "container") {
    throw new Error(`[reposite] REPOSITE_EDGE_NGINX must be host (the machine's nginx) or container (nginx in a container on the Docker Engine, for Swarm apps), not ${JSON.stringify(value)}.`);
  }
  if (value === "host") {
    if (image) throw new Error("[reposite] REPOSITE_EDGE_NGINX_IMAGE is the image of the nginx container: set REPOSITE_EDGE_NGINX=container too, or leave it out.");
    return { kind: "host" };
  }
  // Apps on the Docker runtime answer on this machine's loopback, which a container's nginx cannot reach.
  if (!runtime.swarm) throw new Error("[reposite] REPOSITE_EDGE_NGINX=container is for Swarm apps (REPOSITE_RUNTIME=swarm): apps on the Docker runtime answer on this machine's loopback, which nginx in a container cannot reach. Use REPOSITE_EDGE_NGINX=host.");
  if (image && !/^[a-zA-Z0-9][a-zA-Z0-9._\-/:@]*$/.test(image)) throw new Error(`[reposite] REPOSITE_EDGE_NGINX_IMAGE must be an image reference (for example nginx:1.27), not ${JSON.stringify(image)}.`);
  return { kind: "container", image: image || DEFAULT_NGINX_IMAGE };
}

/** The network the container starts on, for its published ports; never left. */
const HOME_NETWORK = "bridge";

/**
 * nginx in a container on the Docker Engine, for apps on overlay networks a process on the host
 * cannot join (Swarm). Its files are this machine's, bind-mounted at the same paths, so the
 * configuration is the host nginx's; it listens on all its interfaces and the Engine publishes
 * each visitor address on this machine. It joins the networks the edge names (`networks`). Its
 * master is PID 1 of the container and, as the container runs on this machine's Engine, one of
 * this machine's processes: reloads are watched through /proc as for the host's nginx.
 */
export function containerNginx(options: NginxContainerOptions = {}): NginxRunner {
  const docker = options.docker ?? new Docker();
  const image = options.image ?? DEFAULT_NGINX_IMAGE;
  let current: Docker.Container | null = null;
  let user: { uid: number; gid: number } | undefined;

  const ensureImage = async () => {
    if (await docker.getImage(image).inspect().then(() => true, () => false)) return;
    try {
      await new Promise<void>((resolve, reject) =>
        docker.pull(image, {}, (error: unknown, stream?: NodeJS.ReadableStream) => {
          if (error || !stream) return reject(error);
          docker.modem.followProgress(stream, (failed: unknown) => (failed ? reject(failed) : resolve()));
        }),
      );
    } catch (error) {
      throw new Error(`REPOSITE_EDGE_NGINX=container: the image ${image} is not on the Engine and could not be pulled (${message(error)}). Pull it, or name another with REPOSITE_EDGE_NGINX_IMAGE.`);
    }
  };
  const binds = (dir: string | null) => [...new Set([...(dir ? [dir] : []), ...(options.mounts ?? [])])].map((path) => `${path}:${path}`);
  /** Runs `nginx <args>` once in a throwaway container with the edge's files; its output, or an error with it. */
  const once = async (dir: string | null, args: string[]): Promise<string> => {
    await ensureImage();
    const container = await docker.createContainer({ Image: image, Entrypoint: ["nginx"], Cmd: args, Labels: options.labels ?? {}, ...(user ? { User: `${user.uid}:${user.gid}` } : {}), HostConfig: { Binds: binds(dir), NetworkMode: "none" } });
    try {
      await container.start();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      const output = await outputOf(docker, await container.logs({ stdout: true, stderr: true, follow: false }));
      if (StatusCode !== 0) throw new Error(output.trim() || `nginx ${args.join(" ")} exited with ${StatusCode}`);
      return output;
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  };

  return {
    inContainer: true,
    async version() {
      await ensureImage();
      const output = await once(null, ["-v"]).catch((error: unknown) => {
        throw new Error(`REPOSITE_EDGE_NGINX=container: "nginx -v" failed in ${image}: ${message(error)}`);
      });
      return `${/nginx\/\S+/.exec(output)?.[0] ?? output.trim()} in a container (${image})`;
    },
    async test(dir, conf) {
      const args = ["-t", "-q", "-p", dir, "-e", join(dir, "error.log"), "-c", conf];
      if (!current) return void (await once(dir, args));
      const { exitCode, output } = await execIn(docker, current, ["nginx", ...args]);
      if (exitCode !== 0) throw new Error(output.trim() || `nginx -t exited with ${exitCode}`);
    },
    seat: (listen) => ({ hostname: "0.0.0.0", port: listen.port }),
    async workerUser(dataDir) {
      // Root in the container when the data directory is root's; else the container runs as its owner, workers too.
      const { uid, gid } = await stat(dataDir);
      user = uid === 0 ? undefined : { uid, gid };
      return uid === 0 ? "root" : undefined;
    },
    // The official image has no brotli module; `.br` files would never be served.
    brotliStatic: async () => null,
    async start(dir, listen, networks = new Set()) {
      await ensureImage();
      const name = options.name ?? `reposite-edge-${listen[0]!.port}`;
      const ports = Object.fromEntries(listen.map(({ port }) => [`${port}/tcp`, {}]));
      const bindings = Object.fromEntries(listen.map(({ hostname, port }) => [`${port}/tcp`, [{ HostIp: hostname, HostPort: String(port) }]]));
      const spec = {
        name,
        Image: image,
        Entrypoint: ["nginx"],
        Cmd: ["-p", dir, "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")],
        ...(user ? { User: `${user.uid}:${user.gid}` } : {}),
        ExposedPorts: ports,
        HostConfig: {
          Binds: binds(dir),
          PortBindings: bindings,
          NetworkMode: HOME_NETWORK,
          // What nginx needs: low ports, and switching its workers to their user.
          CapDrop: ["ALL"],
          CapAdd: ["NET_BIND_SERVICE", "SETUID", "SETGID", "CHOWN"],
          SecurityOpt: ["no-new-privileges"],
        },
      };
      const fingerprint = createHash("sha256").update(JSON.stringify(spec)).digest("hex").slice(0, 16);
      const labels = { ...options.labels, [EDGE_CONTAINER_LABEL]: name, [SETTINGS_LABEL]: fingerprint };
      // A container left by an earlier run (a crash, a kill): kept when it runs as asked, so visitors see no gap.
      const found = (await docker.listContainers({ all: true, filters: { label: [`${EDGE_CONTAINER_LABEL}=${name}`] } }))[0];
      let adopted = false;
      if (found && found.State === "running" && found.Labels[SETTINGS_LABEL] === fingerprint) {
        current = docker.getContainer(found.Id);
        adopted = true;
      } else {
        if (found) await docker.getContainer(found.Id).remove({ force: true });
        current = await docker.createContainer({ ...spec, Labels: labels });
        // Joined while created: nginx's first answer can already reach these apps.
        for (const network of networks) await joinNetwork(docker, current, network);
        await current.start();
      }
      const container = current;
      const info = await container.inspect();
      const pid = info.State.Pid;
      let running = info.State.Running;
      const exited = container.wait().then(
        (result: { StatusCode?: number }) => ((running = false), result.StatusCode ?? null),
        () => ((running = false), null),
      );
      await untilAnswering(listen, () => running, async () => (await outputOf(docker, await container.logs({ stdout: true, stderr: true, follow: false }))).trim(), () => void container.kill().catch(() => undefined));
      if (!(await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).startsWith("nginx")) {
        await container.remove({ force: true }).catch(() => undefined);
        throw new Error(`REPOSITE_EDGE_NGINX=container: the nginx container's master (pid ${pid}) is not a process of this machine: the Engine must run here (nginx reads this machine's files).`);
      }
      const master = superviseMaster({
        pid,
        running: () => running,
        exited,
        signal: async (signal) => void (await container.kill({ signal }).catch(() => undefined)),
        kill: async () => void (await container.kill().catch(() => undefined)),
      });
      // The one found was started with an earlier configuration: it takes the one written now.
      if (adopted) await (await master.reload()).oldWorkersGone;
      const supervised: NginxProcess = {
        exited,
        reload: () => master.reload(),
        async stop(timeoutMs) {
          await master.stop(timeoutMs);
          await container.remove({ force: true }).catch(() => undefined);
          if (current === container) current = null;
        },
      };
      return supervised;
    },
    async networks(names) {
      if (!current) return;
      const joined = Object.keys(((await current.inspect()).NetworkSettings.Networks ?? {}) as Record<string, unknown>).filter((network) => network !== HOME_NETWORK);
      for (const network of names) if (!joined.includes(network)) await joinNetwork(docker, current, network);
      for (const network of joined) {
        if (names.has(network)) continue;
        await docker.getNetwork(network).disconnect({ Container: current.id, Force: true }).catch(() => undefined);
      }
    },
  };
}

/** Connects the container to a network; already on it is fine, anything else means its apps cannot be reached. */
async function joinNetwork(docker: Docker, container: Docker.Container, network: string): Promise<void> {
  await docker
    .getNetwork(network)
    .connect({ Container: container.id })
    .catch((error: unknown) => {
      if (!/already exists/i.test(message(error))) throw new Error(`the nginx container cannot join the network ${network}: ${message(error)}`);
    });
}

/** Runs a command in the running container: its exit code and output. */
async function execIn(docker: Docker, container: Docker.Container, command: string[]): Promise<{ exitCode: number; output: string }> {
  const exec = await container.exec({ Cmd: command, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const output = await outputOf(docker, stream);
  const { ExitCode } = (await exec.inspect()) as { ExitCode: number | null };
  return { exitCode: ExitCode ?? -1, output };
}

/** stdout and stderr of a multiplexed Engine stream (or a buffer of one), as text. */
async function outputOf(docker: Docker, stream: NodeJS.ReadableStream | Buffer): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (chunk: Buffer) => chunks.push(chunk));
  if (Buffer.isBuffer(stream)) {
    // Frames of 8 bytes of header (stream, 0, 0, 0, length) and the payload.
    for (let at = 0; at + 8 <= stream.length; ) {
      const length = stream.readUInt32BE(at + 4);
      chunks.push(stream.subarray(at + 8, at + 8 + length));
      at += 8 + length;
    }
    return Buffer.concat(chunks).toString("utf8");
  }
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
  return Buffer.concat(chunks).toString("utf8");
}

const message = (error: unknown) => (error as { json?: { message?: string } } | null)?.json?.message ?? (error instanceof Error ? error.message : String(error));
