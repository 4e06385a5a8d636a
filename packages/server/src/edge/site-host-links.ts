import { randomBytes } from "node:crypto";
import { mkdir, readdir, readlink, rename, rm, symlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { siteHostsDir } from "@reposite/core";

/** The links nginx finds each site host's files by (`siteHostsDir`), and which slug each host is. */
export interface SiteHostLinks {
  /** Makes `<hosts>/<host>` -> `../sites/<slug>` for exactly these hosts. */
  sync(hosts: readonly (readonly [host: string, slug: string])[]): Promise<void>;
  /** The slug a host's files are linked to (for the visit log, which nginx writes by host). */
  slugOf(host: string): string | undefined;
}

/**
 * Keeps the host links beside `sitesDir`, called before nginx is told of new routes. A link is
 * replaced atomically (a new one renamed over it: a visitor never finds none), a host no longer
 * routed loses its link, and a link left half-made by a kill is cleared at the first sync.
 */
export function siteHostLinks(sitesDir: string): SiteHostLinks {
  const dir = siteHostsDir(sitesDir);
  /** Host -> link target, as on disk; read at the first sync. */
  let linked: Map<string, string> | undefined;
  return {
    async sync(hosts) {
      if (!linked) {
        await mkdir(dir, { recursive: true });
        linked = new Map();
        for (const name of await readdir(dir)) linked.set(name, await readlink(join(dir, name)).catch(() => ""));
      }
      const wanted = new Map(hosts.map(([host, slug]) => [host, join("..", basename(sitesDir), slug)]));
      for (const [host, target] of wanted) {
        if (linked.get(host) === target) continue;
        // Host names never start with a dot: a temporary name cannot be one.
        const temporary = join(dir, `.${host}.${randomBytes(4).toString("hex")}`);
        await symlink(target, temporary);
        await rename(temporary, join(dir, host));
        linked.set(host, target);
      }
      for (const host of [...linked.keys()]) {
        if (wanted.has(host)) continue;
        await rm(join(dir, host), { force: true });
        linked.delete(host);
      }
    },
    slugOf(host) {
      const target = linked?.get(host);
      return target ? basename(target) : undefined;
    },
  };
}
