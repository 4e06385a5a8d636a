import { execFile } from "node:child_process";
import { access, readFile, stat } from "node:fs/promises";

/**
 * The nginx binary's version line (`nginx/1.22.1`), or a start-up error that says how to install
 * it: REPOSITE_EDGE=nginx cannot run without it, and failing later would leave PORT unanswered.
 */
export function findNginx(binary: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["-v"], (error, _stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
        reject(new Error(`REPOSITE_EDGE=nginx needs nginx, and "${binary}" was not found. Install it (Debian/Ubuntu: apt-get install nginx), or unset REPOSITE_EDGE to let Reposite serve everything itself.`));
      } else if (error) {
        reject(new Error(`REPOSITE_EDGE=nginx: "${binary} -v" failed: ${stderr.trim() || error.message}`));
      } else {
        resolve(/nginx\/\S+/.exec(stderr)?.[0] ?? stderr.trim());
      }
    });
  });
}

/** Where Debian's libnginx-mod-http-brotli-static puts its module. */
const BROTLI_STATIC_MODULES = ["/usr/lib/nginx/modules/ngx_http_brotli_static_module.so", "/usr/lib64/nginx/modules/ngx_http_brotli_static_module.so"];

/** The brotli_static module's path when installed (then `.br` files are written and served), else null. */
export async function findBrotliStatic(): Promise<string | null> {
  for (const path of BROTLI_STATIC_MODULES) if (await access(path).then(() => true, () => false)) return path;
  return null;
}

/**
 * Who nginx's workers run as, when Reposite runs as root: the owner of the data directory, so
 * they can read the site files under it without loosening its permissions. Otherwise undefined:
 * nginx's workers then run as Reposite's own user.
 */
export async function workerUser(dataDir: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const { uid } = await stat(dataDir);
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  const name = passwd.split("\n").map((line) => line.split(":")).find((fields) => fields[2] === String(uid))?.[0];
  return name ?? "root";
}
