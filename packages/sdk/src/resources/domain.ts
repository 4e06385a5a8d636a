import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { DomainReadView, DomainVerifyView, DomainView } from "../types.js";

/** A project's own domain: connect it, check its DNS, see whether it is live, remove it. */
export class Domain extends APIResource {
  /**
   * Connects `domain` to the project (replacing its previous one) and answers the DNS records to
   * add: a CNAME to the project's address for a subdomain, A (and AAAA) plus an ownership TXT for a
   * bare domain. Needs the `domain` product while payments are on. `PUT /app/sites/{site_id}/domain`.
   * Errors: `422` `invalid_request`, `invalid_domain`, `reserved_domain`; `402` `payment_required`;
   * `409` `quota_reached`, `domain_taken`, `bare_domain_unavailable`.
   */
  async set(siteId: string, domain: string, options?: RequestOptions): Promise<DomainView> {
    return this.call(route("domain.set", { site_id: siteId }), { ...options, body: { domain } });
  }

  /**
   * Checks DNS now; `dns.message` says what was found and what is missing. Once found, the domain is
   * verified and its HTTPS certificate follows. `POST /app/sites/{site_id}/domain/verify`.
   * Errors: `409` `no_domain`; `402` `payment_required`; `409` `quota_reached`.
   */
  async verify(siteId: string, options?: RequestOptions): Promise<DomainVerifyView> {
    return this.call(route("domain.verify", { site_id: siteId }), options);
  }

  /** The domain, its records, and `live`. `GET /app/sites/{site_id}/domain`; `domain` is null when there is none. */
  async get(siteId: string, options?: RequestOptions): Promise<DomainReadView> {
    return this.call(route("domain.get", { site_id: siteId }), options);
  }

  /** Removes the domain; always free, the project's own address keeps working. `DELETE /app/sites/{site_id}/domain` → `204`. */
  async remove(siteId: string, options?: RequestOptions): Promise<void> {
    return this.call(route("domain.remove", { site_id: siteId }), options);
  }
}
