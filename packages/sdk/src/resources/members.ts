import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { MemberView } from "../types.js";

/** People who registered on a project's published site. */
export class Members extends APIResource {
  /** Newest first; never a password. `GET /app/sites/{site_id}/members`. */
  async list(siteId: string, options?: RequestOptions): Promise<MemberView[]> {
    return this.call(route("members.list", { site_id: siteId }), options);
  }
}
