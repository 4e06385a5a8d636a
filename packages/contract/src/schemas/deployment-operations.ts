import { z } from "zod";

/** Most lines one logs read answers (the spec's limit). */
export const MAX_LOG_LINES = 5000;
/** Lines a logs read answers without `tail`. */
export const DEFAULT_LOG_LINES = 200;

const TAIL = /^\s*\d+\s*$/;
const tailMessage = `a whole number of lines from 1 to ${MAX_LOG_LINES}`;

/**
 * `tail` of a logs read, as text: a whole number of at least 1 (above 5000 reads 5000); "" is the
 * default, 200. Anything else is `422 invalid_request` (field `tail`).
 */
export const logTailSchema = z
  .string()
  .refine((text) => text === "" || (TAIL.test(text) && Number(text) >= 1), tailMessage)
  .transform((text) => (text === "" ? DEFAULT_LOG_LINES : Math.min(Number(text), MAX_LOG_LINES)))
  .describe(`Lines to read from the end: 1 to ${MAX_LOG_LINES} (more reads ${MAX_LOG_LINES}); default ${DEFAULT_LOG_LINES}`);

/** `GET …/deployment/logs?tail=<n>`. */
export const logsQuerySchema = z.object({ tail: logTailSchema.optional() });

/**
 * What one app holds on disk: its image, its container's writable layer and its data volume, which
 * count together against its limit. Sizes in MB with one decimal.
 */
export const diskUsageSchema = z
  .strictObject({
    used_mb: z.number(),
    limit_mb: z.number(),
    over: z.boolean().describe("`used_mb` is above `limit_mb`: the service stops the app"),
    image_mb: z.number(),
    container_mb: z.number().describe("What the app wrote outside its volume"),
    volume_mb: z.number(),
    measured_at: z.string(),
  })
  .meta({ id: "DiskUsage" });
export type DiskUsage = z.output<typeof diskUsageSchema>;

/**
 * `GET …/deployment/metrics`: what the app uses now. CPU is a percent of the app's own share (100
 * = all of its `cpus`); memory in MB against its limit; network bytes since its container started
 * (`rx` received by the app, `tx` sent). A stopped app answers `running: false` with zero CPU,
 * memory and network, and its storage as measured.
 */
export const metricsSchema = z
  .strictObject({
    running: z.boolean(),
    cpu: z.strictObject({ percent: z.number(), cpus: z.number() }),
    memory: z.strictObject({ used_mb: z.number(), limit_mb: z.number() }),
    network: z.strictObject({ rx_bytes: z.number(), tx_bytes: z.number() }),
    storage: diskUsageSchema,
    measured_at: z.string(),
  })
  .meta({ id: "AppMetrics" });
export type MetricsView = z.output<typeof metricsSchema>;

/**
 * `POST …/deployment/reset-data`. `confirm` must be the app's slug; anything else (missing or
 * null included) is `422 confirm_mismatch`, naming the slug.
 */
export const resetDataInputSchema = z
  .object({ confirm: z.string().nullish().describe("The app's slug (`slug` in `GET …/deployment`): emptying the data cannot be undone") })
  .meta({ id: "ResetDataInput" });
export type ResetDataInput = z.input<typeof resetDataInputSchema>;
