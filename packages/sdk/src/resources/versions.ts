import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { CreatePageVersionInput, PageKind, PageVersion, PageVersionDetail } from "../types.js";

/** Each page's history of versions; one per page is current. */
export class Versions extends APIResource {
  /** Versions of the project's pages, newest first, without HTML. `GET /app/sites/{site_id}/versions?kind=`. */
  async list(siteId: string, params: { kind?: PageKind } = {}, options?: RequestOptions): Promise<PageVersion[]> {
    return this.call(route("versions.list", { site_id: siteId }), { ...options, query: { kind: params.kind } });
  }

  /** One version with its HTML. `GET /app/versions/{version_id}`. */
  async get(versionId: string, options?: RequestOptions): Promise<PageVersionDetail> {
    return this.call(route("versions.get", { version_id: versionId }), options);
  }

  /**
   * Your own HTML for a page (at most 5 MB; larger is `413 html_too_large`); it becomes current.
   * `POST /app/sites/{site_id}/versions` → `201`.
   */
  async create(siteId: string, input: CreatePageVersionInput, options?: RequestOptions): Promise<PageVersion> {
    return this.call(route("versions.create", { site_id: siteId }), { ...options, body: input });
  }

  /** Makes an earlier version of a page current again. `PUT /app/sites/{site_id}/actual`. */
  async setCurrent(siteId: string, input: { kind: PageKind; version_id: string }, options?: RequestOptions): Promise<PageVersion> {
    return this.call(route("versions.makeCurrent", { site_id: siteId }), { ...options, body: input });
  }
}
