import type { SwarmRegistry } from "./swarm-options.js";

/** The Engine's `X-Registry-Auth` for the registry, or undefined without credentials. */
export function registryAuth(registry: SwarmRegistry | null | undefined): { username: string; password: string; serveraddress: string } | undefined {
  if (!registry?.username) return undefined;
  return { username: registry.username, password: registry.password ?? "", serveraddress: registry.address };
}

/** The registry's base URL for its HTTP API (`/v2/…`). */
export function registryUrl(registry: SwarmRegistry): string {
  const loopback = /^(127\.|localhost(:|$)|\[::1\])/.test(registry.address);
  return `${registry.scheme ?? (loopback ? "http" : "https")}://${registry.address}`;
}

/** Removes the registry's password from a message before it is shown anywhere. */
export function withoutSecret(message: string, registry: SwarmRegistry | null | undefined): string {
  const password = registry?.password;
  return password ? message.split(password).join("<registry password>") : message;
}
