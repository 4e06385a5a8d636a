import { domainInputSchema, type DnsCheck, type DnsRecordView, type DomainReadView, type ProductStatus } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { seeOther } from "../http/page-route.js";
import { appScreenPolicy } from "../pages/app-screen-policy.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField, pageResponse } from "../pages/layout.js";
import { BUY_PATHS, buySection, checkoutBody } from "./app-billing-section.js";
import { ASSETS_PATH } from "./app-screen.js";
import { dashboardDocument, type Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { formInput } from "./form-input.js";

const NOTICES: Record<string, string> = {
  set: "The domain was connected. Add the records below at your DNS provider, then verify.",
  removed: "The domain was disconnected. The site's own address keeps working.",
};

/** One record to add, each value with a Copy button (the script shows them; without it, select and copy). */
function recordRow(record: DnsRecordView, index: number): SafeHtml {
  const copy = (id: string, what: string) =>
    html`<button type="button" class="secondary small" data-copy="${id}" hidden aria-label="Copy the ${what} of the ${record.type} record">Copy</button>`;
  return html`<tr>
  <td data-label="Type">${record.type}</td>
  <td data-label="Name"><span class="copyable"><code id="record-${index}-host" class="record">${record.host}</code> ${copy(`record-${index}-host`, "name")}</span></td>
  <td data-label="Value"><span class="copyable"><code id="record-${index}-value" class="record">${record.value}</code> ${copy(`record-${index}-value`, "value")}</span></td>
  <td data-label="Why">${record.purpose}</td>
</tr>`;
}

function dnsSection(dns: DnsCheck): SafeHtml {
  return html`<section class="notice ${dns.found ? "ok" : "warn"}" role="status" aria-labelledby="dns-title">
<h3 id="dns-title">${dns.found ? "DNS points here" : "Not found in DNS yet"}</h3>
<p id="dns-message" class="said">${dns.message}</p>
</section>`;
}

function liveWords(domain: DomainReadView): SafeHtml {
  if (domain.live) return html`Live at <a href="${domain.live_url!}">${domain.live_url}</a>`;
  return html`Not live${domain.live_reason ? `: ${domain.live_reason}` : "."}`;
}

/** The domain screen's body: connect, the records with copy buttons, verify with what DNS said, whether it is live. */
function domainBody(path: string, csrf: string, domain: DomainReadView, dns: DnsCheck | null, paid: ProductStatus): SafeHtml {
  return html`<h1>Domain</h1>
<p>Serve the site (and its app at <code>/app/</code>) on a domain of your own. HTTPS comes by itself once DNS points here.</p>
${buySection({ path, csrf }, "domain", paid)}
${
  domain.domain
    ? html`<dl id="domain-state">
  <dt>Domain</dt><dd><strong>${domain.domain_unicode ?? domain.domain}</strong></dd>
  <dt>Verified</dt><dd id="domain-verified">${domain.verified ? `Yes, ${domain.verified_at?.slice(0, 16) ?? ""} UTC` : "Not yet"}</dd>
  <dt>Live</dt><dd id="domain-live">${liveWords(domain)}</dd>
</dl>
${domain.taken_at && html`<div class="notice warn"><p>Another site verified this domain first, so it does not serve this one. Connect another, or this one again once it is free.</p></div>`}
${dns && dnsSection(dns)}
<h2 id="records-title">Records to add at your DNS provider</h2>
<div class="table-wrap"><table class="cards" aria-labelledby="records-title">
<thead><tr><th scope="col">Type</th><th scope="col">Name</th><th scope="col">Value</th><th scope="col">Why</th></tr></thead>
<tbody>${domain.records.map(recordRow)}</tbody>
</table></div>
<div class="actions">
<form class="inline" method="post" action="${path}/verify">${csrfField(csrf)}<button type="submit">Verify DNS now</button></form>
<form class="inline" method="post" action="${path}/remove">${csrfField(csrf)}<button type="submit" class="danger">Disconnect</button></form>
</div>`
    : html`<p class="muted">No domain is connected.</p>`
}
<h2 id="connect-title">${domain.domain ? "Connect another domain" : "Connect a domain"}</h2>
<form class="stack" method="post" action="${path}" aria-labelledby="connect-title">
${csrfField(csrf)}
<label for="domain-name">Domain</label>
<input id="domain-name" name="domain" type="text" required autocomplete="off" spellcheck="false" placeholder="www.example.com" aria-describedby="domain-hint">
<p id="domain-hint" class="hint muted">A name such as www.example.com, or a bare example.com.</p>
<button type="submit">Connect</button>
</form>
<link rel="stylesheet" href="${ASSETS_PATH}/app-screen.css">
<script type="module" src="${ASSETS_PATH}/app-screen.js"></script>`;
}

/** A site's custom domain for its owner: the same domain operations as the API (`domain.set`, `.verify`, `.get`, `.remove`). */
export function dashboardDomainRoutes(app: H3, reposite: Reposite): void {
  const path = dashboardPaths.domain(":site_id");

  const draw = async (request: DashboardRequest, said: Said, dns: DnsCheck | null = null): Promise<Response> => {
    const siteId = request.param("site_id");
    const project = await reposite.projects.get(request.ownerId, siteId);
    const [domain, paid] = await Promise.all([reposite.domains.get(request.ownerId, siteId), reposite.billing.status(request.ownerId, "domain", siteId)]);
    const document = dashboardDocument({
      title: `${project.name}: domain`,
      session: request.session,
      site: { id: siteId, name: project.name, section: "domain" },
      ...said,
      body: domainBody(dashboardPaths.domain(siteId), request.session.csrf, domain, dns, paid),
    });
    // With payments on, the Buy button's answer is the payment provider's page: forms may leave.
    return pageResponse(document, 200, { "content-security-policy": appScreenPolicy(reposite.config.baseUrl, { formsLeave: reposite.billing.enabled }) });
  };

  dashboardScreen(app, reposite, path, (request, said) => draw(request, said), NOTICES);

  dashboardForm(
    app,
    reposite,
    path,
    async (request, form) => {
      const siteId = request.param("site_id");
      await reposite.domains.set(request.ownerId, siteId, formInput(domainInputSchema, form));
      return seeOther(`${dashboardPaths.domain(siteId)}?done=set`);
    },
    draw,
  );

  // What DNS said is shown on the screen it answers, not carried through a redirect.
  dashboardForm(
    app,
    reposite,
    `${path}/verify`,
    async (request) => {
      const { dns } = await reposite.domains.verify(request.ownerId, request.param("site_id"));
      return draw(request, {}, dns);
    },
    draw,
  );

  dashboardForm(
    app,
    reposite,
    `${path}/remove`,
    async (request) => {
      const siteId = request.param("site_id");
      await reposite.domains.remove(request.ownerId, siteId);
      return seeOther(`${dashboardPaths.domain(siteId)}?done=removed`);
    },
    draw,
  );

  // Buy: the checkout `POST /billing/domain/checkout` starts, answered with its payment page.
  dashboardForm(
    app,
    reposite,
    `${path}/${BUY_PATHS.domain}`,
    async (request, form) => seeOther((await reposite.billing.checkout(request.ownerId, "domain", checkoutBody("domain", request.param("site_id"), form))).url),
    draw,
  );
}
