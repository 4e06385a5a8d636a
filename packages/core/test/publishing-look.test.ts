import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, DESIGNS, findDesign, PublishedSiteStore, PublishingService, STORAGE, type PublishedSite, type Reposite } from "../src/index.js";
import type { PageVersionRecord } from "../src/pages/page-version.js";

/**
 * `design` and `color_mode` apply to every page of a site at once: generated pages keep their
 * content and are drawn at publish time in the project's design and color_mode of that moment, so
 * a site never mixes light and dark pages; custom HTML is published as written.
 */

const README = [
  "# Rocket CLI\n\nLaunch rockets from your terminal, safely.",
  "## Features\n\n- Countdown with abort\n- Works offline\n- Logs every launch",
  "## Install\n\n```sh\nnpm install -g rocket-cli\n```",
  "## FAQ\n\n### Does it work offline?\n\nYes, every command runs without a network.\n\n### Is it free?\n\nYes, it is MIT licensed.\n\n### Which shells does it support?\n\nBash, zsh and fish.",
].join("\n\n");
const GENERATED = ["/", "/about", "/faq", "/auth"] as const;

/** The appearance a published page is drawn in, from the meta tag the renderer writes. */
function schemeOf(html: string): string | undefined {
  return /<meta name="color-scheme" content="(light|dark)">/.exec(html)?.[1];
}

describe("a site's look at publish time", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let publishing: PublishingService;
  let sites: PublishedSiteStore;
  let ownerId: string;
  let siteId: string;

  const live = async (): Promise<PublishedSite> => (await sites.getBySite(siteId))!;
  const body = (site: PublishedSite, path: string) => site.files[path]!.body;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: README }] });
    reposite = createReposite({
      storage: createStorage(),
      config: { baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      github: { apiUrl: github.url, webHosts: ["github.com"] },
    });
    publishing = reposite.container.resolve(PublishingService);
    sites = reposite.container.resolve(PublishedSiteStore);
    ownerId = (await reposite.accounts.findOrCreate(`owner-${Math.random()}@example.com`)).account.id;
    // A light design, so "Dark mode" is a real change.
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/rocket-cli", design: "ledger" })).id;
    expect(findDesign("ledger")!.scheme).toBe("light");
    const started = await reposite.generation.generate(ownerId, siteId, { mode: "website", pages: ["about", "faq", "auth"] });
    for (let id: string | null = started.job_id; id; ) {
      let job = await reposite.jobs.get(ownerId, id);
      while (job.status === "running") {
        await new Promise((resolve) => setTimeout(resolve, 5));
        job = await reposite.jobs.get(ownerId, id);
      }
      expect(job.status).toBe("done");
      id = job.next_job_id;
    }
  });

  afterAll(async () => {
    await publishing?.idle();
    await reposite?.close();
    await github?.close();
  });

  it("keeps a generated version's content, so it can be drawn again", async () => {
    const storage = reposite.container.resolve(STORAGE);
    for (const version of await reposite.pageVersions.list(ownerId, siteId)) {
      const record = await storage.getItem<PageVersionRecord>(`page-versions:${version.id}`);
      expect(record?.source).toBe("generated");
      expect(record?.content?.kind).toBe(version.kind);
    }
  });

  it("draws every page in the color_mode and design of the moment of publishing, never a mix", async () => {
    await publishing.publish(ownerId, siteId, {});
    const first = await live();
    expect(first.pages).toEqual(["template", "about", "faq", "auth"]);
    for (const path of [...GENERATED, "/404"]) expect(schemeOf(body(first, path)), path).toBe("light");
    expect(first.color_mode).toBe("");

    // Pages were generated before the change: publishing draws them again in the new scheme.
    await reposite.projects.update(ownerId, siteId, { color_mode: "Dark mode" });
    await publishing.publish(ownerId, siteId, {});
    const dark = await live();
    for (const path of [...GENERATED, "/404"]) {
      expect(schemeOf(body(dark, path)), path).toBe("dark");
      expect(body(dark, path), path).toContain(":root{color-scheme:dark;");
    }
    expect(dark.color_mode).toBe("Dark mode");

    const other = DESIGNS.find((design) => design.id === "noir")!;
    await reposite.projects.update(ownerId, siteId, { design: other.id, color_mode: "Light mode" });
    await publishing.publish(ownerId, siteId, {});
    const redesigned = await live();
    expect(redesigned.design).toBe(other.id);
    for (const path of [...GENERATED, "/404"]) {
      expect(body(redesigned, path), path).toContain(`design-${other.id}`);
      expect(schemeOf(body(redesigned, path)), path).toBe("light");
    }
  });

  it("publishes custom HTML as written, and one page alone in the look the site was published with", async () => {
    await reposite.pageVersions.addCustom(ownerId, siteId, { kind: "faq", name: "mine", html: "<html><head><title>FAQ</title></head><body>Hand-written answers</body></html>" });
    await publishing.publish(ownerId, siteId, {});
    const published = await live();
    expect(body(published, "/faq")).toContain("Hand-written answers");
    expect(schemeOf(body(published, "/faq"))).toBeUndefined();

    // color_mode changes after the last publish; one page published alone keeps the site's scheme.
    await reposite.projects.update(ownerId, siteId, { color_mode: "Dark mode" });
    const about = (await reposite.pageVersions.list(ownerId, siteId, "about")).find((version) => version.current)!;
    await reposite.pageVersions.makeCurrent(ownerId, siteId, { kind: "about", version_id: about.id });
    await publishing.publishPage(ownerId, siteId, { kind: "about" });
    const after = await live();
    expect(schemeOf(body(after, "/about"))).toBe("light");
    expect(schemeOf(body(after, "/"))).toBe("light");
    expect(after.color_mode).toBe("Light mode");

    // The next whole publish takes the new scheme everywhere.
    await publishing.publish(ownerId, siteId, {});
    const whole = await live();
    for (const path of [...GENERATED.filter((path) => path !== "/faq"), "/404"]) expect(schemeOf(body(whole, path)), path).toBe("dark");
  });
});
