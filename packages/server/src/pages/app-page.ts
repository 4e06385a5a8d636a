import type { ProjectView } from "@reposite/core";
import { dashboardPaths } from "../dashboard/dashboard-paths.js";
import { statusWords } from "../dashboard/app-screen.js";
import { html, type SafeHtml } from "./html.js";
import { layout, type PageSession } from "./layout.js";

/** Where an app's screen is: the App screen of its site in the dashboard. */
export const appScreenPath = (siteId: string) => dashboardPaths.app(siteId);

/** The signed-in person's projects that have an app, each linking to its screen. */
export function appListPage({ session, projects }: { session: PageSession; projects: ProjectView[] }): SafeHtml {
  const apps = projects.filter((project) => project.app_status !== null);
  return layout({
    title: "Your apps",
    session,
    body: html`<h1>Your apps</h1>
${
  apps.length === 0
    ? html`<p class="muted">None of your sites has an app yet. Open a site's App screen from <a href="${dashboardPaths.sites}">your sites</a> to set one up.</p>`
    : html`<ul>${apps.map(
        (project) => html`<li><a href="${appScreenPath(project.id)}">${project.name}</a> <span class="muted">(${statusWords(project.app_status!)})</span></li>`,
      )}</ul>`
}`,
  });
}
