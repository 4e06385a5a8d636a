import { buildLocalBaseImages, docker, imageStamp } from "./docker.js";

/**
 * A stand-in for `registry.k8s.io/pause` (no registry is reachable): a container that only waits,
 * for the Docker runtime's network holders. busybox's `sleep` as its command, as user 65535 like pause.
 */
export const LOCAL_PAUSE_IMAGE = "reposite-test/pause:local";

const RECIPE = "pause-1";

/** Makes `reposite-test/pause:local` from the busybox base image unless this machine has it. */
export async function buildLocalPauseImage(): Promise<string> {
  if ((await imageStamp(LOCAL_PAUSE_IMAGE)) === RECIPE) return LOCAL_PAUSE_IMAGE;
  const { busybox } = await buildLocalBaseImages();
  // About 68 years: as long as `sleep` may be asked to wait.
  const dockerfile = [`FROM ${busybox}`, "USER 65535:65535", 'ENTRYPOINT ["sleep", "2147483647"]', `ENV REPOSITE_TEST_IMAGE=${RECIPE}`, ""].join("\n");
  await docker(["build", "--quiet", "--tag", LOCAL_PAUSE_IMAGE, "-"], { input: dockerfile, timeoutMs: 120_000 });
  return LOCAL_PAUSE_IMAGE;
}
