import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

describe("network holders from the environment", () => {
  it("REPOSITE_NETWORK_HOLDER_IMAGE names the holders' image, `off` turns them off, nothing leaves provider-docker's default", () => {
    expect(settingsFromEnv({ REPOSITE_NETWORK_HOLDER_IMAGE: "registry.example/pause:3.10" }).networkHolderImage).toBe("registry.example/pause:3.10");
    expect(settingsFromEnv({ REPOSITE_NETWORK_HOLDER_IMAGE: "off" }).networkHolderImage).toBeNull();
    expect(settingsFromEnv({})).not.toHaveProperty("networkHolderImage");
  });
});
