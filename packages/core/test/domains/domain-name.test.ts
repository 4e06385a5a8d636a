import { describe, expect, it } from "vitest";
import { dnsProxyOf, parseDomainName } from "../../src/index.js";

const hosts = { sitesDomain: "sites.example:8080", baseUrl: "https://reposite.example" };

function refusal(input: string): { status: number; code: string | undefined; field: unknown; message: string } {
  try {
    parseDomainName(input, hosts);
  } catch (error) {
    const { status, code, details, message } = error as { status: number; code?: string; details?: { field?: unknown }; message: string };
    return { status, code, field: details?.field, message };
  }
  throw new Error(`expected ${input} to be refused`);
}

describe("custom domain names", () => {
  it("keeps names lower case, without a trailing dot, and tells bare domains from subdomains by the public suffix list", () => {
    expect(parseDomainName("WWW.Example.COM.", hosts)).toEqual({ ascii: "www.example.com", unicode: "www.example.com", zone: "example.com", apex: false });
    expect(parseDomainName(" example.com ", hosts)).toMatchObject({ ascii: "example.com", apex: true, zone: "example.com" });
    // A two-level public suffix: example.co.uk is bare, shop.example.co.uk is not.
    expect(parseDomainName("example.co.uk", hosts)).toMatchObject({ apex: true, zone: "example.co.uk" });
    expect(parseDomainName("shop.example.co.uk", hosts)).toMatchObject({ apex: false, zone: "example.co.uk" });
    expect(parseDomainName("a.b.example.com.au", hosts)).toMatchObject({ apex: false, zone: "example.com.au" });
  });

  it("stores internationalised names in punycode and shows them as written", () => {
    expect(parseDomainName("Bücher.example.com", hosts)).toEqual({
      ascii: "xn--bcher-kva.example.com",
      unicode: "bücher.example.com",
      zone: "example.com",
      apex: false,
    });
    expect(parseDomainName("例え.jp", hosts)).toMatchObject({ ascii: "xn--r8jz45g.jp", apex: true });
  });

  it("refuses what is no domain name with 422 invalid_domain naming the field", () => {
    for (const input of [
      "",
      "https://www.example.com/",
      "www.example.com/path",
      "www.example.com:8443",
      "203.0.113.7",
      "[2001:db8::1]",
      "2001:db8::1",
      "1.2.3",
      "0x7f.1",
      "localhost.",
      "intranet",
      "co.uk",
      "com",
      "-bad.example.com",
      "bad-.example.com",
      "under_score.example.com",
      "a..example.com",
      "exa mple.com",
      `${"a".repeat(64)}.example.com`,
      `${"abcdefghi.".repeat(25)}example.com`,
      "xn--a.com",
    ]) {
      expect(refusal(input), input).toMatchObject({ status: 422, code: expect.stringMatching(/^(invalid_domain|reserved_domain)$/), field: "domain" });
    }
    expect(refusal("203.0.113.7").message).toMatch(/IP address/);
    expect(refusal("intranet")).toMatchObject({ code: "invalid_domain", message: expect.stringMatching(/single label/) });
    expect(refusal("co.uk")).toMatchObject({ code: "invalid_domain", message: expect.stringMatching(/public suffix/) });
    expect(refusal("https://www.example.com/").message).toMatch(/without https:\/\//);
  });

  it("refuses the service's own names and special-use names with 422 reserved_domain", () => {
    for (const input of ["sites.example", "rocket.sites.example", "Rocket.Sites.Example.", "reposite.example", "api.reposite.example", "printer.local", "app.localhost", "x.internal", "hidden.onion"]) {
      expect(refusal(input), input).toMatchObject({ status: 422, code: "reserved_domain", field: "domain" });
    }
    expect(refusal("rocket.sites.example").message).toMatch(/belongs to this service/);
  });

  it("names Cloudflare's proxy addresses, and no others", () => {
    expect(dnsProxyOf("104.16.1.1")?.name).toBe("Cloudflare");
    expect(dnsProxyOf("172.67.10.10")?.name).toBe("Cloudflare");
    expect(dnsProxyOf("2606:4700::6810:1")?.name).toBe("Cloudflare");
    expect(dnsProxyOf("203.0.113.7")).toBeNull();
    expect(dnsProxyOf("127.0.0.1")).toBeNull();
    expect(dnsProxyOf("not an address")).toBeNull();
  });
});
