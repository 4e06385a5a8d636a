import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { Design } from "../types.js";

/** The design catalogue a project's `design` is chosen from. */
export class Designs extends APIResource {
  /** Every design (30). `GET /app/designs`; needs no token. */
  async list(options?: RequestOptions): Promise<Design[]> {
    return this.call(route("designs.list"), options);
  }
}
