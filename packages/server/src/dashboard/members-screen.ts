import type { Member } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { html, type SafeHtml } from "../pages/html.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardScreen } from "./dashboard-route.js";

const when = (timestamp: string | null, none: string) => (timestamp ? `${timestamp.slice(0, 16)} UTC` : none);

function membersBody(members: Member[]): SafeHtml {
  return html`<h1>Members</h1>
<p>People who registered on the published site (its sign-up and sign-in pages). Passwords are never shown, to anyone.</p>
${
  members.length === 0
    ? html`<p class="muted">No one has registered yet.</p>`
    : html`<p>${members.length} ${members.length === 1 ? "member" : "members"}.</p>
<div class="table-wrap"><table class="cards" id="members" aria-label="Members">
<thead><tr><th scope="col">Email</th><th scope="col">Registered</th><th scope="col">Last signed in</th></tr></thead>
<tbody>${members.map(
        (member) => html`<tr><td data-label="Email">${member.email}</td><td data-label="Registered">${when(member.created_at, "")}</td><td data-label="Last signed in">${when(member.last_sign_in_at, "Never")}</td></tr>`,
      )}</tbody>
</table></div>`
}`;
}

/** The people registered on a site, for its owner (the `members.list` operation). */
export function dashboardMembersRoutes(app: H3, reposite: Reposite): void {
  dashboardScreen(app, reposite, dashboardPaths.members(":site_id"), async (request, said) => {
    const siteId = request.param("site_id");
    const project = await reposite.projects.get(request.ownerId, siteId);
    const members = await reposite.members.list(request.ownerId, siteId);
    return request.respond({ title: `${project.name}: members`, site: { id: siteId, name: project.name, section: "members" }, ...said, body: membersBody(members) });
  });
}
