import type { Diagnosis } from "./diagnosis.js";
import { diskNeeded, formatMb } from "./size-needed.js";

/**
 * The app's disk (its image, the files it wrote in its container and its data volume, measured
 * together) is over its limit: the service stops such an app and refuses its deploys (`409
 * storage_full`) until it has room. `limit.needed` is the disk size to buy.
 */
export function storageFullDiagnosis(usedMb: number, limitMb: number): Diagnosis {
  const needed = diskNeeded(usedMb, limitMb);
  return {
    kind: "storage_full",
    title: "The app's disk is full",
    detail:
      `The app uses ${formatMb(usedMb)} of its ${formatMb(limitMb)} of disk: its image, the files it wrote inside its container ` +
      "and its data volume count together. An app over its disk is stopped, and it is not deployed again until it has room.",
    fix:
      `Free some room: delete data the app no longer needs (POST …/deployment/reset-data empties its volume), write files to the volume ` +
      `instead of inside the container, or make the image smaller. Or give the app more disk: ${formatMb(needed)}.`,
    limit: { kind: "disk", needed },
  };
}
