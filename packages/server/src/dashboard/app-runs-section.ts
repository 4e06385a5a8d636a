import type { DeploymentView, Diagnosis, RunView } from "@reposite/contract";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";

/** `YYYY-MM-DD HH:MM:SS` (UTC) to the minute. */
export const when = (timestamp: string | null, none: string) => (timestamp ? `${timestamp.slice(0, 16)} UTC` : none);

const SOURCE_WORDS: Record<RunView["dockerfile_source"], string> = { repository: "Repository", override: "Kept fix", fix: "Fix attempt" };

/** A run still going: its job's log can be followed live. */
const UNDER_WAY = new Set<RunView["status"]>(["queued", "building", "starting"]);

export interface RunsSectionInput {
  path: string;
  csrf: string;
  deployment: DeploymentView;
  /** Newest first. */
  runs: RunView[];
  /** The job to follow live (a deploy or a fix just started), when there is one. */
  follow: string | null;
  /** Where a job's events stream for the session. */
  streamPath: (jobId: string) => string;
}

/** The job whose log the screen follows: the one just started, else the newest run's while it is under way. */
export function jobToFollow(runs: RunView[], started: string | null): string | null {
  if (started) return started;
  const newest = runs[0];
  return newest && UNDER_WAY.has(newest.status) ? newest.job_id : null;
}

/** `csrf` null: no Fix button (a bare box has no Dockerfile to fix). */
function diagnosisSection(diagnosis: Diagnosis, fix: SafeHtml | null): SafeHtml {
  return html`<section class="notice error" aria-labelledby="diagnosis-title">
  <h3 id="diagnosis-title">${diagnosis.title}</h3>
  <p id="diagnosis-detail" class="said">${diagnosis.detail}</p>
  <p id="diagnosis-fix" class="said"><strong>What to do:</strong> ${diagnosis.fix}</p>
  ${diagnosis.limit && html`<p>It needs ${diagnosis.limit.kind} of ${diagnosis.limit.needed} MB.</p>`}
  ${fix}
</section>`;
}

function fixForm(path: string, csrf: string): SafeHtml {
  return html`<form method="post" action="${path}/fix">${csrfField(csrf)}<button type="submit">Fix it</button></form>
<p class="muted">Reposite rewrites the Dockerfile (never your repository) and deploys it, up to three tries; a fix that works is kept for later deploys.</p>`;
}

function lastRun({ path, csrf, deployment }: RunsSectionInput): SafeHtml {
  const run = deployment.last_run;
  if (!run) return html`<p class="muted">No run yet. Deploy the app to start one.</p>`;
  const fix = deployment.build_mode === "bare" ? null : fixForm(path, csrf);
  return html`<dl>
  <dt>Run</dt><dd><code>${run.run_id}</code></dd>
  <dt>Status</dt><dd id="last-run-status">${run.status}</dd>
  <dt>Finished</dt><dd>${when(run.finished_at, "Not yet")}</dd>
  ${run.reason && html`<dt>Why</dt><dd id="last-run-reason" class="said">${run.reason}</dd>`}
</dl>
${run.diagnosis ? diagnosisSection(run.diagnosis, fix) : run.status === "failed" ? fix : null}`;
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

/**
 * Deploying: the button, the live log of the run (or fix) under way, the last run with what went
 * wrong and its Fix button, and the last runs.
 */
export function runsSection(input: RunsSectionInput): SafeHtml {
  const { path, csrf, runs, follow, streamPath } = input;
  return html`<h2 id="deploy-title">Deploy</h2>
<form method="post" action="${path}/deploy">${csrfField(csrf)}<button type="submit">Deploy now</button></form>
${
  follow &&
  html`<h3 id="build-log-title">Build log</h3>
<p id="build-state" class="muted" role="status">Following the run …</p>
<pre id="build-log" class="log" tabindex="0" aria-labelledby="build-log-title" data-stream="${streamPath(follow)}"></pre>`
}
<h3>Last run</h3>
${lastRun(input)}
<h3 id="runs-title">Runs</h3>
${
  runs.length === 0
    ? html`<p class="muted">No runs yet.</p>`
    : html`<div class="table-wrap"><table class="cards" id="runs" aria-labelledby="runs-title">
<thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Queued</th><th scope="col">Finished</th><th scope="col">Dockerfile</th><th scope="col">What went wrong</th></tr></thead>
<tbody>${runs.map(runRow)}</tbody>
</table></div>`
}`;
}
