import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";

/**
 * The env form's fields as the env operation's body: `value:<NAME>` fields set values (an empty
 * one is left as it is), `name` + `value` set one more, `remove` names one to drop.
 */
export function envInputOf(form: URLSearchParams): { env: Record<string, string | null> } {
  const env: Record<string, string | null> = {};
  for (const [key, value] of form) {
    if (key.startsWith("value:") && value !== "") env[key.slice("value:".length)] = value;
  }
  const name = (form.get("name") ?? "").trim();
  if (name !== "") env[name] = form.get("value") ?? "";
  const remove = form.get("remove");
  if (remove) env[remove] = null;
  return { env };
}

/** The env's names (a value is never shown back), a form to set one, and a Remove button each. */
export function envSection(path: string, csrf: string, keys: string[]): SafeHtml {
  return html`<h2 id="env-title">Env</h2>
<p>Values are kept sealed and never shown again, here or in the API. A running app restarts with a change.</p>
${
  keys.length === 0
    ? html`<p class="muted">No env values are set.</p>`
    : html`<ul id="env-keys" class="plain">${keys.map(
        (key) => html`<li><code>${key}</code> <form class="inline" method="post" action="${path}/env">${csrfField(csrf)}<input type="hidden" name="remove" value="${key}"><button type="submit" class="danger small" aria-label="Remove ${key}">Remove</button></form></li>`,
      )}</ul>`
}
<form class="stack" method="post" action="${path}/env" aria-labelledby="env-set-title">
${csrfField(csrf)}
<h3 id="env-set-title">Set a value</h3>
<label for="env-name">Name</label>
<input id="env-name" name="name" type="text" required autocomplete="off" spellcheck="false" pattern="[A-Za-z_][A-Za-z0-9_]*">
<label for="env-value">Value</label>
<input id="env-value" name="value" type="password" autocomplete="new-password">
<button type="submit">Save value</button>
</form>`;
}
