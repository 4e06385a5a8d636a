import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { PageKind, PublishInput, PublishResult, SlugCheck, SlugView } from "../types.js";

/** A project's address under the sites domain, and putting its pages live there. */
export class Publishing extends APIResource {
  /**
   * Whether `slug` could be an address now. `GET /app/subdomain-check?slug=`.
   * Answers `{available: true}` or `{available: false, reason}` (`invalid`, `reserved`, `taken`).
   */
  async checkSlug(slug: string, options?: RequestOptions): Promise<SlugCheck> {
    return this.call(route("subdomains.check"), { ...options, query: { slug } });
  }

  /**
   * Gives the project the address `https://<slug>.{sites_domain}` (3 to 60 characters of `a-z`,
   * `0-9`, `-`). A published site, its app and its members move along; the old address is freed.
   * `POST /app/sites/{site_id}/slug`. Errors: `422` `invalid_slug`, `409` `slug_reserved` or `slug_taken`.
   */
  async setSlug(siteId: string, slug: string, options?: RequestOptions): Promise<SlugView> {
    return this.call(route("publishing.setSlug", { site_id: siteId }), { ...options, body: { slug } });
  }

  /**
   * Puts every generated page live (sign-in at `/auth`) with its sitemap, robots.txt, link
   * previews and analytics tag; free. A project without a slug gets one from its name.
   * `POST /app/sites/{site_id}/publish`. Errors: `409` `nothing_to_publish`.
   */
  async publish(siteId: string, input: PublishInput = {}, options?: RequestOptions): Promise<PublishResult> {
    return this.call(route("publishing.publish", { site_id: siteId }), { ...options, body: input });
  }

  /**
   * Puts one changed page live; the rest stays as last published. `POST /app/sites/{site_id}/publish-page`.
   * Errors: `409` `not_published` (publish the site first), `409` `nothing_to_publish`.
   */
  async publishPage(siteId: string, kind: PageKind, options?: RequestOptions): Promise<PublishResult> {
    return this.call(route("publishing.publishPage", { site_id: siteId }), { ...options, body: { kind } });
  }
}
