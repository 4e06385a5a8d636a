import { createProjectSchema, repoConnectSchema, type Project } from "@reposite/contract";
import { RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { seeOther } from "../http/page-route.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import type { Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardPolicy } from "./dashboard-policy.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { formInput } from "./form-input.js";
import { appStateWords, designName } from "./site-words.js";

/** What the create form keeps when the service refused it, so the person corrects rather than retypes. */
interface CreateValues {
  repohost_url?: string;
  name?: string;
}

function siteRow(project: Project): SafeHtml {
  const search = [project.name, project.slug ?? "", project.repohost_url, designName(project.design)].join(" ").toLowerCase();
  return html`<tr data-search="${search}">
  <td data-label="Name"><a href="${dashboardPaths.site(project.id)}">${project.name}</a></td>
  <td data-label="Address">${project.url ? html`<a href="${project.url}">${project.slug}</a>` : html`<span class="muted">None yet</span>`}</td>
  <td data-label="Design">${designName(project.design)}</td>
  <td data-label="App">${appStateWords(project.app_status)}</td>
  <td data-label="Visits">${project.visits}</td>
</tr>`;
}

function sitesTable(projects: Project[]): SafeHtml {
  if (projects.length === 0) return html`<p class="muted">No sites yet. Make one from a repository link below.</p>`;
  return html`<label for="site-search">Search your sites</label>
<input type="search" id="site-search" autocomplete="off" aria-describedby="site-count">
<p id="site-count" class="hint" aria-live="polite"></p>
<div class="table-wrap"><table class="cards" id="sites" aria-labelledby="sites-title">
<thead><tr><th scope="col">Name</th><th scope="col">Address</th><th scope="col">Design</th><th scope="col">App</th><th scope="col">Visits</th></tr></thead>
<tbody>${projects.map(siteRow)}</tbody>
</table></div>`;
}

/** The code host's connection, offered when a repository could not be seen (it may be private). */
function connectForm(csrf: string, repoUrl: string): SafeHtml {
  return html`<form method="post" action="${dashboardPaths.sites}/connect" class="stack">${csrfField(csrf)}
<input type="hidden" name="repo" value="${repoUrl}">
<p>If the repository is private, connect the code host so Reposite can see it; a private repository can only become a product site with an app (<code>saas</code>).</p>
<button type="submit" class="secondary">Connect the code host</button>
</form>`;
}

async function sitesScreen(request: DashboardRequest, said: Said & { values?: CreateValues; offerConnect?: boolean }): Promise<Response> {
  const projects = await request.reposite.projects.list(request.ownerId);
  const values = said.values ?? {};
  const drawn = request.respond(
    {
      title: "Your sites",
      notice: said.notice,
      error: said.error,
      body: html`<h1 id="sites-title">Your sites</h1>
${sitesTable(projects)}
${said.offerConnect && connectForm(request.session.csrf, values.repohost_url ?? "")}
<h2 id="create-title">Make a site from a repository</h2>
<form method="post" action="${dashboardPaths.sites}" class="stack" aria-labelledby="create-title">${csrfField(request.session.csrf)}
<label for="repohost_url">Repository link</label>
<input type="url" id="repohost_url" name="repohost_url" required value="${values.repohost_url ?? ""}" aria-describedby="repohost-hint" placeholder="https://github.com/owner/name">
<p id="repohost-hint" class="hint">The repository's web page, clone URL or SSH address.</p>
<label for="site-name">Name <span class="muted">(optional)</span></label>
<input type="text" id="site-name" name="name" value="${values.name ?? ""}" aria-describedby="name-hint">
<p id="name-hint" class="hint">Shown on every page; the repository's name when left empty.</p>
<button type="submit">Make the site</button>
</form>`,
    },
  );
  // The connection's form answers with a redirect to the code host's authorization page.
  if (said.offerConnect) drawn.headers.set("content-security-policy", dashboardPolicy(request.reposite.config.baseUrl, { formsLeave: true }));
  return drawn;
}

/** The sites list with its search, and making a site from a repository link (`projects.create`). */
export function sitesRoutes(app: H3, reposite: Reposite): void {
  dashboardScreen(app, reposite, dashboardPaths.sites, (request, said) => sitesScreen(request, said));

  dashboardForm(
    app,
    reposite,
    dashboardPaths.sites,
    async (request, form) => {
      const values: CreateValues = { repohost_url: form.get("repohost_url") ?? "", name: form.get("name") ?? "" };
      try {
        const project = await request.reposite.projects.create(request.ownerId, formInput(createProjectSchema, form));
        return seeOther(`${dashboardPaths.site(project.id)}?done=created`);
      } catch (error) {
        // Drawn with what was typed, and with the code host's connection when the repository could not be seen.
        if (!RepositeError.isInstance(error) || error.status >= 500) throw error;
        const drawn = await sitesScreen(request, { error: error.message, values, offerConnect: error.code === "repo_not_found" });
        return new Response(drawn.body, { status: error.status, headers: drawn.headers });
      }
    },
    sitesScreen,
  );

  // The code host's authorization page: the person authorizes there and lands on the callback page.
  dashboardForm(
    app,
    reposite,
    `${dashboardPaths.sites}/connect`,
    async (request, form) => {
      const { url } = await request.reposite.repoAccess.connect(request.ownerId, formInput(repoConnectSchema, form));
      return seeOther(url);
    },
    sitesScreen,
  );
}
