import { z } from "zod";

/** How the app's image is made: the repository's Dockerfile, one Reposite writes, or a bare box. */
export const BUILD_MODES = ["dockerfile", "auto", "bare"] as const;
export type BuildMode = (typeof BUILD_MODES)[number];

/** The bare box's base images (the spec's five); the operator maps each to an image it can use. */
export const BARE_BASE_IMAGES = ["ubuntu:24.04", "debian:bookworm-slim", "alpine:3.20", "node:22-bookworm", "python:3.12-bookworm"] as const;
export type BareBaseImage = (typeof BARE_BASE_IMAGES)[number];

/** How a project's app is built and run (`PUT /app/sites/{site_id}/deployment`). */
export interface DeploymentSetup {
  build_mode: BuildMode;
  /** Relative to the repository root; used with `dockerfile`. */
  dockerfile_path: string;
  /** Required with `bare`; null otherwise unless set. */
  base_image: BareBaseImage | null;
  /** What the app listens on inside its container, given to it as `PORT`. */
  port: number;
  /** Branch, tag or commit; `HEAD` is the default branch. */
  ref: string;
  /** Must answer (below 500) before traffic switches to a new container. */
  health_path: string;
  /** Absolute path in the container where a named volume keeps data across deploys; null for none. */
  volume_path: string | null;
}

export const DEFAULT_SETUP: DeploymentSetup = {
  build_mode: "dockerfile",
  dockerfile_path: "Dockerfile",
  base_image: null,
  port: 3000,
  ref: "HEAD",
  health_path: "/",
  volume_path: null,
};

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Paths the engine itself mounts: a volume there would hide the system or fail to start. */
const SYSTEM_PATHS = ["/proc", "/sys", "/dev"];

const dockerfilePath = z
  .string({ message: "must be a path relative to the repository root, such as Dockerfile or docker/web.Dockerfile" })
  .trim()
  .min(1, "must not be empty")
  .max(500, "must be at most 500 characters")
  .refine((path) => !CONTROL.test(path) && !path.includes("\\"), "must not contain control characters or backslashes")
  .refine((path) => !path.startsWith("/"), "must be relative to the repository root, not absolute")
  .refine((path) => !path.split("/").includes(".."), "must stay inside the repository (no ..)")
  .transform((path) => path.replace(/^(\.\/)+/, "").replace(/\/{2,}/g, "/"))
  .refine((path) => path !== "" && path !== "." && !path.endsWith("/"), "must name a file");

const ref = z
  .string({ message: "must be a branch, tag or commit" })
  .trim()
  .min(1, "must not be empty")
  .max(250, "must be at most 250 characters")
  .regex(/^[^\s~^:?*[\\\u0000-\u001f\u007f]+$/, "must be a branch, tag or commit")
  .refine((value) => !value.includes("..") && !value.startsWith("-"), "must be a branch, tag or commit");

const healthPath = z
  .string({ message: "must be a path such as / or /health" })
  .max(500, "must be at most 500 characters")
  .regex(/^\/[^\s#]*$/, "must be a path starting with / (a query is allowed), such as /health");

const volumePath = z
  .string({ message: "must be an absolute path in the container, such as /data" })
  .max(500, "must be at most 500 characters")
  .refine((path) => path.startsWith("/"), "must be an absolute path in the container, such as /data")
  .refine((path) => !CONTROL.test(path) && !path.includes("\\") && !path.includes(":"), "must not contain control characters, backslashes or colons")
  .refine((path) => !path.split("/").includes("..") && !path.split("/").includes("."), "must not contain . or .. segments")
  .transform((path) => path.replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1"))
  .refine((path) => path !== "/", "must not be the container's root folder")
  .refine((path) => !SYSTEM_PATHS.some((system) => path === system || path.startsWith(`${system}/`)), "must not be under /proc, /sys or /dev");

/** Every field optional: a setup call changes the fields it sends and keeps the rest. */
export const setupInputSchema = z.strictObject({
  build_mode: z.enum(BUILD_MODES, { message: `must be one of ${BUILD_MODES.join(", ")}` }).optional(),
  dockerfile_path: dockerfilePath.optional(),
  base_image: z.enum(BARE_BASE_IMAGES, { message: `must be one of ${BARE_BASE_IMAGES.join(", ")}` }).nullable().optional(),
  port: z
    .number({ message: "must be a whole number from 1 to 65535" })
    .int("must be a whole number from 1 to 65535")
    .min(1, "must be a whole number from 1 to 65535")
    .max(65_535, "must be a whole number from 1 to 65535")
    .optional(),
  ref: ref.optional(),
  health_path: healthPath.optional(),
  volume_path: volumePath.nullable().optional(),
});

export type SetupInput = z.input<typeof setupInputSchema>;
