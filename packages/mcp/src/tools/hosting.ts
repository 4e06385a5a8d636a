import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { BARE_BASE_IMAGES, BUILD_MODES, type DeploymentView, type JobStreamEvent } from "@reposite/sdk";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { LogTail } from "../log-tail.js";
import type { Connection } from "../settings.js";
import { failure, success } from "../tool-result.js";
import { siteId } from "./inputs.js";

/** Lines of the build log a deploy answer keeps: enough to see a failed step, not a whole build. */
const BUILD_LOG_LINES = 40;
/** Progress notifications during a build: at most one per this many milliseconds. */
const PROGRESS_EVERY_MS = 1000;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a name of letters, digits and _, not starting with a digit");
const envValues = z.record(envName, z.string());

/** The app as an agent needs it: where, in which state, and what went wrong last. */
const appState = (site_id: string, app: DeploymentView) => ({
  site_id,
  status: app.status,
  url: app.url,
  run_id: app.last_run?.run_id ?? null,
  run_status: app.last_run?.status ?? null,
  diagnosis: app.last_run?.diagnosis ?? null,
  env_keys: app.env_keys,
  stopped_reason: app.stopped_reason,
});

export function registerHostingTools(server: McpServer, connection: Connection): void {
  defineTool(server, connection, {
    name: "deploy_app",
    title: "Set up and deploy the hosted app, and wait for it",
    description:
      "Builds the project's repository and runs it at https://<slug>.<sites domain>/app/, then waits for the deploy to end. " +
      "Sets the app up first with any setup field given (the rest keep their values; defaults: build_mode dockerfile, port 3000, " +
      "health_path /), and `env` values before building. Answers status, url and run_id; a failed deploy is a tool error " +
      "(code deploy_failed) with the diagnosis (title, detail, fix) and the end of the build log, while the previous build keeps serving. " +
      "Paid servers answer payment_required until app hosting is bought (in a browser). Takes up to several minutes.",
    inputSchema: {
      site_id: siteId,
      build_mode: z.enum(BUILD_MODES).optional().describe("dockerfile: the repository's; auto: Reposite writes one for known frameworks; bare: a Linux box."),
      dockerfile_path: z.string().optional().describe("Path of the Dockerfile in the repository (build_mode dockerfile)."),
      base_image: z
        .enum(BARE_BASE_IMAGES)
        .optional()
        .describe("For build_mode bare."),
      port: z.number().int().min(1).max(65535).optional().describe("What the app listens on (on 0.0.0.0); passed as PORT."),
      ref: z.string().optional().describe("Branch, tag or commit; HEAD (the default branch) by default."),
      health_path: z.string().optional().describe("Path that must answer before traffic switches to the new build."),
      volume_path: z.string().optional().describe("Where the app keeps data that survives deploys, e.g. /data."),
      env: envValues.optional().describe("Environment values to set before building (added to those already set)."),
    },
    async run({ site_id, env, ...setup }, { client, signal, progress }) {
      await client.deployment.setup(site_id, setup, { signal });
      if (env && Object.keys(env).length > 0) await client.deployment.env.set(site_id, env, { signal });
      await progress("Building.");
      const log = new LogTail(BUILD_LOG_LINES);
      let lastProgress = 0;
      const app = await client.deployment.deployAndFollow(site_id, {
        signal,
        onEvent: (event: JobStreamEvent) => {
          if (event.type !== "delta") return;
          log.push(event.t);
          if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
            lastProgress = Date.now();
            void progress(log.lastLine());
          }
        },
      });
      const state = { ...appState(site_id, app), build_log_tail: log.text() };
      if (app.status === "failed" || app.last_run?.status === "failed") {
        const diagnosis = app.last_run?.diagnosis;
        return failure({
          code: "deploy_failed",
          message: diagnosis
            ? `${diagnosis.title} ${diagnosis.detail} Fix: ${diagnosis.fix}`
            : `The deploy failed${app.last_run?.reason ? `: ${app.last_run.reason}` : "."}`,
          details: state,
        });
      }
      return success(`The app is ${app.status} at ${app.url}.`, state);
    },
  });

  defineTool(server, connection, {
    name: "read_logs",
    title: "Read the app's logs",
    description: "The last lines the hosted app printed (stdout and stderr), as plain text.",
    inputSchema: {
      site_id: siteId,
      tail: z.number().int().min(1).max(5000).default(200).describe("How many lines, at most 5000."),
    },
    annotations: { readOnlyHint: true },
    async run({ site_id, tail }, { client, signal }) {
      const logs = await client.deployment.logs(site_id, { tail }, { signal });
      const lines = logs === "" ? 0 : logs.replace(/\n$/, "").split("\n").length;
      return {
        content: [{ type: "text", text: lines === 0 ? "The app printed nothing yet." : logs }],
        structuredContent: { site_id, lines, logs },
      };
    },
  });

  defineTool(server, connection, {
    name: "read_diagnosis",
    title: "Read why the last deploy failed",
    description:
      "The last deploy run: its status and, when it failed, the diagnosis (title, detail, fix, and for memory or disk the " +
      "size needed) with the end of its build log.",
    inputSchema: { site_id: siteId },
    annotations: { readOnlyHint: true },
    async run({ site_id }, { client, signal }) {
      const app = await client.deployment.get(site_id, { signal });
      const run = app.last_run;
      if (!run) return success("The app has not been deployed yet.", { site_id, run: null, diagnosis: null });
      const detail = await client.deployment.runs.get(site_id, run.run_id, { signal });
      const result = {
        site_id,
        run: { run_id: run.run_id, status: run.status, finished_at: run.finished_at, reason: run.reason, last_exit_oom: run.last_exit_oom },
        diagnosis: run.diagnosis,
        log_tail: new LogTail(BUILD_LOG_LINES).push(detail.log_tail).text(),
      };
      const summary = run.diagnosis
        ? `Run ${run.run_id} ${run.status}: ${run.diagnosis.title} ${run.diagnosis.detail} Fix: ${run.diagnosis.fix}`
        : `Run ${run.run_id} is ${run.status}; there is nothing to diagnose.`;
      return success(summary, result);
    },
  });

  defineTool(server, connection, {
    name: "set_env",
    title: "Set or unset the app's environment values",
    description:
      "Adds or changes the values in `set` and removes the names in `unset`; other values stay. It answers at once; a running app " +
      "then restarts with them (get_status shows the restart's outcome as last_operation); with build_mode auto they also reach " +
      "the next build. Values are never shown back: the answer lists names.",
    inputSchema: {
      site_id: siteId,
      set: envValues.optional().describe("Names and values to add or change."),
      unset: z.array(envName).optional().describe("Names to remove."),
    },
    annotations: { idempotentHint: true },
    async run({ site_id, set = {}, unset = [] }, { client, signal }) {
      const changes: Record<string, string | null> = { ...set };
      for (const name of unset) changes[name] = null;
      if (Object.keys(changes).length === 0) {
        return failure({ code: "invalid_request", message: "Give `set` (names and values) or `unset` (names), or both." });
      }
      const { env } = await client.deployment.env.set(site_id, changes, { signal });
      const names = Object.keys(env).sort();
      return success(`Environment names now: ${names.length > 0 ? names.join(", ") : "none"}.`, { site_id, names });
    },
  });
}
