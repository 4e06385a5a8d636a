import { execFile } from "node:child_process";

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
