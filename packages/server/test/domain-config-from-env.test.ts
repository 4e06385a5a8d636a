import { createReposite, DNS_RESOLVER, type DnsResolver } from "@reposite/core";
import { dnsmasqAvailable, startDnsServer } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

describe("custom domains from the environment", () => {
  it("REPOSITE_PUBLIC_IPV4/IPV6, REPOSITE_DNS_SERVERS and the public ports of the live check", () => {
    const settings = settingsFromEnv({
      REPOSITE_PUBLIC_IPV4: "203.0.113.7",
      REPOSITE_PUBLIC_IPV6: "2001:db8::7",
      REPOSITE_DNS_SERVERS: "1.1.1.1, 127.0.0.1:5353,[2001:db8::53]:53",
      REPOSITE_PUBLIC_HTTPS_PORT: "8443",
      REPOSITE_PUBLIC_HTTP_PORT: "off",
    });
    expect(settings.reposite.config).toMatchObject({ publicIpv4: "203.0.113.7", publicIpv6: "2001:db8::7" });
    expect(settings.reposite.dns).toEqual({ servers: ["1.1.1.1", "127.0.0.1:5353", "[2001:db8::53]:53"] });
    expect(settings.reposite.domains).toEqual({ liveHttpsPort: 8443, liveHttpPort: null });

    const empty = settingsFromEnv({});
    expect(empty.reposite.config).not.toHaveProperty("publicIpv4");
    expect(empty.reposite.dns).toBeUndefined();
    expect(empty.reposite.domains).toEqual({});

    expect(() => settingsFromEnv({ REPOSITE_PUBLIC_IPV4: "2001:db8::7" })).toThrow(/REPOSITE_PUBLIC_IPV4 must be an IPv4 address/);
    expect(() => settingsFromEnv({ REPOSITE_PUBLIC_IPV6: "example.com" })).toThrow(/REPOSITE_PUBLIC_IPV6/);
    expect(() => settingsFromEnv({ REPOSITE_DNS_SERVERS: "dns.example.com" })).toThrow(/REPOSITE_DNS_SERVERS/);
    expect(() => settingsFromEnv({ REPOSITE_PUBLIC_HTTPS_PORT: "99999" })).toThrow(/REPOSITE_PUBLIC_HTTPS_PORT/);
  });

  it.skipIf(!dnsmasqAvailable())("the embedded resolver asks the servers named, and answers [] for a name without the record", async () => {
    const dns = await startDnsServer({ a: { "www.example.com": ["192.0.2.1"] }, txt: { "_reposite.example.com": ["hello"] }, cname: { "alias.example.com": "www.example.com" } });
    const reposite = createReposite({ storage: createStorage(), ...settingsFromEnv({ REPOSITE_DNS_SERVERS: dns.address }).reposite });
    try {
      const resolver = reposite.container.resolve<DnsResolver>(DNS_RESOLVER);
      await expect(resolver.resolve4("www.example.com")).resolves.toEqual(["192.0.2.1"]);
      await expect(resolver.resolveTxt("_reposite.example.com")).resolves.toEqual([["hello"]]);
      await expect(resolver.resolveCname("alias.example.com")).resolves.toEqual(["www.example.com"]);
      // NODATA and NXDOMAIN are no records, not failures.
      await expect(resolver.resolve6("www.example.com")).resolves.toEqual([]);
      await expect(resolver.resolve4("nothing.example.com")).resolves.toEqual([]);
    } finally {
      await reposite.close();
      await dns.close();
    }
    // A server that does not answer is a failure, not "no record".
    const silent = createReposite({ storage: createStorage(), dns: { servers: [dns.address], timeoutMs: 100, tries: 1 } });
    try {
      await expect(silent.container.resolve<DnsResolver>(DNS_RESOLVER).resolve4("www.example.com")).rejects.toMatchObject({ code: expect.stringMatching(/ECONNREFUSED|ETIMEOUT/) });
    } finally {
      await silent.close();
    }
  });
});
