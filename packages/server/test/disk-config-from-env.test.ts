import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

describe("the disk limit from the environment", () => {
  it("REPOSITE_DISK_LIMIT_MB and REPOSITE_DISK_CHECK_SECONDS set each app's disk and how often it is measured", () => {
    expect(settingsFromEnv({ REPOSITE_DISK_LIMIT_MB: "20", REPOSITE_DISK_CHECK_SECONDS: "5" }).reposite.hosting).toEqual({ diskLimitMb: 20, diskCheckIntervalMs: 5_000 });
    expect(settingsFromEnv({}).reposite.hosting).toEqual({});
    expect(() => settingsFromEnv({ REPOSITE_DISK_LIMIT_MB: "3GB" })).toThrow(/REPOSITE_DISK_LIMIT_MB/);
    expect(() => settingsFromEnv({ REPOSITE_DISK_CHECK_SECONDS: "0" })).toThrow(/REPOSITE_DISK_CHECK_SECONDS/);
  });
});
