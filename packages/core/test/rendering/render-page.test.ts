import { samplePages, sampleSite, sparsePages } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { DESIGNS, WCAG_AA_CONTRAST, contrastRatio, findDesign, relativeLuminance, type Design } from "../../src/designs/index.js";
import { pageContentSchema, type PageContent } from "../../src/generation/page-content.js";
import { escapeAttribute, escapeHtml, html, renderNotFoundPage, renderPage, trustedHtml } from "../../src/rendering/index.js";
import type { SiteContext } from "../../src/rendering/site-context.js";
import { UI_CONTRAST, invertPalette, readableOn, resolveTheme } from "../../src/rendering/theme.js";

const KINDS = ["template", "about", "faq", "auth"] as const;
const REPO = "https://github.com/lumen-dev/lumen";

function siteFor(design: Design, overrides: Partial<SiteContext> = {}): SiteContext {
  return sampleSite({ type: design.type, repositoryUrl: REPO, ...overrides });
}

function design(id: string): Design {
  const found = findDesign(id);
  if (!found) throw new Error(`no design ${id}`);
  return found;
}

/** Structural checks every rendered document must pass; returns problems as readable strings. */
function structureProblems(doc: string): string[] {
  const problems: string[] = [];
  if (!doc.startsWith("<!doctype html>\n<html lang=\"en\">")) problems.push("doctype and lang");
  if (!/<meta charset="utf-8">/.test(doc)) problems.push("charset");
  if (!/<meta name="viewport" content="width=device-width, initial-scale=1">/.test(doc)) problems.push("viewport");
  if ((doc.match(/<style>/g) ?? []).length !== 1) problems.push("exactly one <style>");
  if (/<script|<link\b|<iframe|@import|@font-face/i.test(doc)) problems.push("script, link, iframe, import or font");
  if (/\sstyle="/.test(doc)) problems.push("style attribute");
  if ((doc.match(/<h1[\s>]/g) ?? []).length !== 1) problems.push(`h1 count ${(doc.match(/<h1[\s>]/g) ?? []).length}`);
  if ((doc.match(/<main[\s>]/g) ?? []).length !== 1) problems.push("one <main>");
  if (!/<main id="main"/.test(doc)) problems.push("main is the skip link's target");
  if (!/<a class="skip" href="#main">/.test(doc)) problems.push("skip link");
  if (!/<header[\s>]/.test(doc) || !/<footer[\s>]/.test(doc)) problems.push("header and footer landmarks");
  if (!/:focus-visible\{outline:3px/.test(doc)) problems.push("focus style");
  const levels = [...doc.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
  if (levels[0] !== 1) problems.push(`first heading is h${levels[0]}`);
  for (let i = 1; i < levels.length; i++) {
    if (levels[i]! > levels[i - 1]! + 1) problems.push(`heading skips from h${levels[i - 1]} to h${levels[i]}`);
  }
  for (const img of doc.match(/<img\b[^>]*>/g) ?? []) {
    if (!/\salt="[^"]+"/.test(img)) problems.push(`img without alt: ${img}`);
  }
  for (const input of doc.match(/<input\b[^>]*>/g) ?? []) {
    const id = /\sid="([^"]+)"/.exec(input)?.[1];
    if (!id || !doc.includes(`<label for="${id}">`)) problems.push(`input without label: ${input}`);
  }
  const ids = [...doc.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  if (new Set(ids).size !== ids.length) problems.push("duplicate ids");
  for (const m of doc.matchAll(/href="#([^"]+)"/g)) {
    if (!ids.includes(m[1]!)) problems.push(`in-page link to missing #${m[1]}`);
  }
  return problems;
}

/** Every address the page could load or link to: src and href attributes and CSS url(). */
function addresses(doc: string): string[] {
  return [...doc.matchAll(/\s(?:src|href)="([^"]*)"/g), ...doc.matchAll(/url\(\s*['"]?([^'")]*)/g)].map((m) => m[1]!);
}

function cssVar(doc: string, name: string): string {
  const value = new RegExp(`${name}:(#[0-9a-f]{6})`).exec(doc)?.[1];
  if (!value) throw new Error(`no ${name}`);
  return value;
}

describe("escaping", () => {
  it("escapes text and attributes", () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
    expect(escapeAttribute("a`b")).toBe("a&#96;b");
  });

  it("escapes interpolations and lets nested fragments through", () => {
    const inner = html`<b>${"<i>"}</b>`;
    const out = html`<p title="${'"x"'}">${inner}${["<", html`<br>`]}${null}${undefined}${false}${3}</p>`;
    expect(out.toString()).toBe("<p title=\"&quot;x&quot;\"><b>&lt;i&gt;</b>&lt;<br>3</p>");
    expect(html`${trustedHtml("<hr>")}`.toString()).toBe("<hr>");
  });
});

describe("theme", () => {
  const modes = ["Dark mode", "Light mode"] as const;

  it("keeps the design's palette when color_mode asks for nothing or for its own scheme", () => {
    for (const d of DESIGNS) {
      expect(resolveTheme(d, "").palette).toEqual(d.look.palette);
      expect(resolveTheme(d, d.scheme === "dark" ? "Dark mode" : "Light mode").inverted).toBe(false);
    }
  });

  it("derives the other appearance for every design, meeting WCAG AA on every promised pair", () => {
    for (const d of DESIGNS) {
      for (const mode of modes) {
        const theme = resolveTheme(d, mode);
        const wanted = mode === "Dark mode" ? "dark" : "light";
        expect(theme.scheme).toBe(wanted);
        expect(theme.inverted).toBe(wanted !== d.scheme);
        const p = theme.palette;
        const label = `${d.id} ${mode}`;
        if (wanted === "dark") expect(relativeLuminance(p.background), label).toBeLessThan(0.1);
        else expect(relativeLuminance(p.background), label).toBeGreaterThan(0.7);
        for (const fg of [p.text, p.muted, theme.link]) {
          for (const bg of [p.background, p.surface]) expect(contrastRatio(fg, bg), `${label} ${fg} on ${bg}`).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
        }
        expect(contrastRatio(p.accentText, p.accent), `${label} button`).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
        expect(contrastRatio(p.accent, p.background), `${label} accent block`).toBeGreaterThanOrEqual(UI_CONTRAST);
        if (theme.inverted) expect(p.background, label).not.toBe(d.look.palette.background);
      }
    }
  });

  it("inverts lightness but keeps hues", () => {
    const dark = invertPalette({ background: "#ffffff", surface: "#f1f5f9", text: "#0f172a", muted: "#475569", accent: "#2563eb", accentText: "#ffffff", border: "#dbe3ee" }, "dark");
    expect(relativeLuminance(dark.background)).toBeLessThan(relativeLuminance(dark.surface));
    expect(relativeLuminance(dark.text)).toBeGreaterThan(0.6);
    expect(dark.accent).toBe("#2563eb");
  });

  it("makes a readable link colour from an accent that is not", () => {
    // Zine's hot pink on cream is a block colour, not a text colour.
    expect(contrastRatio("#ff3e7f", "#fff4e0")).toBeLessThan(WCAG_AA_CONTRAST);
    const link = readableOn("#ff3e7f", ["#fff4e0", "#ffe7c2"]);
    expect(contrastRatio(link, "#fff4e0")).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(contrastRatio(link, "#ffe7c2")).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(readableOn("#111111", ["#ffffff"])).toBe("#111111");
  });
});

describe("renderPage", () => {
  it("the samples are valid page content", () => {
    for (const kind of KINDS) {
      expect(() => pageContentSchema.parse(samplePages[kind])).not.toThrow();
      expect(() => pageContentSchema.parse(sparsePages[kind])).not.toThrow();
    }
  });

  it.each(DESIGNS.map((d) => [d.id, d] as const))("%s renders every page kind with sound structure", (_id, d) => {
    const site = siteFor(d);
    const docs: [string, string][] = [];
    for (const kind of KINDS) {
      docs.push([kind, renderPage(d, samplePages[kind], site)]);
      docs.push([`${kind} (sparse)`, renderPage(d, sparsePages[kind], site)]);
    }
    docs.push(["404", renderNotFoundPage(d, site)]);
    for (const [label, doc] of docs) {
      expect(structureProblems(doc), `${d.id} ${label}`).toEqual([]);
      // Nothing to fetch or follow on another origin, except the repository for website and landing
      // buttons and the README's own links the content gives its calls to action.
      const ownLinks = [samplePages.template.closing.cta.href];
      for (const match of doc.matchAll(/\ssrc="([^"]*)"/g)) expect(match[1], `${d.id} ${label}`).not.toMatch(/^(https?:)?\/\//i);
      for (const address of addresses(doc)) {
        if (/^(https?:)?\/\//i.test(address) && !ownLinks.includes(address)) {
          expect(d.type === "saas" ? `${address} (saas)` : address, `${d.id} ${label}`).toBe(REPO);
        }
        expect(address, `${d.id} ${label}`).not.toMatch(/^\s*javascript:/i);
      }
      expect(doc, `${d.id} ${label}`).toContain("Lumen");
      expect(doc).toContain(`<meta name="color-scheme" content="${d.scheme}">`);
    }
  });

  it("points primary buttons at the app for saas and at the repository otherwise, and a README's own link where the content has one", () => {
    const closingHref = samplePages.template.closing.cta.href!;
    for (const d of DESIGNS) {
      const doc = renderPage(d, samplePages.template, siteFor(d));
      // The sample's closing button has the README's own link (a releases page); the hero's has none.
      const closing = [...doc.matchAll(/<a\b([^>]*)>Start monitoring<\/a>/g)].map((m) => m[1]!);
      expect(closing, d.id).toEqual([expect.stringContaining(`href="${closingHref}" rel="noopener"`)]);
      const withLink = renderPage(
        d,
        { ...samplePages.template, hero: { ...samplePages.template.hero, primary_cta: { label: "Download", href: "https://lumen.example/download" } } },
        siteFor(d),
      );
      expect(withLink, d.id).toMatch(/<a\b[^>]*href="https:\/\/lumen\.example\/download" rel="noopener"[^>]*>Download<\/a>/);
      const primary = [...doc.matchAll(/<a\b([^>]*)>Get started<\/a>/g)].map((m) => m[1]!);
      expect(primary, d.id).toHaveLength(1);
      for (const attrs of primary) {
        if (d.type === "saas") {
          expect(attrs, d.id).toContain('href="/app/"');
        } else {
          expect(attrs, d.id).toContain(`href="${REPO}"`);
          expect(attrs, d.id).toContain('rel="noopener"');
        }
      }
      if (d.type === "saas") expect(doc, d.id).not.toContain(`"${REPO}"`);
      // The secondary button stays on the page.
      expect(doc, d.id).toMatch(/<a\b[^>]*href="#how"[^>]*>See how it works<\/a>/);
      expect(renderPage(d, sparsePages.template, siteFor(d)), d.id).not.toContain("See how it works");
    }
  });

  it("honours a custom app path and refuses unsafe addresses", () => {
    const saas = design("neural");
    expect(renderPage(saas, samplePages.template, siteFor(saas, { appPath: "/app/start" }))).toContain('href="/app/start"');
    expect(renderPage(saas, samplePages.template, siteFor(saas, { appPath: "javascript:alert(1)" }))).not.toContain("javascript:");
    const landing = design("launchpad");
    const doc = renderPage(landing, samplePages.template, siteFor(landing, { repositoryUrl: "javascript:alert(1)" }));
    expect(doc).not.toContain("javascript:");
  });

  it("builds the menu from the site's pages and the community switch", () => {
    const d = design("datagrid");
    const full = renderPage(d, samplePages.about, siteFor(d));
    for (const href of ['href="/about"', 'href="/faq"', 'href="/auth"', 'href="/community"']) expect(full).toContain(href);
    expect(full).toMatch(/<a href="\/about" aria-current="page">About<\/a>/);
    const noCommunity = renderPage(d, samplePages.about, siteFor(d, { community: false, pages: ["template", "about"] }));
    expect(noCommunity).not.toContain('href="/community"');
    expect(noCommunity).not.toContain('href="/faq"');
    const onePage = renderPage(d, samplePages.template, siteFor(d, { community: false, pages: ["template"] }));
    expect(onePage).not.toContain('aria-label="Main"');
  });

  it("shows the project's name, and a logo only when it cannot be a third-party request", () => {
    for (const d of DESIGNS) {
      const named = renderPage(d, samplePages.template, siteFor(d, { name: "Acme Widgets" }));
      expect(named, d.id).toContain("Acme Widgets");
      expect(named, d.id).not.toContain('alt="Acme Widgets logo"');
      const dataLogo = "data:image/png;base64,iVBORw0KGgo=";
      const withData = renderPage(d, samplePages.about, siteFor(d, { name: "Acme", logoUrl: dataLogo }));
      expect(withData, d.id).toContain(`<img src="${dataLogo}" alt="Acme logo"`);
      const withPath = renderPage(d, samplePages.faq, siteFor(d, { name: "Acme", logoUrl: "/logo.svg" }));
      expect(withPath, d.id).toContain('<img src="/logo.svg" alt="Acme logo"');
      for (const remote of ["https://cdn.example.com/logo.png", "//cdn.example.com/logo.png", "javascript:alert(1)", "data:text/html,<b>"]) {
        const doc = renderPage(d, samplePages.template, siteFor(d, { logoUrl: remote }));
        expect(doc, `${d.id} ${remote}`).not.toContain('alt="Lumen logo"');
        expect(doc, `${d.id} ${remote}`).not.toContain(remote);
      }
    }
  });

  it("applies color_mode: the other appearance changes the background and keeps text readable", () => {
    for (const d of DESIGNS) {
      const other = d.scheme === "dark" ? "Light mode" : "Dark mode";
      const base = renderPage(d, samplePages.template, siteFor(d));
      const flipped = renderPage(d, samplePages.template, siteFor(d, { colorMode: other }));
      const same = renderPage(d, samplePages.template, siteFor(d, { colorMode: d.scheme === "dark" ? "Dark mode" : "Light mode" }));
      expect(same, d.id).toBe(base);
      const bg = cssVar(flipped, "--bg");
      expect(bg, d.id).not.toBe(cssVar(base, "--bg"));
      expect(flipped, d.id).toContain(`color-scheme:${d.scheme === "dark" ? "light" : "dark"}`);
      const flippedIsDark = relativeLuminance(bg) < relativeLuminance(cssVar(flipped, "--text"));
      expect(flippedIsDark, d.id).toBe(d.scheme === "light");
      for (const fg of ["--text", "--muted", "--link"]) {
        for (const back of ["--bg", "--surface"]) {
          expect(contrastRatio(cssVar(flipped, fg), cssVar(flipped, back)), `${d.id} ${fg} on ${back}`).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
        }
      }
      expect(contrastRatio(cssVar(flipped, "--accent-text"), cssVar(flipped, "--accent")), d.id).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    }
  });

  it("renders the auth page's two forms and the FAQ's questions", () => {
    for (const d of DESIGNS) {
      const auth = renderPage(d, samplePages.auth, siteFor(d));
      expect(auth, d.id).toMatch(/<form class="form" method="post" action="\/auth\/sign-in"/);
      expect(auth, d.id).toMatch(/<form class="form" method="post" action="\/auth\/sign-up"/);
      expect(auth.match(/type="email"/g), d.id).toHaveLength(2);
      expect(auth.match(/type="password"/g), d.id).toHaveLength(2);
      expect(auth, d.id).toContain('autocomplete="new-password"');
      const faq = renderPage(d, samplePages.faq, siteFor(d));
      for (const item of samplePages.faq.items) expect(faq, d.id).toContain(escapeHtml(item.question));
      expect(/<details|<h2>/.test(faq), d.id).toBe(true);
    }
  });

  it("escapes code blocks and hostile content everywhere", () => {
    const hostile = "<script>alert(1)</script>";
    const attr = '" onmouseover="alert(1)';
    const contents: PageContent[] = [
      {
        ...samplePages.template,
        meta: { title: hostile, description: attr },
        hero: { ...samplePages.template.hero, title: hostile, subtitle: `${attr} \`${hostile}\``, primary_cta: { label: hostile } },
        features: samplePages.template.features.map(() => ({ title: hostile, body: attr })),
        sections: [{ title: hostile, body: hostile, code: `${hostile}\n</code></pre><img src=x onerror=alert(1)>` }],
      },
      { ...samplePages.about, title: hostile, facts: [{ label: hostile, value: attr }] },
      { ...samplePages.faq, items: samplePages.faq.items.map(() => ({ question: hostile, answer: hostile })) },
      { ...samplePages.auth, sign_in_label: hostile, note: hostile },
    ];
    for (const d of DESIGNS) {
      for (const content of contents) {
        const doc = renderPage(d, content, siteFor(d, { name: `${hostile}${attr}` }));
        expect(doc, d.id).not.toMatch(/<script|<img src=x|onmouseover="|onerror=alert\(1\)>/);
        expect(doc, d.id).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      }
    }
    const doc = renderPage(design("console"), contents[0]!, siteFor(design("console")));
    expect(doc).toContain("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>");
    expect(doc).toContain("<pre tabindex=\"0\"><code>&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;</code></pre>");
  });

  it("renders README tables as tables and pictures only from the site itself", () => {
    const table = samplePages.template.sections.find((section) => section.table)!.table!;
    const remote = "https://cdn.example.com/shot.png";
    const hostileAlt = '"><script>alert(1)</script>';
    const landing: PageContent = {
      ...samplePages.template,
      hero: { ...samplePages.template.hero, image: { src: "/media/hero.png", alt: hostileAlt } },
      sections: [
        { title: "Numbers", body: "Measured.", table },
        { title: "Remote", body: "Not shown.", image: { src: remote, alt: "remote shot" } },
        { title: "Protocol-relative", body: "Not shown.", image: { src: "//cdn.example.com/x.png", alt: "relative shot" } },
        { title: "Inline", body: "Shown.", image: { src: "data:image/png;base64,iVBORw0KGgo=", alt: "inline shot" } },
      ],
    };
    for (const d of DESIGNS) {
      const doc = renderPage(d, landing, siteFor(d));
      expect(doc, d.id).toContain('<div class="table-wrap" role="region" aria-label="Numbers" tabindex="0"><table><thead><tr><th scope="col">Setup</th>');
      expect(doc.match(/<th scope="col">/g), d.id).toHaveLength(table.header.length);
      expect(doc.match(/<tr>/g), d.id).toHaveLength(table.rows.length + 1);
      expect(doc, d.id).toContain("<td>Lumen 1.4 (<code>--wal</code>)</td>");
      expect(doc, d.id).toContain(`<img src="/media/hero.png" alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`);
      expect(doc, d.id).toContain('alt="inline shot"');
      expect(doc, d.id).not.toContain("remote shot");
      expect(doc, d.id).not.toContain("relative shot");
      expect(doc, d.id).not.toContain(remote);
      const about = renderPage(d, samplePages.about, siteFor(d));
      expect(about, d.id).toContain('<th scope="col">Platform</th>');
      expect(about, d.id).toContain('alt="A Lumen status page during an incident"');
    }
  });

  it("fits a long word by its font size, never by breaking it, and leaves ordinary text alone", () => {
    const name = "Hyperconvergedinfrastructuremonitor";
    for (const d of DESIGNS) {
      const doc = renderPage(d, samplePages.about, siteFor(d, { name }));
      expect(doc, d.id).toContain(`<span class="lw lw-35">${name}</span>`);
      expect(doc, d.id).toContain(".lw-35{--lw:35}");
      expect(doc, d.id).toContain(`<title>About Lumen</title>`);
      expect(doc, d.id).not.toMatch(/overflow-wrap:anywhere;[^}]*hyphens|word-break:break-all|hyphens:auto/);
      expect(renderPage(d, samplePages.about, siteFor(d)), d.id).not.toContain('class="lw');
    }
  });

  it("lets an address wrap after its slashes, never a short pair like Requests/s, and leaves code alone", () => {
    const about = { ...samplePages.about, facts: [{ label: "Repository", value: "github.com/pantry-app/pantry" }], intro: "Requests/s and docs/images/planner.png, see `src/app/main.ts`." };
    for (const d of DESIGNS) {
      const doc = renderPage(d, about, siteFor(d));
      expect(doc, d.id).toContain("github.com/<wbr>pantry-app/<wbr>pantry");
      expect(doc, d.id).toContain("docs/<wbr>images/<wbr>planner.png");
      expect(doc, d.id).toContain("Requests/s");
      expect(doc, d.id).toContain("<code>src/app/main.ts</code>");
    }
  });

  it("puts trusted head markup from publishing into <head>", () => {
    const d = design("noir");
    const doc = renderPage(d, samplePages.template, siteFor(d), { head: '<meta property="og:title" content="Lumen">' });
    const head = doc.slice(0, doc.indexOf("</head>"));
    expect(head).toContain('<meta property="og:title" content="Lumen">');
    expect(head).toContain('<meta name="description" content="Lumen watches your websites');
  });

  it("is deterministic: the same input gives the same bytes", () => {
    for (const d of DESIGNS) {
      for (const kind of KINDS) {
        const a = renderPage(d, samplePages[kind], siteFor(d));
        const b = renderPage({ ...d }, structuredClone(samplePages[kind]), siteFor(d));
        expect(a === b, `${d.id} ${kind}`).toBe(true);
      }
      expect(renderNotFoundPage(d, siteFor(d))).toBe(renderNotFoundPage(d, siteFor(d)));
    }
  });

  it("gives designs that share a layout different variations", () => {
    const byLayout = new Map<string, string[]>();
    for (const d of DESIGNS) {
      const variant = /variant-(\d+)/.exec(renderPage(d, samplePages.template, siteFor(d)))![1]!;
      byLayout.set(d.look.layout, [...(byLayout.get(d.look.layout) ?? []), variant]);
    }
    for (const [layout, variants] of byLayout) expect(new Set(variants).size, layout).toBe(variants.length);
  });
});
