import { imageStamp } from "./docker.js";
import { imageFromHostFiles } from "./host-files-image.js";

/**
 * An nginx image for the containerised edge in tests (no registry is reachable for the official
 * `nginx` image): this machine's own nginx (Debian's) on the busybox base, so `nginx -t`, `cat`
 * and `kill` run inside it as in the official image.
 */
export const LOCAL_NGINX_IMAGE = "reposite-test/nginx:local";

const RECIPE = "nginx-1";

/** The C libraries Debian's nginx links against (`ldd /usr/sbin/nginx`). */
const LIBRARIES = ["libcrypt.so.1", "libpcre2-8.so.0", "libssl.so.3", "libcrypto.so.3", "libz.so.1", "libc.so.6"].map((name) => `lib/x86_64-linux-gnu/${name}`);

/** Makes `reposite-test/nginx:local` from `/usr/sbin/nginx` unless this machine has it. */
export async function buildLocalNginxImage(): Promise<string> {
  if ((await imageStamp(LOCAL_NGINX_IMAGE)) === RECIPE) return LOCAL_NGINX_IMAGE;
  return imageFromHostFiles({
    tag: LOCAL_NGINX_IMAGE,
    stamp: RECIPE,
    paths: ["usr/sbin/nginx", "lib64/ld-linux-x86-64.so.2", ...LIBRARIES],
    // The compiled-in paths nginx opens before it reads its configuration (the official image has them too).
    steps: ["RUN mkdir -p /var/log/nginx /var/lib/nginx /etc/nginx /usr/share/nginx && touch /etc/nginx/nginx.conf", 'ENTRYPOINT ["nginx"]'],
  });
}
