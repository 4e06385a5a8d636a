import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { Token } from "../types.js";

/** The account's tokens. New ones are made in the browser or by agent login, never by a token. */
export class Tokens extends APIResource {
  /** The account's working tokens, without secrets. `GET /app/tokens`. */
  async list(options?: RequestOptions): Promise<Token[]> {
    return this.call(route("tokens.list"), options);
  }

  /** Revokes a token; it stops working on its next request. `DELETE /app/tokens/{token_id}` → `204`. */
  async revoke(tokenId: string, options?: RequestOptions): Promise<void> {
    return this.call(route("tokens.revoke", { token_id: tokenId }), options);
  }
}
