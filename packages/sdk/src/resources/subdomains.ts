import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { SlugCheck } from "../types.js";

/** Addresses under the sites domain (`https://<slug>.{sites_domain}`). */
export class Subdomains extends APIResource {
  /**
   * Whether `slug` could be an address now: `{available: true}` or `{available: false, reason}`
   * (`invalid`, `reserved`, `taken`). `GET /app/subdomain-check?slug=`. Same as `publishing.checkSlug`.
   */
  async check(slug: string, options?: RequestOptions): Promise<SlugCheck> {
    return this.call(route("subdomains.check"), { ...options, query: { slug } });
  }
}
