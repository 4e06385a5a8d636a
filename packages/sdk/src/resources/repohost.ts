import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { RepoAccessCheck, RepohostConnect, RepohostStatus } from "../types.js";

/** The account's access to the code-hosting service (for private repositories). */
export class Repohost extends APIResource {
  /** Whether a repository exists for this account, and whether it is private. `GET /app/repohost/repo?url=`. */
  async repo(url: string, options?: RequestOptions): Promise<RepoAccessCheck> {
    return this.call(route("repohost.lookup"), { ...options, query: { url } });
  }

  /**
   * Starts connecting: a person opens the answered `url` in a browser and authorizes.
   * `POST /app/repohost/connect` with `{repo}`, the repository that needs the access.
   */
  async connect(repo: string, options?: RequestOptions): Promise<RepohostConnect> {
    return this.call(route("repohost.connect"), { ...options, body: { repo } });
  }

  /** Whether the account is connected. `GET /app/repohost`. */
  async status(options?: RequestOptions): Promise<RepohostStatus> {
    return this.call(route("repohost.status"), options);
  }

  /** Disconnects and revokes the access on the code-hosting service. `DELETE /app/repohost` → `204`. */
  async disconnect(options?: RequestOptions): Promise<void> {
    return this.call(route("repohost.disconnect"), options);
  }
}
