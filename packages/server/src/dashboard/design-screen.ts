import { COLOR_MODES, updateProjectSchema, type ProjectDetail } from "@reposite/contract";
import { DESIGNS, findDesign, previewSvg, RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireBrowserSession } from "../http/browser-session.js";
import { pageRoute, seeOther } from "../http/page-route.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import type { Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { formInput } from "./form-input.js";

const NOTICES = { saved: "Saved. The new design shows after the pages are written again; publish them to put it live." };

const previewPath = (siteId: string, designId: string) => `${dashboardPaths.design(siteId)}/previews/${designId}.svg`;

function designCard(project: ProjectDetail, design: (typeof DESIGNS)[number]): SafeHtml {
  const chosen = project.design === design.id;
  return html`<li${chosen ? html` class="chosen"` : null}>
  <img src="${previewPath(project.id, design.id)}" alt="" width="1200" height="630">
  <label><input type="radio" name="design" value="${design.id}"${chosen ? html` checked` : null}> <strong>${design.name}</strong></label>
  <p>${design.description}</p>
  <p class="muted">${design.type}, ${design.scheme}</p>
</li>`;
}

async function designScreen(request: DashboardRequest, said: Said): Promise<Response> {
  const project = await request.reposite.projects.get(request.ownerId, request.param("site_id"));
  return request.respond({
    title: `${project.name}: design`,
    site: { id: project.id, name: project.name, section: "design" },
    ...said,
    body: html`<h1>Design of ${project.name}</h1>
<form method="post" action="${dashboardPaths.design(project.id)}" class="stack">${csrfField(request.session.csrf)}
<label for="color_mode">Appearance</label>
<select id="color_mode" name="color_mode">
  <option value=""${project.color_mode === "" ? html` selected` : null}>The design's own</option>
  ${COLOR_MODES.map((mode) => html`<option value="${mode}"${project.color_mode === mode ? html` selected` : null}>${mode}</option>`)}
</select>
<fieldset><legend>Design: each picture is this site's name in that design</legend>
<ul class="gallery">
<li${project.design === "" ? html` class="chosen"` : null}><label><input type="radio" name="design" value=""${project.design === "" ? html` checked` : null}> <strong>Automatic</strong></label><p>Picked from the repository.</p></li>
${DESIGNS.map((design) => designCard(project, design))}
</ul>
</fieldset>
<button type="submit">Save the design</button>
</form>`,
  });
}

/** The gallery of the 30 designs, each previewed with the site's own name, and the appearance (`projects.update`). */
export function designRoutes(app: H3, reposite: Reposite): void {
  const design = dashboardPaths.design(":site_id");
  dashboardScreen(app, reposite, design, designScreen, NOTICES);

  dashboardForm(
    app,
    reposite,
    design,
    async (request, form) => {
      const input = formInput(updateProjectSchema, form, { keepEmpty: ["design", "color_mode"] });
      await reposite.projects.update(request.ownerId, request.param("site_id"), { design: input.design ?? "", color_mode: input.color_mode ?? "" });
      return seeOther(`${dashboardPaths.design(request.param("site_id"))}?done=saved`);
    },
    designScreen,
  );

  // The design's link-preview picture (the one publishing makes) with this site's name: a real look at each design.
  app.get(
    `${design}/previews/:file`,
    pageRoute(async (event) => {
      const current = await requireBrowserSession(reposite, event);
      if (!current) throw new RepositeError(401, "Sign in at /account to see the designs.", "session_required");
      const file = event.context.params!.file!;
      const found = file.endsWith(".svg") ? findDesign(file.slice(0, -4)) : undefined;
      if (!found) throw new RepositeError(404, "There is no such design.", "not_found");
      const project = await reposite.projects.get(current.account.id, event.context.params!.site_id!);
      const svg = previewSvg({ name: project.name, description: project.description, caption: project.repohost_url.replace(/^https?:\/\//, ""), design: found, colorMode: project.color_mode });
      return new Response(svg, { headers: { "content-type": "image/svg+xml", "cache-control": "private, max-age=300", "x-content-type-options": "nosniff" } });
    }),
  );
}
