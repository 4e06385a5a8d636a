import { repoConnectSchema } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { seeOther } from "../http/page-route.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField } from "../pages/layout.js";
import { dashboardResponse, type Said } from "./dashboard-frame.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { dashboardPolicy } from "./dashboard-policy.js";
import { formInput } from "./form-input.js";

/** The account's connection to the code host (GitHub), for private repositories. */
export const CODE_HOST_PATH = "/account/code-host";

const NOTICES: Record<string, string> = {
  disconnected: "The code host was disconnected: Reposite no longer reads your private repositories.",
};

function codeHostBody(csrf: string, connected: boolean): SafeHtml {
  return html`<h1>Code host</h1>
<p>Connect GitHub so Reposite can read your private repositories (public ones need nothing). You authorize it on GitHub; the access is kept sealed and used only for your sites.</p>
<p id="code-host-state">${connected ? html`<strong>Connected.</strong>` : html`<strong>Not connected.</strong>`}</p>
${
  connected
    ? html`<form method="post" action="${CODE_HOST_PATH}/disconnect">${csrfField(csrf)}<button type="submit" class="danger">Disconnect</button></form>
<p class="muted">Disconnecting revokes the access at the code host too.</p>`
    : null
}
<h2 id="connect-title">${connected ? "Connect again" : "Connect"}</h2>
<form class="stack" method="post" action="${CODE_HOST_PATH}/connect" aria-labelledby="connect-title">
${csrfField(csrf)}
<label for="code-host-repo">A link to one of your private repositories</label>
<input id="code-host-repo" name="repo" type="url" required autocomplete="off" placeholder="https://github.com/you/your-repo" aria-describedby="code-host-hint">
<p id="code-host-hint" class="hint muted">It names the code host; you are sent there to authorize Reposite, then back.</p>
<button type="submit">Connect on the code host</button>
</form>`;
}

/** Status, connect (the `repohost.connect` operation, then a redirect to the host) and disconnect. */
export function dashboardCodeHostRoutes(app: H3, reposite: Reposite): void {
  const draw = async (request: DashboardRequest, said: Said): Promise<Response> => {
    const { connected } = await reposite.repoAccess.status(request.ownerId);
    const response = dashboardResponse(reposite.config.baseUrl, { title: "Code host", session: request.session, ...said, body: codeHostBody(request.session.csrf, connected) });
    // Connecting answers with a redirect to the code host's authorization page: forms may leave.
    response.headers.set("content-security-policy", dashboardPolicy(reposite.config.baseUrl, { formsLeave: true }));
    return response;
  };

  dashboardScreen(app, reposite, CODE_HOST_PATH, draw, NOTICES);

  dashboardForm(
    app,
    reposite,
    `${CODE_HOST_PATH}/connect`,
    async (request, form) => seeOther((await reposite.repoAccess.connect(request.ownerId, formInput(repoConnectSchema, form))).url),
    draw,
  );

  dashboardForm(
    app,
    reposite,
    `${CODE_HOST_PATH}/disconnect`,
    async (request) => {
      await reposite.repoAccess.disconnect(request.ownerId);
      return seeOther(`${CODE_HOST_PATH}?done=disconnected`);
    },
    draw,
  );
}
