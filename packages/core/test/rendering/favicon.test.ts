import { samplePages, sampleSite } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { DESIGNS } from "../../src/designs/index.js";
import { html, renderNotFoundPage, renderPage } from "../../src/rendering/index.js";
import { renderSitePage } from "../../src/rendering/site-shell.js";
import { resolveTheme } from "../../src/rendering/theme.js";
import { injectHead, notFoundHead, siteHead } from "../../src/sites/site-head.js";
import { faviconLetter, FAVICON_ICO_PATH, FAVICON_SVG_PATH, monogramSvg, renderFavicons } from "../../src/sites/favicon.js";

// A 1×1 PNG, as projects keep a copied logo: a base64 `data:` URL.
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const LOGO = `data:image/png;base64,${PIXEL.toString("base64")}`;

describe("favicon", () => {
  it.each(DESIGNS.map((d) => [d.id, d] as const))("every published page of design %s links the icon", (_id, design) => {
    const site = sampleSite({ type: design.type });
    const head = siteHead({ pageUrl: "https://lumen.sites.test/", siteUrl: "https://lumen.sites.test", siteName: "Lumen", title: "Lumen", description: "Status" });
    const pages = [
      injectHead(renderPage(design, samplePages.template, site), head),
      injectHead(renderNotFoundPage(design, site), notFoundHead()),
      renderSitePage(design, site, { title: "Forum", bodyHtml: html`<p>Hi</p>` }),
    ];
    for (const page of pages) {
      const head = page.slice(0, page.indexOf("</head>"));
      expect(head).toContain('<link rel="icon" href="/favicon.ico">');
    }
  });

  it("serves the logo as the icon when the project has one", async () => {
    const files = await renderFavicons({ name: "rocket", logo: LOGO, design: DESIGNS[0]!, colorMode: "" });
    expect(files).toEqual([{ path: FAVICON_ICO_PATH, contentType: "image/png", body: PIXEL }]);
  });

  it("without a logo, serves an SVG monogram in the design's colours and a PNG at /favicon.ico", async () => {
    for (const design of DESIGNS) {
      const files = await renderFavicons({ name: "rocket cli", logo: "", design, colorMode: "" });
      const svg = files.find((f) => f.path === FAVICON_SVG_PATH)!;
      expect(svg.contentType).toBe("image/svg+xml");
      const { palette } = resolveTheme(design, "");
      const text = svg.body.toString("utf8");
      expect(text).toContain(`fill="${palette.accent}"`);
      expect(text).toContain(`fill="${palette.accentText}">R</text>`);
      const ico = files.find((f) => f.path === FAVICON_ICO_PATH)!;
      expect(ico.contentType).toMatch(/^image\//);
      if (ico.contentType === "image/png") expect(ico.body.subarray(1, 4).toString("ascii")).toBe("PNG");
    }
  });

  it("takes the name's first letter, upper case, escaped", () => {
    expect(faviconLetter("  zephyr")).toBe("Z");
    expect(faviconLetter("")).toBe("•");
    expect(monogramSvg({ name: "<b>", design: DESIGNS[0]!, colorMode: "" })).toContain(">&lt;</text>");
  });
});
