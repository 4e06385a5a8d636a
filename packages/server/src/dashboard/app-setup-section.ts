import { BARE_BASE_IMAGES, type DeploymentSetup, type RepoCheckResult, type SetupVar } from "@reposite/contract";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";

const MODE_WORDS: Record<DeploymentSetup["build_mode"], string> = {
  dockerfile: "The repository's Dockerfile",
  auto: "Reposite writes one (auto)",
  bare: "A bare box (set up in a terminal)",
};

/** What the setup form shows: the saved setup, or what was just typed when it came back refused. */
export type SetupFields = Record<keyof DeploymentSetup, string>;

export const setupFields = (setup: DeploymentSetup): SetupFields => ({
  build_mode: setup.build_mode,
  dockerfile_path: setup.dockerfile_path,
  base_image: setup.base_image ?? "",
  port: String(setup.port),
  ref: setup.ref,
  health_path: setup.health_path,
  volume_path: setup.volume_path ?? "",
  root_dir: setup.root_dir ?? "",
});

/**
 * The form's fields as the setup operation's body: empty means "none" for the fields that may be
 * null and "keep" for the rest; the port goes as a number when it is one, so the contract's own
 * schema (in core) judges it and says what is wrong.
 */
export function setupInputOf(form: URLSearchParams): Record<string, unknown> {
  const text = (name: string) => (form.get(name) ?? "").trim();
  const keepWhenEmpty = (name: string) => text(name) || undefined;
  const nullWhenEmpty = (name: string) => text(name) || null;
  const port = text("port");
  return {
    build_mode: keepWhenEmpty("build_mode"),
    dockerfile_path: keepWhenEmpty("dockerfile_path"),
    base_image: nullWhenEmpty("base_image"),
    port: port === "" ? undefined : /^\d{1,6}$/.test(port) ? Number(port) : port,
    ref: keepWhenEmpty("ref"),
    health_path: keepWhenEmpty("health_path"),
    volume_path: nullWhenEmpty("volume_path"),
    root_dir: nullWhenEmpty("root_dir"),
  };
}

const field = (id: string, label: string, value: string, hint: string, extra: SafeHtml | null = null) =>
  html`<label for="setup-${id}">${label}</label>
<input id="setup-${id}" name="${id}" type="text" value="${value}" aria-describedby="setup-${id}-hint" autocomplete="off"${extra}>
<p id="setup-${id}-hint" class="hint muted">${hint}</p>`;

/** The setup form: every field of `PUT …/deployment`. */
export function setupSection(path: string, csrf: string, fields: SetupFields, configured: boolean): SafeHtml {
  return html`<h2 id="setup-title">Setup</h2>
${!configured && html`<p>Choose how the app is built and started, then save: nothing runs until you deploy.</p>`}
<form class="stack" method="post" action="${path}/setup" aria-labelledby="setup-title">
${csrfField(csrf)}
<label for="setup-build_mode">Build</label>
<select id="setup-build_mode" name="build_mode">
${Object.entries(MODE_WORDS).map(([mode, words]) => html`<option value="${mode}"${fields.build_mode === mode && html` selected`}>${words}</option>`)}
</select>
${field("dockerfile_path", "Dockerfile path", fields.dockerfile_path, "Relative to the repository root; used when the repository's Dockerfile builds the app.")}
<label for="setup-base_image">Base image <span class="muted">(bare box)</span></label>
<select id="setup-base_image" name="base_image">
<option value="">None</option>
${BARE_BASE_IMAGES.map((image) => html`<option value="${image}"${fields.base_image === image && html` selected`}>${image}</option>`)}
</select>
${field("port", "Port", fields.port, "What the app listens on (on 0.0.0.0); it gets it as PORT.", html` inputmode="numeric"`)}
${field("ref", "Branch, tag or commit", fields.ref, "HEAD is the default branch.")}
${field("health_path", "Health path", fields.health_path, "Must answer 2xx or 3xx before traffic switches to a new container.")}
${field("volume_path", "Volume", fields.volume_path, "A folder in the container whose data survives deploys, such as /data; empty for none.")}
${field("root_dir", "Folder of the app", fields.root_dir, "With auto: the folder holding the app in a monorepo, such as apps/web; empty for the root.")}
<button type="submit">Save setup</button>
</form>`;
}

const INPUT_WORDS: Record<SetupVar["input"], string> = {
  auto: "Ready value",
  generate: "Any long random string",
  secret: "Only you have it",
};

function varField(variable: SetupVar, index: number): SafeHtml {
  const id = `var-${index}`;
  const secret = variable.input !== "auto";
  return html`<div class="var">
<label for="${id}"><code>${variable.name}</code>${variable.required ? html` <span class="muted">(required)</span>` : html` <span class="muted">(optional)</span>`}</label>
<p id="${id}-hint" class="hint muted">${variable.description} ${INPUT_WORDS[variable.input]}.</p>
<div class="row">
<input id="${id}" name="value:${variable.name}" type="${secret ? "password" : "text"}" autocomplete="off" value="${variable.input === "auto" ? variable.value : ""}" aria-describedby="${id}-hint">
${variable.input === "generate" && html`<button type="button" class="secondary small" data-generate="${id}" aria-label="Generate a value for ${variable.name}">Generate</button>`}
</div>
</div>`;
}

/** What the repository check found: the Dockerfile's facts, the automatic build, notes, and the settings it asks for. */
export function repoCheckSection(path: string, csrf: string, check: RepoCheckResult | null, checkError: string | null, canSetEnv: boolean): SafeHtml {
  const head = html`<h2 id="check-title">Repository check</h2>
<p>Reads the repository without building it: what would be built, and the settings the app asks for.</p>
<form method="get" action="${path}"><input type="hidden" name="check" value="1"><button type="submit" class="secondary">Check the repository</button></form>`;
  if (checkError) return html`${head}<div class="notice error" role="alert"><p>${checkError}</p></div>`;
  if (!check) return head;
  const { analysis, auto, setup } = check;
  return html`${head}
<section id="check-result" aria-labelledby="check-title">
<ul>
<li>${
    check.dockerfile
      ? html`A Dockerfile is there${analysis?.expose[0] !== undefined ? html`; it exposes port <strong>${analysis.expose[0]}</strong>` : ""}${analysis?.command ? html` and runs <code>${analysis.command}</code>` : ""}.`
      : check.dockerfile_found
        ? html`No Dockerfile at the path asked for, but one at <code>${check.dockerfile_found.path}</code>.`
        : html`No Dockerfile.`
  }</li>
<li>${auto.found ? html`Auto would build it as <strong>${auto.name}</strong>${auto.start ? html`, started with <code>${auto.start}</code>` : ""}.` : html`Auto cannot build it: ${auto.reason}`}</li>
${analysis?.warnings.map((warning) => html`<li>${warning === "not-a-server" ? "Nothing in the image listens: it may not be a web app." : warning}</li>`)}
${auto.found && auto.warnings.map((warning) => html`<li>${warning}</li>`)}
${setup.notes.map((note) => html`<li>${note.message}</li>`)}
</ul>
${
  setup.vars.length === 0
    ? html`<p class="muted">The app asks for no settings.</p>`
    : !canSetEnv
      ? html`<h3>Settings the app asks for</h3><p>Save the setup first, then set: ${setup.vars.map((variable, i) => html`${i > 0 && ", "}<code>${variable.name}</code>`)}.</p>`
      : html`<h3 id="vars-title">Settings the app asks for</h3>
<form class="stack" method="post" action="${path}/env" aria-labelledby="vars-title">
${csrfField(csrf)}
${setup.vars.map(varField)}
<button type="submit">Save these settings</button>
</form>`
}
</section>`;
}
