import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogoFetcher, type RepositeConfig } from "../src/index.js";
import { updateProjectSchema } from "../src/projects/project-input.js";

const fetcher = new LogoFetcher({ allowPrivateFetch: true } as RepositeConfig);
const NOT_URLS = ["http://127.0.0.1%2509:4103/x", "https://[::1/logo.png", "http://example.com:99999/logo.png", "http://exa mple.com/x.png"];

describe("a logo_url that is no valid URL", () => {
  it.each(NOT_URLS)("%j is refused by the input schema, on logo_url", (logoUrl) => {
    const result = updateProjectSchema.safeParse({ logo_url: logoUrl });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["logo_url"]);
  });

  it("keeps accepting http(s) URLs and the empty string", () => {
    for (const logoUrl of ["", "https://example.com/logo.png", "http://127.0.0.1:4103/x", "https://例え.jp/ロゴ.png"]) {
      expect(updateProjectSchema.safeParse({ logo_url: logoUrl }).success).toBe(true);
    }
  });

  it.each(NOT_URLS)("%j given to the fetcher directly is 422 logo_unavailable, not a TypeError", async (logoUrl) => {
    await expect(fetcher.fetchAsDataUrl(logoUrl)).rejects.toMatchObject({ status: 422, code: "logo_unavailable", details: { field: "logo_url" } });
  });
});

describe("a logo that redirects to no valid URL", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(302, { location: "http://127.0.0.1%2509:4103/x" });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/logo.png`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is 422 logo_unavailable saying so", async () => {
    await expect(fetcher.fetchAsDataUrl(url)).rejects.toMatchObject({
      status: 422,
      code: "logo_unavailable",
      message: expect.stringMatching(/redirects to an address that is not a valid URL/),
    });
  });
});
