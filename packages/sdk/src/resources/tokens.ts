import type { RequestOptions } from "../client.js";
import { path } from "../internal/path.js";
import { APIResource } from "../resource.js";
import type { Token } from "../types.js";

/** The account's tokens. New ones are made in the browser or by agent login, never by a token. */
export class Tokens extends APIResource {
  /** The account's working tokens, without secrets. `GET /app/tokens`. */
  async list(options?: RequestOptions): Promise<Token[]> {
    return this.client.get("/app/tokens", options);
  }

  /** Revokes a token; it stops working on its next request. `DELETE /app/tokens/{token_id}` → `204`. */
  async revoke(tokenId: string, options?: RequestOptions): Promise<void> {
    return this.client.delete(path`/app/tokens/${tokenId}`, options);
  }
}
