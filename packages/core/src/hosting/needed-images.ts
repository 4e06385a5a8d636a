import type { ContainerRuntime } from "../ports/container-runtime.js";
import { baseImages } from "../repo-analysis/auto/detect.js";
import { DEFAULT_BASE_IMAGES, type BaseImages } from "../repo-analysis/repo-check.js";
import { BARE_BASE_IMAGES, type BareBaseImage } from "./deployment-setup.js";

/** The logical base images Dockerfile writers use (`node`, `python` …), each set by `REPOSITE_BASE_IMAGE_<NAME>`. */
export const BASE_IMAGE_NAMES = Object.keys(DEFAULT_BASE_IMAGES) as (keyof BaseImages)[];

/** The setting that names a logical base image: `REPOSITE_BASE_IMAGE_NODE`. */
export const baseImageSetting = (name: string) => `REPOSITE_BASE_IMAGE_${name.toUpperCase()}`;

/** One image builds start from, what uses it, and whether the engine has it. */
export interface NeededImage {
  /** The reference builds use (`node:22-bookworm-slim`). */
  image: string;
  /** What starts from it, with the setting that names it: `node (REPOSITE_BASE_IMAGE_NODE)`, `bare box alpine:3.20 (REPOSITE_BARE_IMAGES)`. */
  uses: string[];
  /** Whether the engine has it now: a build that needs it pulls it otherwise, which fails without a registry. */
  present: boolean;
  /** Its size on the engine (bytes), when present. */
  sizeBytes: number | null;
}

/**
 * The images automatic builds and bare boxes start from, with this server's settings applied
 * (`baseImages` as REPOSITE_BASE_IMAGE_* give them, `bareImages` as REPOSITE_BARE_IMAGES does), one
 * entry per image, and whether the engine has each: what an operator without registry access
 * must load (`docker load`) or point the settings at. With `networkHolderImage`, the network
 * holders' image too.
 */
export async function neededImages(
  runtime: Pick<ContainerRuntime, "imageSize">,
  settings: {
    baseImages?: Partial<BaseImages> | undefined;
    bareImages?: Partial<Record<BareBaseImage, string>> | undefined;
    /** The image of the runtime's network holders (REPOSITE_NETWORK_HOLDER_IMAGE), null when they are off. */
    networkHolderImage?: string | null | undefined;
  },
): Promise<NeededImage[]> {
  const uses = new Map<string, string[]>();
  const use = (image: string, what: string) => uses.set(image, [...(uses.get(image) ?? []), what]);
  const images = baseImages(settings.baseImages);
  for (const name of BASE_IMAGE_NAMES) use(images[name], `${name} (${baseImageSetting(name)})`);
  for (const choice of BARE_BASE_IMAGES) use(settings.bareImages?.[choice] ?? choice, `bare box ${choice} (REPOSITE_BARE_IMAGES)`);
  // Not needed to deploy (without it containers join their network themselves), only to deploy fast.
  if (settings.networkHolderImage) use(settings.networkHolderImage, "network holders (REPOSITE_NETWORK_HOLDER_IMAGE; pulled at the server's start when missing)");
  return Promise.all(
    [...uses].map(async ([image, what]) => {
      const sizeBytes = await runtime.imageSize(image);
      return { image, uses: what, present: sizeBytes !== null, sizeBytes };
    }),
  );
}
