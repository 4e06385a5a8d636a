import { sampleLanding, sampleSite } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { DESIGNS } from "../../src/designs/index.js";
import { renderPage } from "../../src/rendering/index.js";
import { inline } from "../../src/rendering/inline-text.js";

/** Issue 23: links in page text become links on the page, and only safe ones. */
describe("links in page text", () => {
  it("turns [label](https://…) into an outbound link with rel=noopener, and a site path into a plain link", () => {
    expect(inline("Read [the docs](https://docs.example.org/start) or [sign in](/auth).").toString()).toBe(
      'Read <a class="text-link" href="https://docs.example.org/start" rel="noopener">the docs</a> or <a class="text-link" href="/auth">sign in</a>.',
    );
  });

  it("keeps code spans, inside and outside a label, and Wikipedia-style parentheses", () => {
    expect(inline("Run `tidy [x](y)` then [`tidy undo`](https://en.wikipedia.org/wiki/Undo_(computing))").toString()).toBe(
      'Run <code>tidy [x](y)</code> then <a class="text-link" href="https://en.wikipedia.org/wiki/Undo_(computing)" rel="noopener"><code>tidy undo</code></a>',
    );
  });

  it("keeps only the label of a link it may not make (script, mail, anchors, relative files, protocol-relative)", () => {
    for (const target of ["javascript:alert(1)", "mailto:a@b.c", "#install", "docs/guide.md", "//evil.example/x", "data:text/html,x"]) {
      expect(inline(`See [the guide](${target}) now`).toString()).toBe("See the guide now");
    }
  });

  it("escapes labels and addresses", () => {
    const out = inline('[<b>x</b>](https://example.org/?a="1"&b=<2>)').toString();
    expect(out).not.toContain("<b>");
    expect(out).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(out).not.toMatch(/href="[^"]*"[^>]*"/);
  });

  it("renders links in every design's landing page (feature bodies, section bodies, table cells, closing band)", () => {
    const base = sampleLanding;
    const content = {
      ...base,
      features: [{ title: "Docs", body: "Everything is in [the handbook](https://handbook.example.org)." }, ...base.features.slice(1)],
      sections: [{ title: "Download", body: "Get it from [the releases page](https://example.org/releases).", table: { header: ["Platform", "Link"], rows: [["Linux", "[AppImage](https://example.org/app.AppImage)"]] } }],
      closing: { ...base.closing, body: "Questions? Ask [in the forum](https://forum.example.org)." },
    };
    for (const design of DESIGNS) {
      const doc = renderPage(design, content, sampleSite({ type: design.type, repositoryUrl: "https://github.com/lumen-dev/lumen" }));
      for (const href of ["https://handbook.example.org/", "https://example.org/releases", "https://example.org/app.AppImage", "https://forum.example.org/"]) {
        expect(doc, design.id).toContain(`<a class="text-link" href="${href}" rel="noopener">`);
      }
      expect(/[^\n>]{0,60}\]\(https?:[^\n<]{0,40}/.exec(doc)?.[0] ?? null, design.id).toBeNull();
    }
  });
});
