/**
 * Paths on the server itself that the container engine writes into its errors: its data root
 * (`/var/lib/docker/overlay2/<layer>/merged/…`, `/var/lib/docker/volumes/…/_data`) and the file
 * descriptors it mounts through (`/proc/self/fd/6`). They tell a tenant how the host is laid out,
 * so every text a diagnosis shows has them replaced.
 */
const HOST_PATH = /^\/var\/lib\/|^\/proc\/self\/|\/(?:overlay2?|volumes|containers|containerd|aufs|btrfs|zfs|vfs|fuse-overlayfs)\//;

/** What a tenant reads where the engine named a path on the server. */
export const HIDDEN_PATH = "(a path on the server)";

export function hideHostPaths(text: string): string {
  return text.replace(/\/[^\s"'():,]+/g, (path) => (HOST_PATH.test(path) ? HIDDEN_PATH : path));
}
