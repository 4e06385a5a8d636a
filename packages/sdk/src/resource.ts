import type { MethodRequestOptions, RepositeClient } from "./client.js";
import type { Route } from "./internal/route.js";

/**
 * A group of endpoints; each method is one call through the client, to an operation of the
 * contract (`this.call(route("projects.get", { site_id }))`).
 * Methods are `async` so that a bad argument (an empty id) rejects like any other failure.
 */
export abstract class APIResource {
  constructor(protected readonly client: RepositeClient) {}

  /** Sends one call of `route` (its method and path come from the contract). */
  protected call<T>(route: Route, options?: MethodRequestOptions): Promise<T> {
    return this.client.request<T>({ ...options, ...route });
  }
}
