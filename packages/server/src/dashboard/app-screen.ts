import type { DeploymentView, ProductStatus, RepoCheckResult, ResourcesView, RunView } from "@reposite/contract";
import { DEFAULT_SETUP } from "@reposite/core";
import { html, type SafeHtml } from "../pages/html.js";
import { buySection } from "./app-billing-section.js";
import { envSection } from "./app-env-section.js";
import { controlsSection, dangerSection, liveSection, resourcesSection, terminalSection } from "./app-operate-section.js";
import { runsSection } from "./app-runs-section.js";
import { repoCheckSection, setupFields, setupSection, type SetupFields } from "./app-setup-section.js";

/** Where the page's script, xterm.js and the stylesheets are served from (this server only). */
export const ASSETS_PATH = "/account/assets";

/** Where the script's reads and the terminal's socket are, per app. */
export const appReadsPath = (siteId: string) => `/account/apps/${encodeURIComponent(siteId)}`;

const STATUS_WORDS: Record<DeploymentView["status"], string> = {
  configured: "Set up, never deployed",
  building: "Building",
  starting: "Starting",
  running: "Running",
  stopped: "Stopped",
  failed: "Failed",
};

export const statusWords = (status: DeploymentView["status"]) => STATUS_WORDS[status];

function buildWords(deployment: DeploymentView): SafeHtml {
  if (deployment.build_mode === "bare") return html`A bare box on <code>${deployment.base_image ?? ""}</code>`;
  if (deployment.build_mode === "auto") return html`Built by Reposite from the repository (auto)`;
  return html`The repository's <code>${deployment.dockerfile_path}</code>${deployment.override ? " (with a kept fix)" : ""}`;
}

const OPERATION_WORDS = { env_restart: "Restart with the new env", reset_data: "Data reset" } as const;

function statusSection(deployment: DeploymentView): SafeHtml {
  const operation = deployment.last_operation;
  return html`<dl id="app-summary">
  <dt>Status</dt><dd id="app-status">${STATUS_WORDS[deployment.status]}</dd>
  <dt>Address</dt><dd><a href="${deployment.url}">${deployment.url}</a></dd>
  <dt>Build</dt><dd>${buildWords(deployment)}</dd>
  ${deployment.stopped_reason && html`<dt>Stopped because</dt><dd>${deployment.stopped_reason}</dd>`}
  ${deployment.last_exit_oom && html`<dt>Memory</dt><dd>The app was last stopped for using more memory than it has.</dd>`}
  ${operation && html`<dt>${OPERATION_WORDS[operation.kind]}</dt><dd id="last-operation">${operation.status.replace("_", " ")}${operation.reason ? `: ${operation.reason}` : ""}</dd>`}
</dl>`;
}

/** Where each part of a set-up app's long screen starts, for the links at its top. */
const PARTS: ReadonlyArray<readonly [string, string]> = [
  ["deploy-title", "Deploy"],
  ["log-title", "Output"],
  ["metrics-title", "Metrics"],
  ["setup-title", "Setup"],
  ["env-title", "Env"],
  ["resources-title", "Memory and disk"],
  ["danger-title", "Reset and delete"],
];

function partsNav(deployed: boolean, bare: boolean): SafeHtml {
  const parts = PARTS.filter(([id]) => deployed || (id !== "log-title" && id !== "metrics-title"));
  return html`<nav class="parts" aria-label="On this screen"><ul>${[...parts, ...(bare ? [["terminal-title", "Terminal"] as const] : [])].map(
    ([id, label]) => html`<li><a href="#${id}">${label}</a></li>`,
  )}</ul></nav>`;
}

export interface AppScreenInput {
  siteId: string;
  /** The site's name. */
  name: string;
  /** Where the screen is; its forms post under it. */
  path: string;
  csrf: string;
  /** Null before the app is set up: the screen is then the setup form and the repository check. */
  deployment: DeploymentView | null;
  /** Newest first. */
  runs: RunView[];
  resources: ResourcesView | null;
  /** Whether app hosting must be paid for this site and is (`GET /billing/embed?site_id=`). */
  hosting: ProductStatus | null;
  check: RepoCheckResult | null;
  checkError: string | null;
  /** The job just started (a deploy or a fix), followed live. */
  follow: string | null;
  /** Where a job's events stream for the session. */
  streamPath: (jobId: string) => string;
  /** The setup form's fields as typed, when the setup was refused. */
  typed?: SetupFields | undefined;
}

/**
 * One app, whole: status, deploy with the live log, the runs and what went wrong (with Fix),
 * setup and the repository's advice, env (names only), output and metrics, restart/stop/start,
 * memory and disk, reset and delete, and a bare box's terminal.
 */
export function appScreen(input: AppScreenInput): SafeHtml {
  const { siteId, name, path, csrf, deployment, runs, resources, hosting, check, checkError, follow, streamPath } = input;
  const reads = appReadsPath(siteId);
  const fields = input.typed ?? setupFields(deployment ?? DEFAULT_SETUP);
  return html`<div id="app-screen" data-logs="${deployment && deployment.status !== "configured" ? `${reads}/logs` : ""}" data-metrics="${deployment && deployment.status !== "configured" ? `${reads}/metrics` : ""}">
<h1>${name}</h1>
${buySection({ path, csrf }, "embed", hosting)}
${
  deployment
    ? html`${statusSection(deployment)}
${partsNav(deployment.status !== "configured", deployment.build_mode === "bare")}
${runsSection({ path, csrf, deployment, runs, follow, streamPath })}
${deployment.status !== "configured" && liveSection()}
${controlsSection(path, csrf, deployment)}
${setupSection(path, csrf, fields, true)}
${repoCheckSection(path, csrf, check, checkError, true)}
${envSection(path, csrf, deployment.env_keys)}
${resourcesSection(resources, { path, csrf })}
${deployment.build_mode === "bare" && terminalSection(deployment, `${reads}/terminal`)}
${dangerSection(path, csrf, deployment)}`
    : html`<p>This site has no app yet.</p>
${setupSection(path, csrf, fields, false)}
${repoCheckSection(path, csrf, check, checkError, false)}`
}
</div>
${deployment?.build_mode === "bare" && html`<link rel="stylesheet" href="${ASSETS_PATH}/xterm.css">`}
<link rel="stylesheet" href="${ASSETS_PATH}/app-screen.css">
<script type="module" src="${ASSETS_PATH}/app-screen.js"></script>`;
}
