import { inject, injectable } from "tsyringe";
import type { DeploymentRecord } from "../hosting/deployment-record.js";
import { resourceView, type ResourcesView } from "../hosting/resources.js";
import { AppLimits, UNIT_MB } from "./app-limits.js";
import { PriceList } from "./price-list.js";

/**
 * `GET …/deployment/resources`: each resource's limit now, the units paid, and the steps with
 * what buying each would add and charge. Memory's limit is what the app's current container was
 * given (a purchase takes effect with the next container); disk's counts at once.
 */
@injectable()
export class AppResources {
  constructor(
    @inject(AppLimits) private readonly limits: AppLimits,
    @inject(PriceList) private readonly prices: PriceList,
  ) {}

  async view(siteId: string, deployment: DeploymentRecord): Promise<ResourcesView> {
    const [memoryUnits, diskUnits, memoryPrice, diskPrice, nextMemory, disk] = await Promise.all([
      this.limits.units(siteId, "memory"),
      this.limits.units(siteId, "disk"),
      this.prices.price("memory"),
      this.prices.price("disk"),
      this.limits.memoryMb(siteId),
      this.limits.diskMb(siteId),
    ]);
    // A container launched before its memory was kept ran with the free tier's.
    const running = deployment.container ? (deployment.container.memory_mb ?? this.limits.freeMb("memory")) : nextMemory;
    return {
      memory: resourceView({ limitMb: running, units: memoryUnits, unitPrice: memoryPrice }, UNIT_MB.memory),
      disk: resourceView({ limitMb: disk, units: diskUnits, unitPrice: diskPrice }, UNIT_MB.disk),
    };
  }
}
