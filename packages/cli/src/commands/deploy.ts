import { BUILD_MODES, type DeploymentSetupInput, type DeploymentView, type Diagnosis, type RepositeClient } from "@reposite/sdk";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { UsageError } from "../exit-codes.js";
import type { Output } from "../output.js";
import { elapsed, ProgressLine } from "../progress-line.js";
import { SITE_ARG } from "./sites.js";


/**
 * `reposite deploy <site>`: builds the repository and runs it as the site's app. A site without an
 * app is set up first (defaults, or the options given); options given change the setup.
 */
export function deployCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite deploy",
    description: "Build the repository and run it as the site's app (at <site address>/app/)",
    args: {
      site: SITE_ARG,
      follow: { type: "boolean", alias: "f", description: "show the build log live and wait for the end; exit 1 when the deploy fails" },
      "build-mode": { type: "enum", options: [...BUILD_MODES], description: "dockerfile (default), auto (Reposite writes one) or bare", valueHint: "mode" },
      dockerfile: { type: "string", description: "the Dockerfile's path in the repository (default: Dockerfile)", valueHint: "path" },
      port: { type: "string", description: "the port the app listens on (default 3000, given to it as PORT)", valueHint: "number" },
      ref: { type: "string", description: "branch, tag or commit to build (default: the default branch)", valueHint: "ref" },
      "health-path": { type: "string", description: "the path that must answer before traffic switches (default /)", valueHint: "path" },
      "volume-path": { type: "string", description: "where the app keeps data that survives deploys, for example /data", valueHint: "path" },
    },
    run: async ({ args, out, io }) => {
      const setup = setupFrom(args);
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      if (!site.deployment || Object.keys(setup).length > 0) await client.deployment.setup(site.id, setup);
      if (!args.follow) {
        const started = await client.deployment.deploy(site.id);
        out.result({ site_id: site.id, ...started }, () => {
          out.line(`Deploying ${site.name} (run ${started.run_id}).`);
          out.line(`See how it goes: reposite status ${site.slug ?? site.id} (or deploy --follow next time)`);
        });
        return;
      }
      const progress = new ProgressLine(io, !out.json);
      const stopStatus: StatusTicker = progress.active ? showStatus(client, site.id, site.name, progress) : () => {};
      let view: DeploymentView;
      try {
        view = await client.deployment.deployAndFollow(site.id, {
          onEvent: (event) => {
            if (event.type !== "delta") return;
            stopStatus.lines?.(event.t);
            if (out.json) out.event({ type: "log", text: event.t });
            else progress.write(event.t);
          },
        });
      } finally {
        stopStatus();
        progress.done();
      }
      const ok = view.last_run?.status === "done";
      out.event({ type: "result", site_id: site.id, status: ok ? "done" : "failed", deployment: view });
      if (ok) {
        out.line(`✓ Deployed: ${view.url}`);
        return;
      }
      out.note(`✗ The deploy failed${view.last_run?.reason ? `: ${view.last_run.reason}` : "."}`);
      if (view.last_run?.diagnosis) printDiagnosis(out, view.last_run.diagnosis);
      return 1;
    },
  });
}

function setupFrom(args: Record<string, unknown>): DeploymentSetupInput {
  const setup: DeploymentSetupInput = {};
  if (args["build-mode"]) setup.build_mode = args["build-mode"] as DeploymentSetupInput["build_mode"];
  if (typeof args.dockerfile === "string") setup.dockerfile_path = args.dockerfile;
  if (typeof args.port === "string") {
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port takes a whole number from 1 to 65535, not ${JSON.stringify(args.port)}.`);
    setup.port = port;
  }
  if (typeof args.ref === "string") setup.ref = args.ref;
  if (typeof args["health-path"] === "string") setup.health_path = args["health-path"];
  if (typeof args["volume-path"] === "string") setup.volume_path = args["volume-path"];
  return setup;
}

/**
 * Keeps the progress line current: the app's state (read every second), the time, the log lines.
 * Answers the function that stops it, with `lines` to count the log as it comes.
 */
type StatusTicker = (() => void) & { lines?: (text: string) => void };

function showStatus(client: RepositeClient, siteId: string, name: string, progress: ProgressLine): StatusTicker {
  const startedAt = Date.now();
  let state = "queued";
  let lines = 0;
  const draw = () => progress.set(`Deploying ${name} · ${state} · ${elapsed(Date.now() - startedAt)} · ${lines} log lines`);
  const timer = setInterval(() => {
    client.deployment.get(siteId, { maxRetries: 0 }).then(
      (view) => (state = view.last_run?.status ?? view.status),
      () => {},
    );
    draw();
  }, 1000);
  draw();
  const stop = Object.assign(() => clearInterval(timer), {
    lines: (text: string) => {
      lines += text.split("\n").length - 1;
    },
  });
  return stop;
}

/** What went wrong, what happened, and what to do: on stderr, for people. */
export function printDiagnosis(out: Output, diagnosis: Diagnosis): void {
  out.note(`\n${diagnosis.title}\n\n${diagnosis.detail}\n\nWhat to do: ${diagnosis.fix}`);
}
