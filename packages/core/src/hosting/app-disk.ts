import { injectable } from "tsyringe";

/**
 * The disk each app may use (image, writable layer and data volume together), measured by the
 * service because Docker cannot cap a container's disk on every filesystem.
 * SCAFFOLD (issue 12, in progress): the measuring is being written; these do nothing yet.
 */
@injectable()
export class AppDisk {
  /** `409 storage_full` when the app's disk is full. */
  async assertRoom(_siteId: string): Promise<void> {}

  /** Measures the app after a deploy went live; stops it when it is over its limit. */
  async afterDeploy(_siteId: string): Promise<void> {}

  /** Starts measuring every app periodically (at server start, after recovery). */
  watch(): void {}

  /** Stops the periodic measuring. */
  async close(): Promise<void> {}
}
