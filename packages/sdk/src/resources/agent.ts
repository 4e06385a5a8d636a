import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { AgentLoginInput, AgentToken, LoginRequest, Me } from "../types.js";

/** A started login: what to tell the person, and `complete(code)` once they read out the code. */
export interface AgentLogin extends LoginRequest {
  /**
   * Trades the code the person read out (`ABCD-EFGH`; case and dash do not matter) for a token.
   * `POST /agent/token`. Errors: `BadRequestError` `invalid_code` (body has `attempts_left`),
   * `ConflictError` `not_opened` / `wrong_account` / `token_limit`, `PermissionDeniedError` `denied`,
   * `GoneError` `expired`.
   */
  complete(code: string, options?: RequestOptions): Promise<AgentToken>;
}

/** Agent login, and the calling token's own identity. */
export class Agent extends APIResource {
  /**
   * Starts an agent login; needs no token. `POST /agent/login` → `201`. With `email`, a sign-in
   * link is mailed to the person; otherwise (or when `email_sent` is false) they open `verification_url`.
   */
  async login(input: AgentLoginInput, options?: RequestOptions): Promise<AgentLogin> {
    const request = await this.call<LoginRequest>(route("agent.login"), { ...options, body: input });
    return {
      ...request,
      complete: (code, completeOptions) =>
        this.call<AgentToken>(route("agent.token"), { ...completeOptions, body: { request_id: request.request_id, code } }),
    };
  }

  /** Who the token acts as. `GET /agent/me`. */
  async me(options?: RequestOptions): Promise<Me> {
    return this.call(route("agent.me"), options);
  }

  /** Revokes the token this client uses; its next call answers 401. `DELETE /agent/token` → `204`. */
  async logout(options?: RequestOptions): Promise<void> {
    return this.call(route("agent.logout"), options);
  }
}
