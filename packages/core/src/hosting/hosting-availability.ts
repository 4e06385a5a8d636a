import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import { CONTAINER_RUNTIME, type ContainerRuntime } from "../ports/container-runtime.js";

/**
 * The one source of truth for "does this server host apps": it does when a container runtime is
 * registered (the server registers Docker when its socket answered at start). Hosting routes and
 * `saas` generation both ask here.
 */
@injectable()
export class HostingAvailability {
  constructor(@inject(CONTAINER_RUNTIME, { isOptional: true }) private readonly containerRuntime?: ContainerRuntime) {}

  get on(): boolean {
    return this.containerRuntime !== undefined;
  }

  /** The runtime, or `503 hosting_unavailable`. */
  runtime(): ContainerRuntime {
    if (!this.containerRuntime) {
      throw new RepositeError(503, "This server does not host apps: no container runtime (Docker) answered when it started.", "hosting_unavailable");
    }
    return this.containerRuntime;
  }
}
