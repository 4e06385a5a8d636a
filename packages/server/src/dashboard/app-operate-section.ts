import type { DeploymentView, ResourceView, ResourcesView } from "@reposite/contract";
import { DISK_UNIT_MB, MEMORY_UNIT_MB } from "@reposite/core";
import { formatMb } from "../pages/billing-words.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import { buyStepCell, type BuyForm } from "./app-billing-section.js";

const button = (path: string, csrf: string, action: string, label: string, className = "secondary") =>
  html`<form class="inline" method="post" action="${path}/${action}">${csrfField(csrf)}<button type="submit" class="${className}">${label}</button></form>`;

/** Restart, stop and start: what the app's status allows. */
export function controlsSection(path: string, csrf: string, deployment: DeploymentView): SafeHtml {
  const deployed = deployment.status !== "configured";
  return html`<h2 id="controls-title">Run</h2>
${
  deployed
    ? html`<div class="actions">${button(path, csrf, "restart", "Restart")}${
        deployment.status === "stopped" ? button(path, csrf, "start", "Start") : button(path, csrf, "stop", "Stop")
      }</div>`
    : html`<p class="muted">Deploy the app first.</p>`
}`;
}

/** The app's output and what it uses, with small charts the page's script draws from the metrics it reads. */
export function liveSection(): SafeHtml {
  return html`<h2 id="log-title">Output</h2>
<p class="muted">The app's last lines of output (stdout and stderr), refreshed every few seconds.</p>
<pre id="app-log" class="log" tabindex="0" aria-labelledby="log-title">Reading …</pre>
<h2 id="metrics-title">Metrics</h2>
<dl id="app-metrics"><dt>Now</dt><dd class="muted">Reading …</dd></dl>
<div class="charts">
<figure><svg id="chart-cpu" class="chart" viewBox="0 0 300 60" role="img" aria-label="CPU over time: no readings yet"></svg><figcaption>CPU, % of its share</figcaption></figure>
<figure><svg id="chart-memory" class="chart" viewBox="0 0 300 60" role="img" aria-label="Memory over time: no readings yet"></svg><figcaption>Memory, MB</figcaption></figure>
</div>`;
}

/** What is paid for beyond the free tier, and (memory) that it comes with the next deploy. */
function paidWords(kind: "memory" | "disk", resource: ResourceView): SafeHtml | null {
  if (resource.units === 0) return null;
  const paidMb = resource.units * (kind === "memory" ? MEMORY_UNIT_MB : DISK_UNIT_MB);
  // Disk applies at once; memory is a container limit, set when the next deploy starts one.
  const coming = kind === "memory" && paidMb > resource.limit_mb ? ": the app gets it at its next deploy" : "";
  return html`<p id="${kind}-paid">${formatMb(paidMb)} paid for${coming}.</p>`;
}

function resourceTable(title: string, kind: "memory" | "disk", resource: ResourceView, buy: BuyForm | null): SafeHtml {
  const steps = resource.steps;
  return html`<h3 id="${kind}-title">${title}: <span id="${kind}-now">${formatMb(resource.limit_mb)}</span> now</h3>
${paidWords(kind, resource)}
${
  !resource.on_sale
    ? html`<p class="muted">More ${kind} is not sold on this server.</p>`
    : html`<div class="table-wrap"><table class="cards" aria-labelledby="${kind}-title">
<thead><tr><th scope="col">Size</th><th scope="col">Price</th><th scope="col">Buying it charges</th><th scope="col">Buy</th></tr></thead>
<tbody>${steps.map(
        (step) => html`<tr><td data-label="Size">${formatMb(step.mb)}</td><td data-label="Price">${step.price_label}</td><td data-label="Buying it charges">${step.add_price_label}</td><td data-label="Buy">${buyStepCell(buy, kind, step, resource.units)}</td></tr>`,
      )}</tbody>
</table></div>`
}`;
}

/**
 * Memory and disk now, and the sizes on sale with their prices (`resources`), each with a Buy
 * button (`buy`: the screen's forms; null draws no buttons). The size bought is the size the app
 * gets, not an addition: only the units not yet paid for are charged.
 */
export function resourcesSection(resources: ResourcesView | null, buy: BuyForm | null = null): SafeHtml {
  return html`<h2 id="resources-title">Memory and disk</h2>
${
  resources
    ? html`${resourceTable("Memory", "memory", resources.memory, buy)}${resourceTable("Disk", "disk", resources.disk, buy)}
${
  (resources.memory.on_sale || resources.disk.on_sale) &&
  html`<p class="muted">What is bought is on the <a href="/account/billing">billing page</a>, where it is also lowered or cancelled.</p>`
}`
    : html`<p class="muted">Not known now.</p>`
}`;
}

/** Emptying the data (the app's slug typed out, which the reset operation checks) and deleting the app. */
export function dangerSection(path: string, csrf: string, deployment: DeploymentView): SafeHtml {
  const slug = deployment.slug ?? "";
  return html`<h2 id="danger-title">Danger zone</h2>
${
  deployment.volume_path
    ? html`<form class="stack" method="post" action="${path}/reset-data">
${csrfField(csrf)}
<h3 id="reset-title">Reset data</h3>
<p>Empties <code>${deployment.volume_path}</code> and starts the app clean. This cannot be undone.</p>
<label for="reset-confirm">Type <code>${slug}</code> to confirm</label>
<input id="reset-confirm" name="confirm" type="text" autocomplete="off" spellcheck="false">
<button type="submit" class="danger">Reset data</button>
</form>`
    : html`<p class="muted">The app has no volume, so there is no data to reset.</p>`
}
<form class="stack" method="post" action="${path}/delete">
${csrfField(csrf)}
<h3 id="delete-title">Delete the app</h3>
<p>Removes its containers, image, data and env; a run under way is cancelled. The site stays.</p>
<p class="check"><input id="delete-confirm" name="confirm" type="checkbox" value="yes" required> <label for="delete-confirm">Delete this app and its data</label></p>
<button type="submit" class="danger">Delete the app</button>
</form>`;
}

/** A bare box's terminal (xterm.js, over the WebSocket at `/account/apps/{site_id}/terminal`). */
export function terminalSection(deployment: DeploymentView, socket: string): SafeHtml {
  return html`<h2 id="terminal-title">Terminal</h2>
<p>A shell in the box (bash when it has it). What you install outside ${
    deployment.volume_path ? html`<code>${deployment.volume_path}</code>` : "a volume"
  } is gone after the next deploy.</p>
${
  deployment.status === "running"
    ? html`<p><button type="button" id="terminal-open" class="secondary">Open terminal</button></p>`
    : html`<p class="muted">The box is not running: start or deploy it to open a terminal.</p>`
}
<div id="terminal" class="terminal" data-socket="${socket}" aria-labelledby="terminal-title"></div>
<p id="terminal-state" class="muted" role="status"></p>`;
}
