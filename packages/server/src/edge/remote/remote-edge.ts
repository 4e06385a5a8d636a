import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { EdgeFeedView } from "@reposite/contract";
import { prepareSite, readIssued, type AppTarget, type EdgeRoutes, type PublishedSite } from "@reposite/core";
import { openCertificateFiles, SAFE_NAME, type CertificateFiles } from "../edge-certificates.js";
import { findBrotliStatic, findNginx } from "../find-nginx.js";
import { startNginxEdge, type NginxEdge } from "../nginx-edge.js";
import { removeSiteFiles, writeSiteVersion } from "../site-version.js";
import { startVisitLog, type VisitLog } from "../visit-log.js";
import { readEdgeState, writeEdgeState, type EdgeState } from "./edge-state.js";
import { FeedClient, FeedError } from "./feed-client.js";
import { stopStaleNginx } from "./stale-nginx.js";
import { startVisitShipper, type VisitShipper } from "./visit-shipper.js";

export interface RemoteEdgeOptions {
  /** This edge's folder (`<REPOSITE_DATA_DIR>/edge`): nginx's files, the sites, the state. */
  dir: string;
  /** Where visitors reach nginx (`HOST`, `PORT`). */
  listen: { hostname: string; port: number };
  /** Control-plane servers (`http://10.0.0.5:3000`): the feed is read from one at a time, and nginx sends what it does not serve to all. */
  controlPlanes: readonly string[];
  /** REPOSITE_EDGE_TOKEN, the same as the control planes'. */
  token: string;
  trustProxy: boolean;
  /**
   * HTTPS (REPOSITE_HTTPS_PORT): nginx also listens here and serves the certificates built-in ACME
   * orders on the control planes, fetched over the feed into `<dir>/certs`. Left out: HTTP only.
   */
  tls?: { listen: { hostname: string; port: number } };
  /** Shutdown bound (ms). */
  shutdownMs: number;
  binary?: string;
}

export interface RemoteEdge {
  /** For the start-up output. */
  description: string;
  /** The feed version nginx was given last. */
  version(): number;
  close(): Promise<void>;
}

/** Sites fetched at once. */
const FETCHES = 4;

/** A slug names a folder on this machine: anything else a feed lists is left out. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const targetOf = (address: string): AppTarget => {
  const url = new URL(address);
  return { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port) || (url.protocol === "https:" ? 443 : 80) };
};

/**
 * `reposite edge`: nginx on an edge machine, fed by control-plane servers over HTTP. It long-polls
 * the route table (`/edge/routes?after=<version>`), fetches each published site whose version
 * changed and writes it with the single-machine edge's atomic switch (`writeSiteVersion`), gives
 * the table to the same supervisor (`startNginxEdge`: coalesced, validated reloads), writes the
 * certificates built-in ACME ordered (HTTPS, served by SNI), and hands its page views to a control
 * plane. What it applied is kept in `<dir>/state.json`: restarted, it
 * serves that at once and asks for what changed since; a restarted control plane answers a newer
 * version, which is taken at once.
 */
export async function startRemoteEdge(options: RemoteEdgeOptions): Promise<RemoteEdge> {
  const binary = options.binary ?? "nginx";
  await findNginx(binary);
  const { dir } = options;
  const sitesDir = join(dir, "sites");
  const statePath = join(dir, "state.json");
  await mkdir(sitesDir, { recursive: true });
  await stopStaleNginx(dir);

  const state = await readEdgeState(statePath);
  // Only sites whose files are really there are routed to their folder.
  for (const slug of Object.keys(state.sites)) if (!(await onDisk(sitesDir, slug))) delete state.sites[slug];
  state.routes = { ...state.routes, sites: state.routes.sites.filter((slug) => state.sites[slug]) };
  // Certificates on disk are served at once, control planes up or not; a file the state does not
  // name (a kill between its write and the state's) is fetched again or removed by the next feed.
  const certificateFiles: CertificateFiles | undefined = options.tls ? await openCertificateFiles(join(dir, "certs")) : undefined;
  const onDiskCertificates = new Set(await certificateFiles?.names());
  state.certificates = Object.fromEntries([...onDiskCertificates].map((name) => [name, state.certificates[name] ?? ""]));

  const client = new FeedClient(options.controlPlanes, options.token);
  const shipper: VisitShipper = startVisitShipper(client);
  const brotliModule = await findBrotliStatic();
  // nginx logs visits by host; the edge knows which site each host's files are (set just below).
  let nginx: NginxEdge | undefined;
  const visitLog: VisitLog = await startVisitLog(join(dir, "visits.log"), shipper, (host) => {
    const slug = nginx?.slugOfHost(host);
    return slug ? state.sites[slug]?.siteId : undefined;
  });

  // The route source the supervisor follows: the table of the last feed applied.
  let routes: EdgeRoutes = state.routes;
  const listeners = new Set<(routes: EdgeRoutes) => void>();
  const source = {
    snapshot: () => routes,
    subscribe(listener: (routes: EdgeRoutes) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    // Which sites are on disk is said by `apply` with each table, not one by one.
    siteOnDisk: () => undefined,
  };
  const [node, ...moreNodes] = options.controlPlanes.map(targetOf);
  try {
    nginx = await startNginxEdge({
      dir,
      listen: options.listen,
      node: node!,
      moreNodes,
      trustProxy: options.trustProxy,
      shutdownMs: options.shutdownMs,
      table: source,
      // The control plane's deploys drain an old container for its own drain window; an edge has no hold on it.
      appRoutes: { hold: () => () => undefined },
      siteFiles: { dir: sitesDir, brotliModule, visitsLog: visitLog.path },
      ...(options.tls ? { tls: { listen: options.tls.listen } } : {}),
      binary,
    });
  } catch (error) {
    await visitLog.close();
    await shipper.close();
    throw error;
  }

  const stop = new AbortController();
  /** Gives nginx `next` and waits (a moment) until it serves it: files of dropped sites go only after. */
  const serve = async (next: EdgeRoutes) => {
    routes = next;
    for (const listener of listeners) listener(next);
    for (const deadline = Date.now() + 5_000; nginx.version() < next.version && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  /** Writes the sites whose version changed; answers whether every one was written. */
  const writeSites = async (feed: EdgeFeedView): Promise<boolean> => {
    const stale = feed.sites.filter((site) => state.sites[site.slug]?.version !== site.version);
    let complete = true;
    const work = async () => {
      for (let site = stale.shift(); site && !stop.signal.aborted; site = stale.shift()) {
        try {
          const answer = await client.site(site.slug, stop.signal);
          if (!answer) continue; // taken down meanwhile: the next feed says so
          const prepared = await prepareSite(answer.snapshot as unknown as PublishedSite, {}, answer.public_url);
          await writeSiteVersion(sitesDir, prepared, { brotli: brotliModule !== null });
          state.sites[site.slug] = { siteId: answer.site_id, version: answer.version };
        } catch (error) {
          complete = false;
          if (!stop.signal.aborted) console.error(`[reposite] [edge] fetching site "${site.slug}" failed; the control plane serves it meanwhile: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: FETCHES }, work));
    return complete;
  };

  /**
   * Writes the certificates whose version changed and removes those no longer listed (nginx reads
   * them at each handshake: no reload). Answers whether every one was written. The key goes from
   * the answer to the file, never to a log line.
   */
  const writeCertificates = async (listed: EdgeFeedView["certificates"] | undefined): Promise<boolean> => {
    // A control plane from before certificates were fed lists none: what is on disk stays.
    if (!certificateFiles || !listed) return true;
    const wanted = listed.filter((certificate) => SAFE_NAME.test(certificate.name));
    let complete = true;
    for (const { name, version } of wanted) {
      if (state.certificates[name] === version || stop.signal.aborted) continue;
      try {
        const answer = await client.certificate(name, stop.signal);
        if (!answer) continue; // dropped meanwhile: the next feed says so
        // One that would fail every handshake (not for the name, or not its key) never replaces the file.
        const checked = readIssued(name, { keyPem: answer.key_pem, chainPem: answer.chain_pem }, new Date());
        await certificateFiles.write(name, checked);
        state.certificates[name] = answer.version;
      } catch (error) {
        complete = false;
        if (!stop.signal.aborted) console.error(`[reposite] [edge] fetching the certificate of ${name} failed; the one on disk (if any) is served meanwhile: ${(error as Error).message}`);
      }
    }
    const kept = new Set(wanted.map((certificate) => certificate.name));
    for (const name of Object.keys(state.certificates).filter((each) => !kept.has(each))) {
      await certificateFiles.remove(name);
      delete state.certificates[name];
    }
    return complete;
  };

  const apply = async (given: EdgeFeedView): Promise<boolean> => {
    const feed = { ...given, sites: given.sites.filter((site) => SLUG.test(site.slug)) };
    const sitesComplete = await writeSites(feed);
    const complete = (await writeCertificates(feed.certificates as EdgeFeedView["certificates"] | undefined)) && sitesComplete;
    const published = new Set(feed.sites.map((site) => site.slug));
    const gone = Object.keys(state.sites).filter((slug) => !published.has(slug));
    for (const slug of gone) delete state.sites[slug];
    await serve({
      version: feed.version,
      sitesDomain: feed.sites_domain,
      apps: feed.apps.map((app) => ({ siteId: app.site_id, slug: app.slug, target: app.target, gated: app.gated })),
      domains: feed.domains,
      sites: Object.keys(state.sites).sort(),
    });
    for (const slug of gone) await removeSiteFiles(sitesDir, slug);
    state.version = complete ? feed.version : 0;
    state.routes = routes;
    await writeEdgeState(statePath, state);
    return complete;
  };

  const follow = async () => {
    let failures = 0;
    while (!stop.signal.aborted) {
      try {
        const feed = await client.routes(state.version, stop.signal);
        if (stop.signal.aborted) break;
        // A site that could not be fetched is asked for again: the next poll is answered at once.
        const complete = feed.version === state.version && feed.version !== 0 ? true : await apply(feed);
        if (failures > 0) console.error(`[reposite] [edge] following ${client.address} again (version ${feed.version}).`);
        failures = complete ? 0 : failures + 1;
        if (!complete) await pause(Math.min(500 * 2 ** failures, 5_000), stop.signal);
      } catch (error) {
        if (stop.signal.aborted) break;
        failures += 1;
        if (failures === 1 || failures % 20 === 0) {
          const hint = error instanceof FeedError && error.status === 401 ? " (REPOSITE_EDGE_TOKEN differs from the control plane's)" : "";
          console.error(`[reposite] [edge] ${(error as Error).message}${hint}; nginx keeps serving version ${nginx.version()}, asking again.`);
        }
        await pause(Math.min(250 * 2 ** failures, 5_000), stop.signal);
      }
    }
  };
  const following = follow();

  return {
    description: `${nginx.description.replace(/ in front of Reposite on .*?;/, ";")}, fed by ${options.controlPlanes.join(", ")}`,
    version: () => nginx.version(),
    async close() {
      stop.abort();
      await following;
      await nginx.close();
      await visitLog.close();
      await shipper.close();
    },
  };
}

async function onDisk(sitesDir: string, slug: string): Promise<boolean> {
  return access(join(sitesDir, slug, "current")).then(() => true, () => false);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
