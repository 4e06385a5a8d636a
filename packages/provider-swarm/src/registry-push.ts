import type Docker from "dockerode";
import { engineMessage } from "./engine.js";
import { registryAuth, registryUrl, withoutSecret } from "./registry-auth.js";
import type { SwarmRegistry } from "./swarm-options.js";

/** One message of the Engine's push stream. */
interface PushEvent {
  status?: string;
  id?: string;
  aux?: { Tag?: string; Digest?: string; Size?: number };
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Tags the built image as `<registry>/<repository>:<tag>`, pushes it and answers the manifest
 * digest the registry gave (from the push's `aux` message), so apps are deployed by digest.
 */
export async function pushImage(
  docker: Docker,
  registry: SwarmRegistry,
  image: { id: string; repository: string; tag: string },
  onLog: (line: string) => void,
): Promise<string> {
  const repo = `${registry.address}/${image.repository}`;
  await docker.getImage(image.id).tag({ repo, tag: image.tag });
  onLog(`Pushing ${repo}:${image.tag}`);
  const auth = registryAuth(registry);
  let digest: string | null = null;
  let failure: string | null = null;
  try {
    // The Engine wants an X-Registry-Auth header on every push, credentials or not.
    const stream = (await docker.getImage(`${repo}:${image.tag}`).push({ authconfig: auth ?? { serveraddress: registry.address } })) as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (error: Error | null) => (error ? reject(error) : resolve()),
        (event: PushEvent) => {
          if (event.aux?.Digest) digest = event.aux.Digest;
          if (event.error || event.errorDetail) failure = event.errorDetail?.message ?? event.error ?? "the push failed";
        },
      );
    });
  } catch (error) {
    failure = engineMessage(error);
  }
  if (failure || !digest) throw new Error(withoutSecret(`the registry ${registry.address} refused the image: ${failure ?? "no digest came back"}`, registry));
  onLog(`Pushed ${repo}@${digest}`);
  return digest;
}

/**
 * Deletes a manifest from the registry (the registry must allow deletes: `storage.delete.enabled`).
 * A missing one is fine; blobs go with the registry's garbage collection.
 */
export async function deleteFromRegistry(registry: SwarmRegistry, reference: string): Promise<void> {
  const at = reference.indexOf("@");
  const repository = reference.slice(registry.address.length + 1, at);
  const digest = reference.slice(at + 1);
  const auth = registryAuth(registry);
  const response = await fetch(`${registryUrl(registry)}/v2/${repository}/manifests/${digest}`, {
    method: "DELETE",
    headers: auth ? { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` } : {},
    signal: AbortSignal.timeout(15_000),
  });
  if (response.ok || response.status === 404) return;
  throw new Error(`[provider-swarm] the registry ${registry.address} did not delete ${repository}@${digest}: ${response.status} ${(await response.text()).slice(0, 200)}`);
}
