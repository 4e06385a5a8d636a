import { mkdir, rename, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { nginxEdgeConfig, nginxServedApps, siteHosts, type AppRoutes, type AppTarget, type DomainTable, type EdgeRoutes, type EdgeRouteTable, type NginxSiteSettings, type NodeSocket, type Reposite } from "@reposite/core";
import { startEdgeCertificates, type CertificateSource, type EdgeCertificates } from "./edge-certificates.js";
import { startEdgeSites, type EdgeSites } from "./edge-sites.js";
import { startEdgeAppPages, type EdgeAppPages } from "./app-pages-files.js";
import { NO_ANSWER_RETRY_AFTER, notRunningRetryAfter } from "../app-proxy/app-pages.js";
import { SITE_PAGE_HEADERS } from "../site-runtime/dynamic/site-pages.js";
import { startMemberGate, type MemberGateDecision, type MemberGateListener } from "./member-gate.js";
import { startVisitLog, type VisitLog } from "./visit-log.js";
import { siteHostLinks, type SiteHostLinks } from "./site-host-links.js";
import { hostNginx, type NginxProcess, type NginxRunner } from "./nginx-process.js";
import { createServedRoutes } from "./served-routes.js";

export interface NginxEdgeOptions {
  /** Folder of nginx's files (`<dataDir>/edge`): configuration, pid, error log, temporary files. */
  dir: string;
  /** Where visitors reach nginx (`HOST`, `PORT`). */
  listen: { hostname: string; port: number };
  /** Where Reposite's Node process answers: on loopback, or on a Unix socket (the only way nginx in a container reaches it). */
  node: AppTarget | NodeSocket;
  trustProxy: boolean;
  /** Shutdown bound (ms): old workers get this long at a reload, and nginx at a stop. */
  shutdownMs: number;
  table: Pick<EdgeRouteTable, "snapshot" | "subscribe" | "siteOnDisk">;
  /** The `/app/` table: targets nginx may still send to are held in it, so a deploy does not stop them too early. */
  appRoutes: Pick<AppRoutes, "hold"> & Partial<Pick<AppRoutes, "get" | "addFront">>;
  /** More Reposite processes beside `node` (`reposite edge`: its control planes). */
  moreNodes?: readonly AppTarget[];
  /** Changes within this window become one reload (ms). Default 200. */
  coalesceMs?: number;
  /** Default `nginx` (found on PATH). */
  binary?: string;
  /** How nginx runs: the machine's `binary` by default, or in a container (`containerNginx`, for apps on Swarm overlay networks). */
  runner?: NginxRunner;
  /** When given, nginx serves its published sites from files under `<dir>/sites` and logs their visits to it. */
  reposite?: Reposite;
  /** Without `reposite`: site files someone else writes and reads the visits of (`reposite edge`). */
  siteFiles?: NginxSiteSettings;
  /** When given, nginx serves members-only apps too, asking this gate first (`AppProxy.memberGate`). */
  memberGate?: MemberGateDecision;
  /** How long nginx keeps a gate decision (seconds): a sign-out holds within this. Default 3. */
  memberGateCacheSeconds?: number;
  /**
   * Built-in ACME: nginx also listens for HTTPS here, with the `<dir>/certs/<name>.pem` files.
   * With `certificates` (the machine that orders them) they are written from it; without it
   * (`reposite edge`) someone else writes them.
   */
  tls?: { listen: { hostname: string; port: number }; certificates?: { source: CertificateSource; domains: Pick<DomainTable, "onChange"> } };
}

/** Default bound of a gate decision kept by nginx (seconds). */
export const MEMBER_GATE_CACHE_SECONDS = 3;

/** nginx in front of Reposite, kept in step with the route table. */
export interface NginxEdge {
  /** For the start-up output: which shape runs. */
  description: string;
  /** Configurations applied so far (the first one included). */
  applied(): number;
  /** The route table version nginx serves now. */
  version(): number;
  /** Resolves once the site files asked for so far are written (tests, benchmarks). */
  sitesSettled(): Promise<void>;
  /** Built-in ACME stored or dropped a name's certificate: its files for nginx follow. */
  certificateChanged(name: string): void;
  /** The slug whose files nginx serves at a host (the visit log names hosts). */
  slugOfHost(host: string): string | undefined;
  /** Stops following the table and stops nginx gracefully (bounded by `shutdownMs`). */
  close(): Promise<void>;
}

/** How long old workers keep a network no current configuration names (see `apply`). */
const NETWORK_LEAVE_MS = 5_000;

const key = (target: AppTarget) => `${target.host}:${target.port}`;

/**
 * Writes nginx's configuration from the route table, starts nginx, and reloads it when routes
 * change: coalesced (a burst of changes -> one reload) and validated (`nginx -t` on the candidate
 * in `<dir>/next/` first; a candidate nginx refuses is logged and the running pair stays).
 */
export async function startNginxEdge(options: NginxEdgeOptions): Promise<NginxEdge> {
  const runner = options.runner ?? hostNginx(options.binary ?? "nginx");
  const version = await runner.version();
  const { dir, table, appRoutes } = options;
  const next = join(dir, "next");
  await mkdir(join(dir, "tmp"), { recursive: true });
  await mkdir(next, { recursive: true });
  let sites: EdgeSites | undefined;
  let visitLog: VisitLog | undefined;
  let siteSettings;
  /** nginx finds a site's files by host through these links; the visits log names hosts. */
  let hostLinks: SiteHostLinks | undefined;
  let appPages: EdgeAppPages | undefined;
  let appPageSettings;
  if (options.reposite) {
    // The apps' 503/502 pages in their sites' design, answered by nginx (nginx-app-pages.ts).
    const pagesDir = join(dir, "app-pages");
    appPages = startEdgeAppPages(options.reposite, table, pagesDir);
    appPageSettings = { dir: pagesDir, retryAfter: notRunningRetryAfter, retryAfterNoAnswer: NO_ANSWER_RETRY_AFTER, headers: SITE_PAGE_HEADERS };
    const sitesDir = join(dir, "sites");
    await mkdir(sitesDir, { recursive: true });
    const brotliModule = await runner.brotliStatic();
    hostLinks = siteHostLinks(sitesDir);
    visitLog = await startVisitLog(join(dir, "visits.log"), options.reposite.visits, (host) => {
      const slug = hostLinks?.slugOf(host);
      return slug ? sites?.siteIdOf(slug) : undefined;
    });
    sites = await startEdgeSites(options.reposite, table, { dir: sitesDir, brotli: brotliModule !== null });
    siteSettings = { dir: sitesDir, brotliModule, visitsLog: visitLog.path };
  } else if (options.siteFiles) {
    siteSettings = options.siteFiles;
    hostLinks = siteHostLinks(options.siteFiles.dir);
  }
  const user = siteSettings || runner.inContainer ? await runner.workerUser(dirname(dir)) : undefined;
  // nginx in a container reaches no listener on this machine's loopback: the gate then listens on a
  // socket beside Node's, in the folder bind-mounted into the container.
  const gateSocket = "socket" in options.node ? join(dirname(options.node.socket), "member-gate.sock") : undefined;
  const gate: MemberGateListener | undefined = options.memberGate && (!runner.inContainer || gateSocket) ? await startMemberGate(options.memberGate, gateSocket) : undefined;
  const memberGate = gate ? { target: gate.target, cacheSeconds: options.memberGateCacheSeconds ?? MEMBER_GATE_CACHE_SECONDS } : undefined;
  let certificateFiles: EdgeCertificates | undefined;
  let stopFollowingDomains: (() => void) | undefined;
  let tls;
  if (options.tls) {
    const certsDir = join(dir, "certs");
    const certificates = options.tls.certificates;
    if (certificates) {
      const files = await startEdgeCertificates(certificates.source, certsDir, []);
      certificateFiles = files;
      // A name verified again (its stored certificate served anew) or no longer verified.
      stopFollowingDomains = certificates.domains.onChange(({ before, after }) => {
        for (const name of new Set([before?.domain, after?.domain])) if (name) files.changed(name);
      });
    }
    tls = { listen: runner.seat(options.tls.listen), certsDir };
  }
  // One worker per CPU this process may run on: nginx 1.22's `auto` counts every CPU of the machine,
  // so on a CPU set (taskset, a container's cpuset) its extra workers took turns on the same CPUs.
  const workers = availableParallelism();
  const settings = { tls, listen: runner.seat(options.listen), node: options.node, moreNodes: options.moreNodes, dir, trustProxy: options.trustProxy, shutdownSeconds: options.shutdownMs / 1000, sites: siteSettings, user, memberGate, appPages: appPageSettings, workers };
  const directTargets = (routes: EdgeRoutes) => nginxServedApps(routes, settings).map((app) => app.target!);
  // The networks nginx reaches apps on (Swarm overlays), joined one change at a time.
  let joining: Promise<void> = Promise.resolve();
  const networksOf = (configurations: readonly EdgeRoutes[]) => new Set(configurations.flatMap(directTargets).flatMap((target) => (target.network ? [target.network] : [])));
  const joinNetworksOf = (configurations: readonly EdgeRoutes[]) => {
    const names = networksOf(configurations);
    return (joining = joining.catch(() => undefined).then(() => runner.networks?.(names)));
  };

  // A target nginx may send to is held from the moment the table names it until a reload that no
  // longer names it is done and its old workers are gone.
  const holds = new Map<string, () => void>();
  const holdTargetsOf = (routes: EdgeRoutes) => {
    for (const target of directTargets(routes)) if (!holds.has(key(target))) holds.set(key(target), appRoutes.hold(target));
  };

  let last = "";
  let servedVersion = 0;
  let count = 0;
  /** Writes, tests and moves the configuration in; false when nothing changed or nginx refused it. */
  const write = async (routes: EdgeRoutes): Promise<boolean> => {
    // Before the text is compared: a custom domain moved to another site changes a link, not the text.
    await hostLinks?.sync(siteHosts(routes));
    const files = nginxEdgeConfig(routes, settings);
    const text = files["nginx.conf"]! + files["routes.conf"]!;
    if (text === last) return false;
    for (const [name, content] of Object.entries(files)) await writeFile(join(next, name), content);
    await runner.test(dir, join(next, "nginx.conf"));
    // routes.conf first: the running nginx reads both only when told to reload.
    await rename(join(next, "routes.conf"), join(dir, "routes.conf"));
    await rename(join(next, "nginx.conf"), join(dir, "nginx.conf"));
    last = text;
    return true;
  };

  const first = table.snapshot();
  holdTargetsOf(first);
  let nginx: NginxProcess;
  try {
    await write(first);
    // The known apps' networks are joined before nginx answers: a first request must not find them missing.
    nginx = await runner.start(dir, [options.listen, ...(options.tls ? [options.tls.listen] : [])], networksOf([first]));
    await joinNetworksOf([first]);
  } catch (error) {
    await sites?.close();
    await visitLog?.close();
    await gate?.close();
    await appPages?.close();
    stopFollowingDomains?.();
    throw error;
  }
  servedVersion = first.version;
  count = 1;
  /** The configurations nginx may still have workers of, oldest first (the current one last). */
  const live: EdgeRoutes[] = [first];
  void nginx.exited.then((code) => {
    if (!closing) console.error(`[reposite] [edge] nginx exited unexpectedly (code ${code}); visitors get no answer on ${options.listen.hostname}:${options.listen.port}. See ${join(dir, "error.log")}.`);
  });

  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const apply = async () => {
    timer = undefined;
    if (closing) return;
    // The apps' 503 pages for their state now are on disk before nginx is told of that state.
    await appPages?.settled();
    const routes = table.snapshot();
    let oldWorkersGone: Promise<void> = Promise.resolve();
    try {
      if (await write(routes)) {
        // Joined before nginx sends there; the networks only older workers use are left once they are gone.
        await joinNetworksOf([...live, routes]);
        ({ oldWorkersGone } = await nginx.reload());
        count += 1;
      }
      servedVersion = routes.version;
      live.push(routes);
      served?.check();
    } catch (error) {
      console.error(`[reposite] [edge] routes version ${routes.version} were not applied; nginx keeps serving version ${servedVersion}: ${(error as Error).message}`);
      return;
    }
    // A network that neither this configuration nor the table names is left after a bound even while
    // old workers remain: a request in one of them may be the very delete or data reset that waits
    // for the network to go (only streams to that app, already being stopped, are cut).
    if (runner.networks) {
      void Promise.race([oldWorkersGone, new Promise((resolve) => setTimeout(resolve, NETWORK_LEAVE_MS).unref())]).then(() => {
        const at = live.indexOf(routes);
        if (!closing) void joinNetworksOf([...(at >= 0 ? live.slice(at) : live), table.snapshot()]).catch((error: unknown) => console.error(`[reposite] [edge] ${(error as Error).message}`));
      });
    }
    // Held targets that no configuration with workers left (nor the table) names may now be drained and stopped.
    void oldWorkersGone.then(() => {
      live.splice(0, live.indexOf(routes));
      const kept = new Set([...live, table.snapshot()].flatMap(directTargets).map(key));
      for (const [id, release] of holds) if (!kept.has(id)) (holds.delete(id), release());
      if (!closing) void joinNetworksOf([...live, table.snapshot()]).catch((error: unknown) => console.error(`[reposite] [edge] ${(error as Error).message}`));
    });
  };
  // A deploy says done once nginx sends to its new container (AppRoutes.applied waits on this).
  const served = appRoutes.get ? createServedRoutes(table, { get: appRoutes.get.bind(appRoutes) }, () => servedVersion) : null;
  const removeFront = served && appRoutes.addFront ? appRoutes.addFront(served.waitServed) : undefined;
  const unsubscribe = table.subscribe((routes) => {
    served?.check();
    holdTargetsOf(routes);
    // One reload at a time; changes while one runs are picked up by the next.
    timer ??= setTimeout(() => void (running = running.then(apply)), options.coalesceMs ?? 200);
  });

  return {
    description: `nginx (${version}) on ${options.listen.hostname}:${options.listen.port} in front of Reposite on ${"socket" in options.node ? options.node.socket : key(options.node)}; configuration in ${dir}`,
    applied: () => count,
    certificateChanged: (name) => certificateFiles?.changed(name),
    slugOfHost: (host) => hostLinks?.slugOf(host),
    version: () => servedVersion,
    sitesSettled: async () => {
      await sites?.settled();
      await appPages?.settled();
      // Then the reload that lists a newly written site.
      await new Promise((resolve) => setTimeout(resolve, (options.coalesceMs ?? 200) + 50));
      await running;
    },
    async close() {
      closing = true;
      unsubscribe();
      removeFront?.();
      clearTimeout(timer);
      await nginx.stop(options.shutdownMs);
      await running;
      await sites?.close();
      await visitLog?.close();
      await gate?.close();
      await appPages?.close();
      stopFollowingDomains?.();
      await certificateFiles?.settled();
      for (const release of holds.values()) release();
      holds.clear();
    },
  };
}
