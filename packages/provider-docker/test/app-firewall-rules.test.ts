import { describe, expect, it } from "vitest";
import { jumpsOf, networkChainsRestore, networkIdsInRules } from "../src/app-firewall-rules.js";
import { parseDenyCidrs } from "../src/deny-cidrs.js";

const bridge = { networkId: "0123456789abcdef0123", bridge: "br-0123456789ab" };

describe("app firewall rules", () => {
  it("writes one network's two chains whole: replies first, its own bridge, other networks, the denied ranges; everything else to the host refused", () => {
    expect(networkChainsRestore(bridge, ["169.254.0.0/16", "10.0.0.0/8"]).split("\n")).toEqual([
      "*filter",
      ":REPOSITE-FWD-0123456789ab - [0:0]",
      ":REPOSITE-IN-0123456789ab - [0:0]",
      "-A REPOSITE-FWD-0123456789ab -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
      "-A REPOSITE-FWD-0123456789ab -o br-0123456789ab -j RETURN",
      "-A REPOSITE-FWD-0123456789ab -o br-+ -j REJECT --reject-with icmp-admin-prohibited",
      "-A REPOSITE-FWD-0123456789ab -o docker0 -j REJECT --reject-with icmp-admin-prohibited",
      "-A REPOSITE-FWD-0123456789ab -d 169.254.0.0/16 -j REJECT --reject-with icmp-admin-prohibited",
      "-A REPOSITE-FWD-0123456789ab -d 10.0.0.0/8 -j REJECT --reject-with icmp-admin-prohibited",
      "-A REPOSITE-IN-0123456789ab -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
      "-A REPOSITE-IN-0123456789ab -j REJECT --reject-with icmp-admin-prohibited",
      "COMMIT",
      "",
    ]);
    expect(jumpsOf(bridge)).toEqual([
      { chain: "REPOSITE-APPS", rule: ["-i", "br-0123456789ab", "-j", "REPOSITE-FWD-0123456789ab"] },
      { chain: "REPOSITE-APPS-INPUT", rule: ["-i", "br-0123456789ab", "-j", "REPOSITE-IN-0123456789ab"] },
    ]);
  });

  it("finds the networks that have chains in `iptables -S`", () => {
    const listing = ["-P INPUT ACCEPT", "-N DOCKER-USER", "-N REPOSITE-APPS", "-N REPOSITE-FWD-0123456789ab", "-N REPOSITE-IN-0123456789ab", "-N REPOSITE-IN-ffffffffffff", "-A REPOSITE-APPS -i br-0123456789ab -j REPOSITE-FWD-0123456789ab"].join("\n");
    expect(networkIdsInRules(listing)).toEqual(["0123456789ab", "ffffffffffff"]);
  });

  it("reads REPOSITE_APP_DENY_CIDRS: IPv4 ranges and bare addresses, anything else refused by name", () => {
    expect(parseDenyCidrs(" 10.0.0.0/8, 192.168.1.10 ,,172.16.0.0/12")).toEqual(["10.0.0.0/8", "192.168.1.10/32", "172.16.0.0/12"]);
    expect(parseDenyCidrs("")).toEqual([]);
    for (const bad of ["10.0.0.0/33", "10.0.0/8", "fd00::/8", "example.com", "10.0.0.0/8/1", "10.0.0.0/"]) {
      expect(() => parseDenyCidrs(bad)).toThrow(`REPOSITE_APP_DENY_CIDRS takes IPv4 addresses or ranges (10.0.0.0/8, 192.168.1.10) separated by commas, not "${bad}"`);
    }
  });
});
