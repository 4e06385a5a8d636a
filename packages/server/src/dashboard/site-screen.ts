import { setSlugSchema, slugCheckQuerySchema } from "@reposite/contract";
import { parseInput, RepositeError, type Reposite } from "@reposite/core";
import { getQuery, type H3 } from "h3";
import { seeOther } from "../http/page-route.js";
import { html } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import type { Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardForm, dashboardRead, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { formInput } from "./form-input.js";
import { appStateWords, designName, shortTime } from "./site-words.js";

const NOTICES = {
  created: "The site was made. Write its pages on the Pages screen, then publish them.",
  renamed: "The address was changed. The old one no longer answers.",
};

/** What moving a site's address does, as docs/http-api.md says it: said before the person confirms. */
const RENAME_WARNING =
  "The old address stops working at once and may be taken by another site: links to it break, and members of the site sign in again.";

async function siteScreen(request: DashboardRequest, said: Said): Promise<Response> {
  const { reposite, ownerId, session } = request;
  const project = await reposite.projects.get(ownerId, request.param("site_id"));
  // The contract leaves `wizard` null for a landing page as well as before any generation.
  const type = project.wizard?.mode ?? ((await reposite.pageVersions.list(ownerId, project.id)).length > 0 ? "landing" : "Not generated yet");
  const slugHint = project.slug ? "slug-hint slug-warning" : "slug-hint";
  return request.respond({
    title: project.name,
    site: { id: project.id, name: project.name, section: "site" },
    ...said,
    body: html`<h1>${project.name}</h1>
<dl>
  <dt>Address</dt><dd>${project.url ? html`<a href="${project.url}" id="site-address">${project.url}</a>` : html`<span class="muted">None yet: one is made from the name at the first publish.</span>`}</dd>
  <dt>Repository</dt><dd><a href="${project.repohost_url}">${project.repohost_url}</a>${project.private ? " (private)" : ""}</dd>
  <dt>Design</dt><dd>${designName(project.design)}${project.color_mode && ` (${project.color_mode})`}</dd>
  <dt>Type</dt><dd>${type}</dd>
  <dt>App</dt><dd>${appStateWords(project.app_status)}</dd>
  <dt>Visits</dt><dd>${project.visits}</dd>
  <dt>Made</dt><dd>${shortTime(project.created_at)}</dd>
</dl>
${project.url && html`<p><a href="${project.url}" class="button-link">Open the site</a></p>`}
<h2 id="address-title">Address</h2>
<form method="post" action="${dashboardPaths.site(project.id)}/slug" class="stack" aria-labelledby="address-title">${csrfField(session.csrf)}
<label for="slug">Address under the sites domain</label>
<input type="text" id="slug" name="slug" required value="${project.slug ?? ""}" autocomplete="off" spellcheck="false"
  data-slug-check="${dashboardPaths.slugCheck}" aria-describedby="${slugHint}">
<p id="slug-hint" class="hint" aria-live="polite"></p>
${project.slug && html`<p id="slug-warning" class="notice warn">${RENAME_WARNING}</p>
<label class="check"><input type="checkbox" name="understood" required> I understand the old address stops working</label>`}
<button type="submit">${project.slug ? "Change the address" : "Set the address"}</button>
</form>`,
  });
}

/** A site's own page: its address and a link to open it, and moving the address (`publishing.setSlug`). */
export function siteRoutes(app: H3, reposite: Reposite): void {
  dashboardRead(app, reposite, dashboardPaths.slugCheck, async (request) => {
    const { slug } = parseInput(slugCheckQuerySchema, getQuery(request.event));
    request.event.res.headers.set("cache-control", "no-store");
    return reposite.publishing.checkSlug(slug);
  });

  dashboardScreen(app, reposite, dashboardPaths.site(":site_id"), siteScreen, NOTICES);

  dashboardForm(
    app,
    reposite,
    `${dashboardPaths.site(":site_id")}/slug`,
    async (request, form) => {
      const siteId = request.param("site_id");
      const project = await reposite.projects.get(request.ownerId, siteId);
      // The warning is confirmed by a box the browser requires; a post without it is refused here too.
      if (project.slug && !form.has("understood")) {
        throw new RepositeError(422, `Confirm the change first. ${RENAME_WARNING}`, "invalid_request", { field: "understood" });
      }
      await reposite.publishing.setSlug(request.ownerId, siteId, formInput(setSlugSchema, form, { omit: ["understood"] }));
      return seeOther(`${dashboardPaths.site(siteId)}?done=renamed`);
    },
    siteScreen,
  );
}
