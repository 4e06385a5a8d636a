import { randomBytes } from "node:crypto";
import { mkdir, readdir, readlink, rename, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { edgeFileName, type CachedFile, type CachedSite } from "@reposite/core";

/** Name of the link in a site's folder that names the version nginx serves. */
const CURRENT = "current";

/**
 * Writes `site`'s files as a new version beside the ones there, then switches `<slug>/current`
 * to it in one `rename` of a symlink: a visitor gets all of one publish or all of the other, and a
 * process killed before the switch leaves the old version served (its half-written folder is
 * removed by the next write). Afterwards only the new version and the one before it are kept, so
 * a visitor still reading the previous one is not cut off.
 *
 * Text files get `.gz` (when smaller) and, with `brotli`, `.br` next to them; every file gets the
 * snapshot's date as its mtime, which nginx sends as `Last-Modified`.
 */
export async function writeSiteVersion(sitesDir: string, site: CachedSite, options: { brotli: boolean }): Promise<string> {
  const slug = site.site.slug;
  const siteDir = join(sitesDir, slug);
  const version = `v${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  const versionDir = join(siteDir, version);
  await mkdir(versionDir, { recursive: true });
  for (const file of site.files.values()) {
    const name = edgeFileName(file.path, file.contentType, file.compressible);
    if (name) await writeOneFile(join(versionDir, name), file, options.brotli);
  }
  const previous = await readlink(join(siteDir, CURRENT)).catch(() => null);
  const link = join(siteDir, `.${CURRENT}-${version}`);
  await symlink(version, link);
  await rename(link, join(siteDir, CURRENT));
  for (const entry of await readdir(siteDir)) {
    if (entry !== CURRENT && entry !== version && entry !== previous) await rm(join(siteDir, entry), { recursive: true, force: true });
  }
  return version;
}

/** Takes a site off the edge: the link first (nginx finds no file from then on), then the files. */
export async function removeSiteFiles(sitesDir: string, slug: string): Promise<void> {
  await rm(join(sitesDir, slug, CURRENT), { force: true });
  await rm(join(sitesDir, slug), { recursive: true, force: true });
}

async function writeOneFile(path: string, file: CachedFile, brotli: boolean): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const written = [path];
  await writeFile(path, (await file.load("identity"))!);
  if (file.compressible) {
    const gzip = await file.load("gzip");
    if (gzip) await writeFile(`${path}.gz`, gzip), written.push(`${path}.gz`);
    const br = brotli ? await file.load("br") : null;
    if (br) await writeFile(`${path}.br`, br), written.push(`${path}.br`);
  }
  const modified = file.lastModified ? new Date(file.lastModified) : null;
  if (modified) for (const name of written) await utimes(name, modified, modified);
}
