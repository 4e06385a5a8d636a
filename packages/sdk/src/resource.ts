import type { RepositeClient } from "./client.js";

/**
 * A group of endpoints; each method is one call through the client's `get`, `post`, ….
 * Methods are `async` so that a bad argument (an empty id) rejects like any other failure.
 */
export abstract class APIResource {
  constructor(protected readonly client: RepositeClient) {}
}
