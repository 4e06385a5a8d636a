import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

describe("the app firewall's deny list from the environment", () => {
  it("REPOSITE_APP_DENY_CIDRS names IPv4 ranges apps may not reach; a range it cannot read stops the start", () => {
    expect(settingsFromEnv({ REPOSITE_APP_DENY_CIDRS: "10.0.0.0/8, 192.168.1.10" }).appDenyCidrs).toEqual(["10.0.0.0/8", "192.168.1.10/32"]);
    expect(settingsFromEnv({}).appDenyCidrs).toBeUndefined();
    expect(() => settingsFromEnv({ REPOSITE_APP_DENY_CIDRS: "10.0.0.0/8,intranet" })).toThrow('REPOSITE_APP_DENY_CIDRS takes IPv4 addresses or ranges (10.0.0.0/8, 192.168.1.10) separated by commas, not "intranet"');
  });
});
