import {
  createPageVersionSchema,
  generateSchema,
  makeVersionCurrentSchema,
  MAX_PAGE_HTML_BYTES,
  PAGE_KINDS,
  PLAN_PAGES,
  publishPageSchema,
  publishSchema,
  type PageKind,
  type PageVersion,
  type ProjectDetail,
  type PublishResult,
} from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import { getQuery, type H3 } from "h3";
import { requireBrowserSession } from "../http/browser-session.js";
import { FORM_BODY_LIMIT } from "../http/form-body.js";
import { pageRoute, seeOther } from "../http/page-route.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import type { Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { formInput } from "./form-input.js";
import { shortTime } from "./site-words.js";

export const PAGE_WORDS: Record<PageKind, string> = { template: "Landing page", about: "About", faq: "FAQ", auth: "Sign-in page" };

const MODE_WORDS = {
  saas: "Product site with an app (saas): the buttons open the app at /app/",
  website: "Website: a landing page and the pages you pick",
  landing: "Landing page: one page",
} as const;

const NOTICES = {
  custom: "Your HTML is the page's current version now. Publish the page to put it live.",
  current: "That version is current now. Publish the page to put it live.",
  published: "Published: every generated page is live.",
  "published-page": "Published: the page is live.",
};

/**
 * The custom HTML form carries a whole page: the service's own limit (`html_too_large`) must be
 * the one a person meets, and URL-encoding writes each byte of the page as up to three.
 */
const CUSTOM_HTML_FORM_LIMIT = 3 * MAX_PAGE_HTML_BYTES + FORM_BODY_LIMIT;

/** What the pages screen says after a form: what was said, and a publish's warnings. */
type PagesSaid = Said & { warnings?: PublishResult["warnings"] };

/** After a publish: the screen at once when the answer warns (the warnings are part of that answer), else back to it. */
async function afterPublish(request: DashboardRequest, result: PublishResult, done: keyof typeof NOTICES): Promise<Response> {
  if (result.warnings.length === 0) return seeOther(`${dashboardPaths.pages(request.param("site_id"))}?done=${done}`);
  return pagesScreen(request, { notice: NOTICES[done], warnings: result.warnings });
}

/** Where a page version's HTML is shown inside the screen (sandboxed, see `versionPreview`). */
const previewPath = (siteId: string, versionId: string) => `${dashboardPaths.pages(siteId)}/versions/${versionId}/preview`;

/** The screen after a version became current: that version in the preview, and the notice. */
const shownAfter = (request: DashboardRequest, versionId: string, done: keyof typeof NOTICES) =>
  `${dashboardPaths.pages(request.param("site_id"))}?done=${done}&version=${versionId}#preview-title`;

/**
 * `written`: the site has generated pages. The contract shows a landing page's plan as null (one
 * page, nothing to list), so a site written without a plan was written as a landing page.
 */
function generateForm(project: ProjectDetail, csrf: string, written: boolean): SafeHtml {
  const plan = project.wizard;
  const mode = plan?.mode ?? (written ? "landing" : project.private ? "saas" : "website");
  const pages = plan?.pages ?? (written ? [] : ["about", "faq"]);
  const again = plan !== null || written;
  return html`<form method="post" action="${dashboardPaths.pages(project.id)}/generate" class="stack" aria-labelledby="generate-title">${csrfField(csrf)}
<fieldset><legend>Type</legend>
${(["saas", "website", "landing"] as const).map(
  (each) => html`<label><input type="radio" name="mode" value="${each}"${each === mode ? html` checked` : null}> ${MODE_WORDS[each]}</label>`,
)}
${project.private && html`<p class="hint">The repository is private: it can only become a product site with an app (saas).</p>`}
</fieldset>
<fieldset><legend>Pages besides the landing page</legend>
${PLAN_PAGES.map((each) => html`<label><input type="checkbox" name="pages" value="${each}"${pages.includes(each) ? html` checked` : null}> ${PAGE_WORDS[each]}</label>`)}
<label><input type="checkbox" name="community"${plan?.community ? html` checked` : null}> A community forum for people who register</label>
</fieldset>
<label for="instructions">Wishes for the pages <span class="muted">(optional)</span></label>
<textarea id="instructions" name="instructions" maxlength="2000" aria-describedby="instructions-hint"></textarea>
<p id="instructions-hint" class="hint">At most 2000 characters. Not kept with the site.</p>
${again && html`<input type="hidden" name="regenerate" value="true">`}
<button type="submit">${again ? "Write the pages again" : "Write the pages"}</button>
</form>`;
}

/** The text of a generation as it is written (the page's script follows the job stream). */
function liveSection(siteId: string, jobId: string): SafeHtml {
  return html`<section id="generation-live" data-job="${jobId}" data-streams="${dashboardPaths.jobStream(siteId, "JOB_ID")}" aria-labelledby="live-title">
<h2 id="live-title">Writing</h2>
<p id="generation-state" role="status">Starting …</p>
<pre id="generation-text" class="stream" tabindex="0" aria-label="The text as it is written"></pre>
<p><a id="generation-reload" href="${dashboardPaths.pages(siteId)}" hidden>Show the new versions</a></p>
</section>`;
}

/** What visitors of the just published site would run into (the site is live all the same). */
function publishWarnings(siteId: string, warnings: PublishResult["warnings"]): SafeHtml {
  const noApp = warnings.some((warning) => warning.code === "app_not_deployed");
  return html`<div id="publish-warnings" class="notice warn" role="status" aria-labelledby="warnings-title">
<h2 id="warnings-title">Before visitors come</h2>
<ul>${warnings.map((warning) => html`<li>${warning.message}</li>`)}</ul>
${noApp && html`<p><a href="${dashboardPaths.app(siteId)}">Set up and deploy the app</a></p>`}
</div>`;
}

function versionItem(siteId: string, version: PageVersion, csrf: string, shown: string | undefined): SafeHtml {
  return html`<li>
  <span>${version.name}</span> <span class="muted">(${version.source}, ${shortTime(version.created_at)})</span>
  ${version.current ? html`<strong>Current</strong>` : null}
  <span class="row">
    ${version.id === shown ? html`<span class="muted">Shown below</span>` : html`<a href="${dashboardPaths.pages(siteId)}?version=${version.id}#preview-title" aria-label="Preview: ${version.name}">Preview</a>`}
    ${!version.current && html`<form method="post" action="${dashboardPaths.pages(siteId)}/current">${csrfField(csrf)}
      <input type="hidden" name="kind" value="${version.kind}"><input type="hidden" name="version_id" value="${version.id}">
      <button type="submit" class="secondary small" aria-label="Make current: ${version.name}">Make current</button></form>`}
  </span>
</li>`;
}

function pageSection(siteId: string, kind: PageKind, versions: PageVersion[], csrf: string, shown: string | undefined): SafeHtml {
  return html`<section aria-labelledby="page-${kind}">
<h3 id="page-${kind}">${PAGE_WORDS[kind]}</h3>
<form method="post" action="${dashboardPaths.pages(siteId)}/publish-page">${csrfField(csrf)}<input type="hidden" name="kind" value="${kind}">
<button type="submit" class="secondary small">Publish the ${PAGE_WORDS[kind]} only</button></form>
<ul class="versions">${versions.map((version) => versionItem(siteId, version, csrf, shown))}</ul>
</section>`;
}

async function pagesScreen(request: DashboardRequest, said: PagesSaid): Promise<Response> {
  const { reposite, ownerId, session } = request;
  const project = await reposite.projects.get(ownerId, request.param("site_id"));
  const versions = await reposite.pageVersions.list(ownerId, project.id);
  const query = getQuery(request.event);
  const job = typeof query.job === "string" && /^job_[a-z0-9]+$/.test(query.job) ? query.job : null;
  const asked = typeof query.version === "string" ? versions.find((version) => version.id === query.version) : undefined;
  const shown = asked ?? versions.find((version) => version.current);
  const kinds = PAGE_KINDS.filter((kind) => versions.some((version) => version.kind === kind));
  return request.respond({
    title: `${project.name}: pages`,
    site: { id: project.id, name: project.name, section: "pages" },
    notice: said.notice,
    error: said.error,
    body: html`<h1>Pages of ${project.name}</h1>
${said.warnings?.length ? publishWarnings(project.id, said.warnings) : null}
${job && liveSection(project.id, job)}
<h2 id="generate-title">Write the pages</h2>
${generateForm(project, session.csrf, versions.some((version) => version.source !== "custom"))}
<h2>Versions</h2>
${
  kinds.length === 0
    ? html`<p class="muted">No page yet: write them above.</p>`
    : html`<form method="post" action="${dashboardPaths.pages(project.id)}/publish">${csrfField(session.csrf)}<button type="submit">Publish all pages</button></form>
${project.url && html`<p>Publishing puts them at <a href="${project.url}">${project.url}</a>.</p>`}
${kinds.map((kind) => pageSection(project.id, kind, versions.filter((version) => version.kind === kind), session.csrf, shown?.id))}`
}
${shown && html`<h2 id="preview-title">Preview: ${PAGE_WORDS[shown.kind]}, ${shown.name}</h2>
<iframe class="preview" src="${previewPath(project.id, shown.id)}" title="Preview of ${PAGE_WORDS[shown.kind]}: ${shown.name}" sandbox></iframe>`}
<h2 id="custom-title">Your own HTML for a page</h2>
<form method="post" action="${dashboardPaths.pages(project.id)}/versions" class="stack" aria-labelledby="custom-title">${csrfField(session.csrf)}
<label for="custom-kind">Page</label>
<select id="custom-kind" name="kind">${PAGE_KINDS.map((kind) => html`<option value="${kind}">${PAGE_WORDS[kind]}</option>`)}</select>
<label for="custom-name">What changed</label>
<input type="text" id="custom-name" name="name" required maxlength="200">
<label for="custom-html">HTML</label>
<textarea id="custom-html" name="html" required aria-describedby="custom-hint"></textarea>
<p id="custom-hint" class="hint">At most 5 MB. It becomes the page's current version.</p>
<button type="submit">Add this version</button>
</form>`,
  });
}

/**
 * A page version's HTML, for the preview frame: served with a CSP `sandbox` (an origin of its
 * own: the page's scripts, if any, cannot reach this server's session) and framed only here.
 */
async function versionPreview(reposite: Reposite, ownerId: string, siteId: string, versionId: string): Promise<Response> {
  await reposite.projects.get(ownerId, siteId);
  const version = await reposite.pageVersions.get(ownerId, versionId);
  return new Response(version.html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'",
      "x-content-type-options": "nosniff",
    },
  });
}

/** Writing a site's pages (watching the text), their versions with previews, custom HTML, and publishing. */
export function pagesRoutes(app: H3, reposite: Reposite): void {
  const pages = dashboardPaths.pages(":site_id");
  dashboardScreen(app, reposite, pages, pagesScreen, NOTICES);

  app.get(
    `${pages}/versions/:version_id/preview`,
    pageRoute(async (event) => {
      const current = await requireBrowserSession(reposite, event);
      if (!current) return seeOther(`/account?next=${encodeURIComponent(event.url.pathname)}`);
      return versionPreview(reposite, current.account.id, event.context.params!.site_id!, event.context.params!.version_id!);
    }),
  );

  dashboardForm(
    app,
    reposite,
    `${pages}/generate`,
    async (request, form) => {
      const input = formInput(generateSchema, form, { booleans: ["community", "regenerate"], lists: ["pages"] });
      if (input.mode === "landing") delete input.pages;
      const started = await reposite.generation.generate(request.ownerId, request.param("site_id"), input);
      return seeOther(`${dashboardPaths.pages(request.param("site_id"))}?job=${started.job_id}#live-title`);
    },
    pagesScreen,
  );

  dashboardForm(
    app,
    reposite,
    `${pages}/current`,
    async (request, form) => {
      const made = await reposite.pageVersions.makeCurrent(request.ownerId, request.param("site_id"), formInput(makeVersionCurrentSchema, form));
      return seeOther(shownAfter(request, made.id, "current"));
    },
    pagesScreen,
  );

  dashboardForm(
    app,
    reposite,
    `${pages}/versions`,
    async (request, form) => {
      const added = await reposite.pageVersions.addCustom(request.ownerId, request.param("site_id"), formInput(createPageVersionSchema, form));
      return seeOther(shownAfter(request, added.id, "custom"));
    },
    pagesScreen,
    { bodyLimit: CUSTOM_HTML_FORM_LIMIT },
  );

  dashboardForm(
    app,
    reposite,
    `${pages}/publish`,
    async (request, form) => {
      return afterPublish(request, await reposite.publishing.publish(request.ownerId, request.param("site_id"), formInput(publishSchema, form)), "published");
    },
    pagesScreen,
  );

  dashboardForm(
    app,
    reposite,
    `${pages}/publish-page`,
    async (request, form) => {
      const result = await reposite.publishing.publishPage(request.ownerId, request.param("site_id"), formInput(publishPageSchema, form));
      return afterPublish(request, result, "published-page");
    },
    pagesScreen,
  );
}
