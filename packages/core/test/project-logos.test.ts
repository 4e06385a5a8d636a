import { freePort, startFakeGitHub, startImageHost, TEST_PNG as PNG, TEST_SVG as SVG, type FakeGitHub, type ImageHost } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, isPublicAddress, LogoFetcher, PublishedSiteStore, PublishingService, type Reposite, type RepositeConfig } from "../src/index.js";

const fetcher = (allowPrivateFetch: boolean) => new LogoFetcher({ allowPrivateFetch } as RepositeConfig);

describe("public addresses", () => {
  it.each([
    ["8.8.8.8", true],
    ["2606:4700::1111", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["::1", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:127.0.0.1", false],
    ["not an address", false],
  ])("%s is public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("copying a logo", () => {
  let host: ImageHost;
  beforeAll(async () => {
    host = await startImageHost();
  });
  afterAll(() => host.close());

  it("copies an image as a data: URL with its type, following a few redirects", async () => {
    expect(await fetcher(true).fetchAsDataUrl(`${host.url}/logo.png`)).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(await fetcher(true).fetchAsDataUrl(`${host.url}/logo.svg`)).toBe(`data:image/svg+xml;base64,${Buffer.from(SVG).toString("base64")}`);
    expect(await fetcher(true).fetchAsDataUrl(`${host.url}/hop/3`)).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
  });

  it.each([
    ["/hop/4", /redirects more than 3 times/],
    ["/page.html", /it is text\/html, not a PNG/],
    ["/huge.png", /larger than 64 KB/],
    ["/huge-streamed.png", /larger than 64 KB/],
    ["/empty.png", /it is empty/],
    ["/missing.png", /it answered 404/],
  ])("refuses %s with 422 logo_unavailable", async (path, message) => {
    await expect(fetcher(true).fetchAsDataUrl(`${host.url}${path}`)).rejects.toMatchObject({ status: 422, code: "logo_unavailable", message: expect.stringMatching(message), details: { field: "logo_url" } });
  });

  it("says so when nothing answers", async () => {
    const port = await freePort();
    await expect(fetcher(true).fetchAsDataUrl(`http://127.0.0.1:${port}/logo.png`)).rejects.toMatchObject({ code: "logo_unavailable", message: expect.stringMatching(/could not be reached/) });
  });

  it("never calls loopback or private addresses unless the operator allows it", async () => {
    const port = new URL(host.url).port;
    for (const url of [`${host.url}/logo.png`, `http://[::1]:${port}/logo.png`, `http://[::ffff:127.0.0.1]:${port}/logo.png`, `http://169.254.169.254/latest/meta-data`]) {
      await expect(fetcher(false).fetchAsDataUrl(url)).rejects.toMatchObject({ status: 422, code: "logo_unavailable", message: expect.stringMatching(/not on the public internet/) });
    }
    // A name is judged by the addresses it resolves to.
    await expect(fetcher(false).fetchAsDataUrl(`http://localhost:${port}/logo.png`)).rejects.toMatchObject({ code: "logo_unavailable", message: expect.stringMatching(/localhost resolves to .*not on the public internet/) });
  });
});

describe("a project's logo", () => {
  let host: ImageHost;
  let github: FakeGitHub;
  let reposite: Reposite;
  let ownerId: string;

  beforeAll(async () => {
    host = await startImageHost();
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "rocket-cli", description: "Rockets", readme: "# Rocket CLI\n\nLaunch rockets." }] });
    reposite = createReposite({
      storage: createStorage(),
      config: { allowPrivateFetch: true, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      github: { apiUrl: github.url, webHosts: ["github.com"] },
    });
    ownerId = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
  });
  afterAll(async () => {
    await reposite.container.resolve(PublishingService).idle();
    await reposite.close();
    await github.close();
    await host.close();
  });

  async function generateLanding(siteId: string): Promise<void> {
    const started = await reposite.generation.generate(ownerId, siteId, { mode: "landing" });
    let job = await reposite.jobs.get(ownerId, started.job_id);
    while (job.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 5));
      job = await reposite.jobs.get(ownerId, started.job_id);
    }
    expect(job.status).toBe("done");
  }

  it("draws the copied image inline on generated and published pages, never the remote address", async () => {
    const { id } = await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/rocket-cli" });
    const logoUrl = `${host.url}/logo.png`;
    expect((await reposite.projects.update(ownerId, id, { logo_url: logoUrl })).logo_url).toBe(logoUrl);
    await generateLanding(id);
    const published = await reposite.container.resolve(PublishingService).publish(ownerId, id, {});
    const site = (await reposite.container.resolve(PublishedSiteStore).getBySite(id))!;
    for (const path of ["/", "/404"]) {
      const html = site.files[path]!.body;
      expect(html).toContain(`src="data:image/png;base64,${PNG.toString("base64")}"`);
      expect(html).not.toContain(host.url);
    }
    expect(published.url).toBe("https://rocket-cli.sites.example");
  });

  it("keeps the project as it was when the logo cannot be used", async () => {
    const { id } = await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/rocket-cli" });
    await reposite.projects.update(ownerId, id, { logo_url: `${host.url}/logo.svg` });
    await expect(reposite.projects.update(ownerId, id, { name: "Renamed", logo_url: `${host.url}/page.html` })).rejects.toMatchObject({ status: 422, code: "logo_unavailable" });
    const project = await reposite.projects.getOwned(ownerId, id);
    expect(project).toMatchObject({ name: "rocket-cli", logo_url: `${host.url}/logo.svg`, logo_image: `data:image/svg+xml;base64,${Buffer.from(SVG).toString("base64")}` });

    await reposite.projects.update(ownerId, id, { logo_url: "" });
    expect(await reposite.projects.getOwned(ownerId, id)).toMatchObject({ logo_url: "", logo_image: "" });
  });
});
