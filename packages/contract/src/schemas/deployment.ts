import { z } from "zod";
import { deploymentStatusSchema } from "./projects.js";

// ---- The setup -----------------------------------------------------------------------------------

/** How the app's image is made: the repository's Dockerfile, one Reposite writes, or a bare box. */
export const BUILD_MODES = ["dockerfile", "auto", "bare"] as const;
export const buildModeSchema = z.enum(BUILD_MODES).describe("`dockerfile` (the repository's), `auto` (Reposite writes one) or `bare` (a box to set up in a terminal)");
export type BuildMode = z.output<typeof buildModeSchema>;

/** The bare box's base images (the spec's five); the operator maps each to an image it can use. */
export const BARE_BASE_IMAGES = ["ubuntu:24.04", "debian:bookworm-slim", "alpine:3.20", "node:22-bookworm", "python:3.12-bookworm"] as const;
export const bareBaseImageSchema = z.enum(BARE_BASE_IMAGES);
export type BareBaseImage = z.output<typeof bareBaseImageSchema>;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Paths the engine itself mounts: a volume there would hide the system or fail to start. */
const SYSTEM_PATHS = ["/proc", "/sys", "/dev"];

/**
 * Folders of the image's own system, refused with everything under them: a volume there hides the
 * programs and settings the app needs (`/bin`, `/etc`), or names a file (`/etc/hosts`,
 * `/var/run/docker.sock`), which a volume cannot be mounted on.
 */
const SYSTEM_TREES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/boot", "/run", "/var/run", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec", "/usr/include", "/usr/share", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib"];
/** Folders refused themselves (a volume there hides the system), while folders inside them may hold data (`/usr/src/app/uploads`). */
const SYSTEM_FOLDERS = ["/usr", "/usr/local", "/var", "/var/lib", "/root", "/home"];

const isSystemPath = (path: string) =>
  SYSTEM_FOLDERS.includes(path) || SYSTEM_TREES.some((tree) => path === tree || path.startsWith(`${tree}/`));

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

/** A folder of the repository (`apps/web`), for `auto` builds of one app among several. */
const rootDir = z
  .string({ message: "must be a folder of the repository, such as apps/web" })
  .trim()
  .max(500, "must be at most 500 characters")
  .refine((path) => !CONTROL.test(path) && !path.includes("\\"), "must not contain control characters or backslashes")
  .refine((path) => !path.startsWith("/"), "must be relative to the repository root, such as apps/web")
  .refine((path) => !path.split("/").includes(".."), "must stay inside the repository (no ..)")
  .transform((path) => path.replace(/^(\.\/)+/, "").replace(/\/{2,}/g, "/").replace(/\/+$/, ""))
  .transform((path) => (path === "" || path === "." ? null : path));

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
  .refine((path) => !SYSTEM_PATHS.some((system) => path === system || path.startsWith(`${system}/`)), "must not be under /proc, /sys or /dev")
  .refine(
    (path) => !isSystemPath(path),
    "must be a folder of the app's own, such as /data: not a system folder (/usr, /bin, /etc …) or a file in one (/etc/hosts, /var/run/docker.sock)",
  );

const portMessage = "must be a whole number from 1 to 65535";

/** `PUT …/deployment`. Every field optional: a setup call changes the fields it sends and keeps the rest. */
export const setupInputSchema = z
  .strictObject({
    build_mode: z.enum(BUILD_MODES, { message: `must be one of ${BUILD_MODES.join(", ")}` }).optional().describe("Default `dockerfile`"),
    dockerfile_path: dockerfilePath.optional().describe("Relative to the repository root; used with `dockerfile`. Default `Dockerfile`"),
    base_image: z
      .enum(BARE_BASE_IMAGES, { message: `must be one of ${BARE_BASE_IMAGES.join(", ")}` })
      .nullable()
      .optional()
      .describe("Required with `bare` (`422 base_image_required`)"),
    port: z.number({ message: portMessage }).int(portMessage).min(1, portMessage).max(65_535, portMessage).optional().describe("What the app listens on (on 0.0.0.0), given to it as `PORT`. Default 3000"),
    ref: ref.optional().describe("Branch, tag or commit; default `HEAD` (the default branch)"),
    health_path: healthPath.optional().describe("Must answer 2xx or 3xx before traffic switches to a new container. Default `/`"),
    volume_path: volumePath.nullable().optional().describe("Absolute path in the container whose data survives deploys, such as `/data`; null for none"),
    root_dir: rootDir
      .nullable()
      .optional()
      .describe("With `auto`: the folder of the repository holding the app (one app of a monorepo, such as `apps/web`); null (the default) for the root"),
  })
  .meta({ id: "DeploymentSetupInput" });
export type SetupInput = z.input<typeof setupInputSchema>;

/** The setup as stored and read: every field set. */
export const deploymentSetupSchema = z.strictObject({
  build_mode: buildModeSchema,
  /** Relative to the repository root; used with `dockerfile`. */
  dockerfile_path: z.string().describe("Relative to the repository root; used with `dockerfile`"),
  base_image: bareBaseImageSchema.nullable().describe("The bare box's base image; null otherwise unless set"),
  port: z.number().int().describe("What the app listens on inside its container, given to it as `PORT`"),
  ref: z.string().describe("Branch, tag or commit; `HEAD` is the default branch"),
  health_path: z.string().describe("Must answer 2xx or 3xx before traffic switches to a new container"),
  volume_path: z.string().nullable().describe("Where a named volume keeps data across deploys; null for none"),
  root_dir: z.string().nullable().describe("With `auto`: the folder of the repository holding the app; null for the root"),
});
export type DeploymentSetup = z.output<typeof deploymentSetupSchema>;

// ---- Env -----------------------------------------------------------------------------------------

/** What a read shows in place of every value: the same for all, so not even the length shows. */
export const MASKED_VALUE = "********";
export const MAX_ENV_VALUE_BYTES = 32 * 1024;
/** Set by Reposite from the setup (`port`); a value of the app's own would be overwritten. */
export const RESERVED_ENV_KEYS = ["PORT"] as const;

/** POSIX names: letters, digits and `_`, not starting with a digit. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const byteLength = (value: string) => new TextEncoder().encode(value).length;

/**
 * Names a JavaScript object treats specially: zod drops `__proto__` from a record without a word,
 * so they are refused before the record is read.
 */
export const FORBIDDEN_ENV_KEYS = ["__proto__", "constructor", "prototype"] as const;

const refuseForbiddenKeys = (value: unknown, context: { addIssue(issue: { code: "custom"; message: string; path: string[]; input: unknown }): void }) => {
  if (typeof value !== "object" || value === null) return value;
  for (const key of FORBIDDEN_ENV_KEYS) {
    if (Object.hasOwn(value, key)) context.addIssue({ code: "custom", path: [key], input: value, message: `${key} cannot be an env name (it is reserved in JavaScript objects)` });
  }
  return value;
};

/** `PUT …/deployment/env`: adds and changes the names sent, null removes one, the rest stay. */
export const envInputSchema = z
  .strictObject({
    env: z.preprocess(
      refuseForbiddenKeys,
      z.record(
        z
          .string()
          .regex(ENV_NAME, "names must be letters, digits and _ (not starting with a digit), at most 128 characters")
          .refine((name) => !(RESERVED_ENV_KEYS as readonly string[]).includes(name), "PORT is set from the setup's port; change that instead"),
        z
          .string({ message: "values must be strings, or null to remove the key" })
          .refine((value) => byteLength(value) <= MAX_ENV_VALUE_BYTES, `values must be at most ${MAX_ENV_VALUE_BYTES / 1024} KB`)
          .refine((value) => !value.includes("\u0000"), "values must not contain NUL")
          .nullable(),
        { message: "env must be an object of names to string values (null removes a name)" },
      ),
    )
      .describe("Name to value; null removes the name. At most 100 names, values at most 32 KB; __proto__, constructor and prototype are refused"),
  })
  .meta({ id: "EnvInput" });
export type EnvInput = z.input<typeof envInputSchema>;

/** `GET …/deployment/env`: every name, every value masked. */
export const envViewSchema = z
  .strictObject({ env: z.record(z.string(), z.string()).describe(`Every name set, each value shown as \`${MASKED_VALUE}\``) })
  .meta({ id: "Env" });
export type EnvView = z.output<typeof envViewSchema>;

// ---- Runs and what went wrong --------------------------------------------------------------------

/**
 * A run's states: `queued` (waiting for a build slot), `building`, `starting` (container up, health
 * check under way), then `done` (traffic switched to it) or `failed` (`reason` says why; the
 * previous container, if any, kept serving).
 */
export const RUN_STATUSES = ["queued", "building", "starting", "done", "failed"] as const;
export const runStatusSchema = z.enum(RUN_STATUSES).describe("`queued`, `building`, `starting`, `done` or `failed`");
export type RunStatus = z.output<typeof runStatusSchema>;

export const DIAGNOSIS_KINDS = [
  /** A Dockerfile step exited non-zero. */
  "build_step_failed",
  /** The build could not reach a package registry or pull a base image (DNS, TLS, refused, timed out). */
  "registry_unreachable",
  /** The build went over its memory. */
  "build_out_of_memory",
  /** The build went over its time. */
  "build_timeout",
  /** The source could not be read or the Dockerfile is missing or refused. */
  "source_problem",
  /** The image has no CMD/ENTRYPOINT and the repository no start script Reposite could use. */
  "no_start_command",
  /** The app runs but nothing answers on PORT. */
  "not_listening",
  /** The app listens on PORT, but on 127.0.0.1 only: unreachable from outside its container. */
  "listening_on_localhost",
  /** The health path answered a 5xx status until the timeout. */
  "health_error",
  /** The health path did not answer within the timeout. */
  "health_timeout",
  /** The app exited on start. */
  "crash_on_start",
  /** The app was killed for using more memory than its limit. */
  "out_of_memory",
  /** The app's disk (image, writable layer and volume) is over its limit. */
  "storage_full",
  /** Anything else (the engine refused, the server stopped, the run was cancelled). */
  "other",
] as const;
export const diagnosisKindSchema = z.enum(DIAGNOSIS_KINDS);
export type DiagnosisKind = z.output<typeof diagnosisKindSchema>;

/** Facts a diagnosis found, kept for fixes that need no model. */
export const diagnosisEvidenceSchema = z.strictObject({
  dockerfile_line: z.number().int().optional().describe("The Dockerfile line of the failed step (1-based)"),
  step: z.string().optional().describe("The step's instruction as written"),
  exit_code: z.number().int().optional(),
  listening: z
    .array(z.strictObject({ address: z.string(), port: z.number().int() }))
    .optional()
    .describe("Ports found listening inside the container, with the address they are bound to"),
  start_command: z.array(z.string()).optional().describe("The start command found in the repository (for example `npm start`), when the image had none"),
  peak_memory_mb: z.number().optional().describe("Peak memory (MB) the run reached, when known"),
  registry: z.string().optional().describe("The host a build could not reach (`registry.npmjs.org`), for `registry_unreachable`"),
  network_error: z.enum(["dns", "tls", "refused", "timeout"]).optional().describe("How the connection to `registry` failed"),
  image: z.string().optional().describe("The base image that could not be pulled (`node:22`), when that is what failed"),
});
export type DiagnosisEvidence = z.output<typeof diagnosisEvidenceSchema>;

/**
 * What went wrong in a failed run, written for a person who did not write the Dockerfile: a
 * `title`, what happened (`detail`), what to do (`fix`), and for a resource that ran out the size
 * wanted (`limit`). `kind` names the case for programs; `evidence` keeps the facts found.
 */
export const diagnosisSchema = z
  .strictObject({
    kind: diagnosisKindSchema,
    title: z.string(),
    detail: z.string().describe("What happened"),
    fix: z.string().describe("What to do"),
    limit: z
      .strictObject({ kind: z.enum(["memory", "disk"]), needed: z.number().describe("MB wanted") })
      .optional()
      .describe("For a resource that ran out: which, and the size wanted"),
    evidence: diagnosisEvidenceSchema.optional(),
  })
  .meta({ id: "Diagnosis" });
export type Diagnosis = z.output<typeof diagnosisSchema>;

/** Where a run's Dockerfile came from: the repository's (or `auto`'s, or the bare box's), the kept fix, or a fix attempt. */
export const DOCKERFILE_SOURCES = ["repository", "override", "fix"] as const;
export const dockerfileSourceSchema = z.enum(DOCKERFILE_SOURCES);
export type DockerfileSource = z.output<typeof dockerfileSourceSchema>;

/** One deploy, in `GET …/deployment/runs` (the last 20, newest first). */
export const runSchema = z
  .strictObject({
    run_id: z.string(),
    job_id: z.string().nullable().describe("The job streaming this run's log (`GET /app/jobs/{job_id}/stream`)"),
    status: runStatusSchema,
    ref: z.string(),
    build_mode: buildModeSchema,
    created_at: z.string(),
    started_at: z.string().nullable().describe("When it left the queue"),
    finished_at: z.string().nullable(),
    reason: z.string().nullable().describe("Why it failed (env values masked); null otherwise"),
    exit_oom: z.boolean().describe("The new container was killed for using more memory than its limit"),
    diagnosis: diagnosisSchema.nullable().describe("What went wrong, for a failed run"),
    dockerfile_source: dockerfileSourceSchema,
  })
  .meta({ id: "DeployRun" });
export type RunView = z.output<typeof runSchema>;

/** `GET …/deployment/runs/{run_id}`: one run with the kept end of its log. */
export const runDetailSchema = runSchema
  .extend({
    log_lines: z.number().int().describe("Log lines written in total"),
    log_tail: z.string().describe("The last lines of the log (env values masked), each ending in a newline"),
  })
  .meta({ id: "DeployRunDetail" });
export type RunDetailView = z.output<typeof runDetailSchema>;

// ---- The deployment ------------------------------------------------------------------------------

/** `last_run` in the deployment read. */
export const lastRunSchema = z.strictObject({
  run_id: z.string(),
  status: runStatusSchema,
  finished_at: z.string().nullable(),
  reason: z.string().nullable(),
  diagnosis: diagnosisSchema.nullable().describe("What went wrong, for a failed run"),
  last_exit_oom: z.boolean().describe("The app was killed for using more memory than its limit in this run"),
});
export type LastRunView = z.output<typeof lastRunSchema>;

/**
 * A change of the app's container outside a deploy: `env_restart` (a running app restarted with the
 * env just set) or `reset_data` (its data emptied and the app started clean). It is recorded before
 * it starts, so a server stopped in the middle (even by `kill -9`) finishes it when it starts again.
 */
export const APP_OPERATION_KINDS = ["env_restart", "reset_data"] as const;
export const APP_OPERATION_STATUSES = ["under_way", "done", "failed"] as const;
export const appOperationSchema = z
  .strictObject({
    kind: z.enum(APP_OPERATION_KINDS).describe("`env_restart` (a running app restarted with new env values) or `reset_data` (its data emptied)"),
    status: z.enum(APP_OPERATION_STATUSES).describe("`under_way`, `done` (the new container serves) or `failed` (`reason` and `diagnosis` say why)"),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    reason: z.string().nullable().describe("Why it failed (env values masked); null otherwise"),
    diagnosis: diagnosisSchema.nullable().describe("What went wrong, when it failed"),
  })
  .meta({ id: "AppOperation" });
export type AppOperationView = z.output<typeof appOperationSchema>;

/** `GET /app/sites/{site_id}/deployment`: the setup's fields, then the app's state. */
export const deploymentSchema = deploymentSetupSchema
  .extend({
    slug: z.string().nullable().describe("The project's slug (`reset-data` asks for it)"),
    status: deploymentStatusSchema,
    url: z.string().describe("The app's address (ends in `/app/`)"),
    last_run: lastRunSchema.nullable(),
    last_exit_oom: z.boolean(),
    env_keys: z.array(z.string()).describe("Names of the env values set (values are never shown)"),
    override: z.boolean().describe("Deploys build the Dockerfile a fix made (`DELETE …/deployment/override` forgets it)"),
    stopped_reason: z.string().nullable().describe("Why the service stopped the app (its disk went over the limit), or null"),
    last_operation: appOperationSchema.nullable().describe("The last env restart or data reset, or null before any"),
  })
  .meta({ id: "Deployment" });
export type DeploymentView = z.output<typeof deploymentSchema>;

/** `POST …/deployment/deploy` (`202`). */
export const deployStartedSchema = z
  .strictObject({
    job_id: z.string().describe("Streams the run's log; the run has ended when the job has"),
    run_id: z.string(),
  })
  .meta({ id: "DeployStarted" });
export type DeployStarted = z.output<typeof deployStartedSchema>;

// ---- Resources -----------------------------------------------------------------------------------

/** One size a resource could be bought at. */
export const resourceStepSchema = z.strictObject({
  units: z.number().int(),
  mb: z.number().int(),
  available: z.boolean().describe("Sold to this app now: on sale, and more than it has paid for"),
  add_units: z.number().int().describe("Units not yet paid for at this step (the size is the total, not an addition)"),
  price_label: z.string().describe("The whole size's price"),
  add_price_label: z.string().describe("What buying this step charges (`add_units` units)"),
});
export type ResourceStep = z.output<typeof resourceStepSchema>;

export const resourceSchema = z.strictObject({
  limit_mb: z.number().describe("What the app runs with now"),
  units: z.number().int().describe("Units already paid for"),
  on_sale: z.boolean(),
  unit_price_label: z.string().describe("\"\" when not on sale"),
  steps: z.array(resourceStepSchema),
});
export type ResourceView = z.output<typeof resourceSchema>;

/** `GET …/deployment/resources`: memory and disk now, and the sizes that could be bought. */
export const resourcesSchema = z.strictObject({ memory: resourceSchema, disk: resourceSchema }).meta({ id: "AppResources" });
export type ResourcesView = z.output<typeof resourcesSchema>;
