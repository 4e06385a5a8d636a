import type { DeploymentView, Diagnosis, ProjectView, RunView } from "@reposite/core";
import { html, type SafeHtml } from "./html.js";
import { csrfField, layout, type PageSession } from "./layout.js";

export interface AppPageInput {
  session: PageSession;
  siteId: string;
  /** The project's name. */
  name: string;
  deployment: DeploymentView;
  /** Newest first. */
  runs: RunView[];
  /** The app's output when the page was made; the page keeps it fresh. */
  log: string;
  notice?: string | undefined;
  error?: string | undefined;
}

/** Where an app's screen is. */
export const appScreenPath = (siteId: string) => `/account/apps/${encodeURIComponent(siteId)}`;

/** Where the page's script, xterm.js and its stylesheet are served from (this server only). */
export const ASSETS_PATH = "/account/assets";

/** `YYYY-MM-DD HH:MM:SS` (UTC) to the minute. */
const when = (timestamp: string | null, none: string) => (timestamp ? `${timestamp.slice(0, 16)} UTC` : none);

const STATUS_WORDS: Record<DeploymentView["status"], string> = {
  configured: "Set up, never deployed",
  building: "Building",
  starting: "Starting",
  running: "Running",
  stopped: "Stopped",
  failed: "Failed",
};

const SOURCE_WORDS: Record<RunView["dockerfile_source"], string> = { repository: "Repository", override: "Kept fix", fix: "Fix attempt" };

function buildWords(deployment: DeploymentView): SafeHtml {
  if (deployment.build_mode === "bare") return html`A bare box on <code>${deployment.base_image ?? ""}</code>`;
  if (deployment.build_mode === "auto") return html`Built by Reposite from the repository (auto)`;
  return html`The repository's <code>${deployment.dockerfile_path}</code>${deployment.override ? " (with a kept fix)" : ""}`;
}

/** `csrf` null: no Fix button (a bare box has no Dockerfile to fix). */
function diagnosisSection(diagnosis: Diagnosis, csrf: string | null, siteId: string): SafeHtml {
  return html`<section class="notice error" aria-labelledby="diagnosis-title">
  <h3 id="diagnosis-title">${diagnosis.title}</h3>
  <p id="diagnosis-detail" class="said">${diagnosis.detail}</p>
  <p id="diagnosis-fix" class="said"><strong>What to do:</strong> ${diagnosis.fix}</p>
  ${diagnosis.limit && html`<p>It needs ${diagnosis.limit.kind} of ${diagnosis.limit.needed} MB.</p>`}
  ${csrf !== null && fixForm(csrf, siteId)}
</section>`;
}

function fixForm(csrf: string, siteId: string): SafeHtml {
  return html`<form method="post" action="${appScreenPath(siteId)}/fix">${csrfField(csrf)}<button type="submit">Fix it</button></form>
<p class="muted">Reposite rewrites the Dockerfile (never your repository) and deploys it, up to three tries; a fix that works is kept for later deploys.</p>`;
}

function lastRunSection(deployment: DeploymentView, csrf: string, siteId: string): SafeHtml {
  const run = deployment.last_run;
  if (!run) return html`<p class="muted">No run yet. Deploy the app to start one.</p>`;
  return html`<dl>
  <dt>Run</dt><dd><code>${run.run_id}</code></dd>
  <dt>Status</dt><dd id="last-run-status">${run.status}</dd>
  <dt>Finished</dt><dd>${when(run.finished_at, "Not yet")}</dd>
  ${run.reason && html`<dt>Why</dt><dd id="last-run-reason">${run.reason}</dd>`}
</dl>
${
  run.diagnosis
    ? diagnosisSection(run.diagnosis, deployment.build_mode === "bare" ? null : csrf, siteId)
    : run.status === "failed" && deployment.build_mode !== "bare"
      ? fixForm(csrf, siteId)
      : null
}`;
}

function runRow(run: RunView): SafeHtml {
  return html`<tr>
  <td data-label="Run"><code>${run.run_id}</code></td>
  <td data-label="Status">${run.status}</td>
  <td data-label="Queued">${when(run.created_at, "")}</td>
  <td data-label="Finished">${when(run.finished_at, "Not yet")}</td>
  <td data-label="Dockerfile">${SOURCE_WORDS[run.dockerfile_source]}</td>
  <td data-label="What went wrong">${run.diagnosis?.title ?? run.reason ?? ""}</td>
</tr>`;
}

function runsSection(runs: RunView[]): SafeHtml {
  if (runs.length === 0) return html`<p class="muted">No runs yet.</p>`;
  return html`<div class="table-wrap"><table class="cards" aria-labelledby="runs-title">
<thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Queued</th><th scope="col">Finished</th><th scope="col">Dockerfile</th><th scope="col">What went wrong</th></tr></thead>
<tbody>${runs.map(runRow)}</tbody>
</table></div>`;
}

function terminalSection(deployment: DeploymentView, siteId: string): SafeHtml {
  return html`<h2 id="terminal-title">Terminal</h2>
<p>A shell in the box (bash when it has it). What you install outside ${
    deployment.volume_path ? html`<code>${deployment.volume_path}</code>` : "a volume"
  } is gone after the next deploy.</p>
${
  deployment.status === "running"
    ? html`<p><button type="button" id="terminal-open" class="secondary">Open terminal</button></p>`
    : html`<p class="muted">The box is not running: start or deploy it to open a terminal.</p>`
}
<div id="terminal" class="terminal" data-socket="${appScreenPath(siteId)}/terminal" aria-labelledby="terminal-title"></div>
<p id="terminal-state" class="muted" role="status"></p>`;
}

/**
 * One app's screen for its owner: status and address, the last run and what went wrong with a
 * Fix button, the runs, the app's output and its metrics (the page's script keeps both fresh),
 * the env's names (never a value), and a bare box's terminal.
 */
export function appPage({ session, siteId, name, deployment, runs, log, notice, error }: AppPageInput): SafeHtml {
  const path = appScreenPath(siteId);
  return layout({
    title: `${name}: app`,
    session,
    body: html`<div id="app-screen" data-logs="${path}/logs" data-metrics="${path}/metrics">
<p><a href="/account/apps">Your apps</a></p>
<h1>${name}</h1>
${notice && html`<div class="notice ok" role="status"><p>${notice}</p></div>`}
${error && html`<div class="notice error" role="alert"><p>${error}</p></div>`}
<h2>Status</h2>
<dl>
  <dt>Status</dt><dd id="app-status">${STATUS_WORDS[deployment.status]}</dd>
  <dt>Address</dt><dd><a href="${deployment.url}">${deployment.url}</a></dd>
  <dt>Build</dt><dd>${buildWords(deployment)}</dd>
  ${deployment.stopped_reason && html`<dt>Stopped because</dt><dd>${deployment.stopped_reason}</dd>`}
  ${deployment.last_exit_oom && html`<dt>Memory</dt><dd>The app was last stopped for using more memory than it has.</dd>`}
</dl>
<h2>Last run</h2>
${lastRunSection(deployment, session.csrf, siteId)}
<h2 id="runs-title">Runs</h2>
${runsSection(runs)}
<h2 id="log-title">Output</h2>
<p class="muted">The app's last lines of output (stdout and stderr), refreshed every few seconds.</p>
<pre id="app-log" class="log" tabindex="0" aria-labelledby="log-title">${log || "No output yet."}</pre>
<h2>Metrics</h2>
<dl id="app-metrics"><dt>Now</dt><dd class="muted">Reading …</dd></dl>
<h2>Env</h2>
${
  deployment.env_keys.length === 0
    ? html`<p class="muted">No env values are set.</p>`
    : html`<p>Set (values are never shown):</p><ul id="env-keys">${deployment.env_keys.map((key) => html`<li><code>${key}</code></li>`)}</ul>`
}
${deployment.build_mode === "bare" && terminalSection(deployment, siteId)}
</div>
<link rel="stylesheet" href="${ASSETS_PATH}/xterm.css">
<link rel="stylesheet" href="${ASSETS_PATH}/app-screen.css">
<script type="module" src="${ASSETS_PATH}/app-screen.js"></script>`,
  });
}

/** The signed-in person's projects that have an app, each linking to its screen. */
export function appListPage({ session, projects }: { session: PageSession; projects: ProjectView[] }): SafeHtml {
  const apps = projects.filter((project) => project.app_status !== null);
  return layout({
    title: "Your apps",
    session,
    body: html`<h1>Your apps</h1>
${
  apps.length === 0
    ? html`<p class="muted">None of your projects has an app yet. Set one up with <code>PUT /app/sites/{site_id}/deployment</code>.</p>`
    : html`<ul>${apps.map(
        (project) => html`<li><a href="${appScreenPath(project.id)}">${project.name}</a> <span class="muted">(${STATUS_WORDS[project.app_status!]})</span></li>`,
      )}</ul>`
}`,
  });
}
