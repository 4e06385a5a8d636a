import type { AboutContent, AuthContent, FaqContent, LandingContent } from "../../generation/page-content.js";
import type { PageKind } from "../../projects/project.js";
import { html, joinHtml, type HtmlValue, type SafeHtml } from "../escape.js";
import { inline } from "../inline-text.js";
import { PAGE_PATHS } from "../site-context.js";
import type { RenderContext } from "./layout.js";

/** Building blocks every layout shares: brand, menu, buttons, rich text, forms, questions, footer. */

const NAV_LABELS: Record<PageKind, string> = { template: "Home", about: "About", faq: "FAQ", auth: "Sign in" };

export interface NavItem {
  label: string;
  href: string;
  current: boolean;
}

/** Menu entries: the site's pages in order, then the community forum when it is on. */
export function navItems(ctx: RenderContext): NavItem[] {
  const seen = new Set<PageKind>();
  const items: NavItem[] = [];
  for (const kind of ctx.site.pages) {
    if (seen.has(kind) || !(kind in PAGE_PATHS)) continue;
    seen.add(kind);
    items.push({ label: NAV_LABELS[kind], href: PAGE_PATHS[kind], current: ctx.page === kind });
  }
  if (ctx.site.community) items.push({ label: "Community", href: "/community", current: false });
  // A one-page site needs no menu: the brand already links home.
  return items.some((item) => item.href !== PAGE_PATHS.template) ? items : [];
}

export interface NavOptions {
  className?: string;
  /** What a menu link shows; its label unless the layout dresses it. */
  itemContent?: (item: NavItem) => HtmlValue;
}

/** `<nav>` with the menu as a list; nothing when the site has a single page. */
export function nav(ctx: RenderContext, { className = "nav", itemContent = (item) => item.label }: NavOptions = {}): SafeHtml {
  const items = navItems(ctx);
  if (items.length === 0) return html``;
  return html`<nav class="${className}" aria-label="Main"><ul>${items.map(
    (item) => html`<li><a href="${item.href}"${item.current ? html` aria-current="page"` : ""}>${itemContent(item)}</a></li>`,
  )}</ul></nav>`;
}

/**
 * A logo is shown only when it cannot make the page fetch from another origin: a `data:` image or a
 * path on the site itself. A logo on another host would be a third-party request from every visit,
 * so such a logo falls back to the monogram. A project's `logo_url` arrives here already copied as a
 * `data:` URL (LogoFetcher).
 */
export function safeLogoSrc(url: string): string | null {
  return safeImageSrc(url);
}

/** The same rule for every picture on a page (README screenshots too): a path on the site or a `data:` image, else nothing. */
export function safeImageSrc(url: string): string | null {
  const value = url.trim();
  if (/^data:image\/(png|jpe?g|gif|webp|avif|svg\+xml)[;,]/i.test(value) && !/\s/.test(value)) return value;
  if (/^\/(?![/\\])[^\s"'<>]*$/.test(value)) return value;
  return null;
}

/** One or two letters for the text mark: the first letters of the first two words of the name. */
export function monogram(name: string): string {
  const words = name.split(/[\s\-_./]+/).filter((word) => word.length > 0);
  const letters = words.slice(0, 2).map((word) => Array.from(word)[0] ?? "");
  const mark = (words.length > 1 ? letters.join("") : (letters[0] ?? "")).toUpperCase();
  return mark || "•";
}

export interface BrandOptions {
  /** Width and height of the logo image, in CSS pixels. */
  logoSize?: number;
  /** What stands in for a missing or refused logo: the monogram, or nothing (the name is the mark). */
  withoutLogo?: "monogram" | "nothing";
  /** Decoration inside the name, before it (the terminal's `~/` prompt). */
  beforeName?: SafeHtml;
}

/** The logo (image or monogram) and the product name, linking home. */
export function brand(ctx: RenderContext, { logoSize = 32, withoutLogo = "monogram", beforeName }: BrandOptions = {}): SafeHtml {
  const name = ctx.site.name;
  const src = safeLogoSrc(ctx.site.logoUrl);
  const logo = src
    ? html`<img src="${src}" alt="${name} logo" width="${logoSize}" height="${logoSize}">`
    : withoutLogo === "monogram"
      ? html`<span class="mark" aria-hidden="true">${monogram(name)}</span>`
      : "";
  return html`<a class="brand" href="/">${logo}<span class="brand-name">${beforeName}${name}</span></a>`;
}

export function skipLink(): SafeHtml {
  return html`<a class="skip" href="#main">Skip to content</a>`;
}

/** A call to action as content gives it: a label, and the README's own link when it has one. */
export type CallToAction = LandingContent["closing"]["cta"];

/** Only a web address may be a call to action's own link. */
function safeWebUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * The primary call to action: the README's own link when the content gives one (a Download page),
 * else the app for `saas` and the repository for `website` and `landing`.
 */
export function primaryButton(ctx: RenderContext, cta: string | CallToAction, className = "btn"): SafeHtml {
  const label = typeof cta === "string" ? cta : cta.label;
  const own = typeof cta === "string" ? null : safeWebUrl(cta.href);
  const { href, external } = own ? { href: own, external: true } : ctx.primary;
  return html`<a class="${className}" href="${href}"${external ? html` rel="noopener"` : ""}>${label}</a>`;
}

/** The secondary call to action leads to the README's own link when it has one, else stays on the page: how it works, or the features. */
export function secondaryHref(content: LandingContent): string {
  return content.sections.length > 0 ? "#how" : "#features";
}

export function secondaryButton(content: LandingContent, className = "btn btn-alt"): SafeHtml {
  const cta = content.hero.secondary_cta;
  if (!cta) return html``;
  const own = safeWebUrl(cta.href);
  return html`<a class="${className}" href="${own ?? secondaryHref(content)}"${own ? html` rel="noopener"` : ""}>${cta.label}</a>`;
}

/** Both hero buttons: the primary one, then the secondary one when the content has it. */
export function heroButtons(content: LandingContent, ctx: RenderContext): SafeHtml {
  return html`${primaryButton(ctx, content.hero.primary_cta)}${secondaryButton(content)}`;
}

/** Both hero buttons in an `.actions` row. */
export function heroActions(content: LandingContent, ctx: RenderContext): SafeHtml {
  return html`<div class="actions">${heroButtons(content, ctx)}</div>`;
}

/** Id of a landing section: the first is `how` (the secondary button's target). */
export function sectionId(index: number): string {
  return index === 0 ? "how" : `section-${index + 1}`;
}

type Feature = LandingContent["features"][number];
type LandingSection = LandingContent["sections"][number];

/** A feature's title and description; each layout puts its own marker and box around them. */
export function featureText(feature: Feature): SafeHtml {
  return html`<h3>${feature.title}</h3><p>${inline(feature.body)}</p>`;
}

/** A landing section as its own `<section>`: heading, text, table, picture and code sample, with its anchor id. */
export function storySection(section: LandingSection, index: number, className = "story"): SafeHtml {
  return html`<section class="${className}" id="${sectionId(index)}"><h2>${section.title}</h2>${rich(section.body)}${sectionMedia(section)}${section.code ? codeBlock(section.code) : ""}</section>`;
}

type Table = NonNullable<LandingSection["table"]>;
type Picture = NonNullable<LandingSection["image"]>;

/**
 * A README table as a real table, in a container that scrolls sideways on its own when the table is
 * wider than the screen (so the page never does); focusable, so keyboard users can scroll it too.
 */
export function tableBlock(table: Table, label: string): SafeHtml {
  const columns = table.header.length;
  const cells = (row: string[]) => Array.from({ length: Math.max(columns, row.length) }, (_, i) => row[i] ?? "");
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0"><table><thead><tr>${table.header.map(
    (cell) => html`<th scope="col">${inline(cell)}</th>`,
  )}</tr></thead><tbody>${table.rows.map((row) => html`<tr>${cells(row).map((cell) => html`<td>${inline(cell)}</td>`)}</tr>`)}</tbody></table></div>`;
}

/** A picture from the README with its alt text; nothing when its address is not on the site (`safeImageSrc`). */
export function figure(image: Picture | undefined, className = "shot"): SafeHtml {
  const src = image ? safeImageSrc(image.src) : null;
  return src ? html`<figure class="${className}"><img src="${src}" alt="${image!.alt}" loading="lazy" decoding="async"></figure>` : html``;
}

/** A section's table and picture, after its text; nothing when it has neither. */
export function sectionMedia(section: { title: string; table?: Table; image?: Picture }): SafeHtml {
  return html`${section.table ? tableBlock(section.table, section.title) : ""}${figure(section.image)}`;
}

/** The hero's screenshot in a band of its own under the hero; nothing without one. */
export function heroShot(content: LandingContent, className = "hero-shot wrap"): SafeHtml {
  return figure(content.hero.image, className);
}

/**
 * The landing sections in one `<div>`, each drawn by `render` (a `.story` section by default).
 * Nothing at all when there are none, so the page shows no empty band.
 */
export function sectionsBlock(
  content: LandingContent,
  className: string,
  render: (section: LandingSection, index: number) => SafeHtml = (section, index) => storySection(section, index),
): SafeHtml {
  return content.sections.length ? html`<div class="${className}">${content.sections.map(render)}</div>` : html``;
}

/** The closing call's heading and text; the layout places its button. */
export function closingText(content: LandingContent): SafeHtml {
  return html`<h2>${content.closing.title}</h2>${content.closing.body ? html`<p>${inline(content.closing.body)}</p>` : ""}`;
}

export function closingButton(content: LandingContent, ctx: RenderContext): SafeHtml {
  return primaryButton(ctx, content.closing.cta);
}

/**
 * A class for an `h1` by its length: long titles are set smaller (TITLE_FIT_CSS), so a headline of
 * up to 90 characters with its buttons still fits the first screen. Short titles keep the design's size.
 */
export function titleClass(title: string): string {
  const length = [...title].length;
  return length > 64 ? "title-l" : length > 40 ? "title-m" : "";
}

/** An `h1` with its length class. */
export function heading1(title: string, id?: string): SafeHtml {
  const cls = titleClass(title);
  return html`<h1${id ? html` id="${id}"` : ""}${cls ? html` class="${cls}"` : ""}>${title}</h1>`;
}

/**
 * Sizes for long hero `h1`s, after every layout's sheet (`main` outranks the layouts' `.hero h1`
 * rules): never larger than the design's own `h1` size, so a long headline only ever gets smaller.
 */
export const TITLE_FIT_CSS = `
main h1.title-m{font-size:min(var(--h1),clamp(2rem,1.1rem + 2.8vw,3.25rem));max-width:28ch;line-height:1.1}
main h1.title-l{font-size:min(var(--h1),clamp(1.75rem,1.05rem + 2.1vw,2.6rem));max-width:34ch;line-height:1.12}
`;

/** A page's one `h1` and the paragraph that introduces it; `hero` sets a long headline smaller (`titleClass`). */
export function titleAndLead(title: string, lead: string, leadClass = "lead", hero = false): SafeHtml {
  return html`${hero ? heading1(title) : html`<h1>${title}</h1>`}<p class="${leadClass}">${inline(lead)}</p>`;
}

/** The pages besides the landing page; each opens with a title and a short introduction. */
export type TextPageContent = AboutContent | FaqContent | AuthContent;

/** A text page's title and introduction (the sign-in page calls its introduction a subtitle). */
export function pageTitle(page: TextPageContent, leadClass = "lead"): SafeHtml {
  return titleAndLead(page.title, page.kind === "auth" ? page.subtitle : page.intro, leadClass);
}

/** A text page's title and introduction in a `<header>`, under an optional line of its own (a kicker, a dateline). */
export function pageHeader(className: string, page: TextPageContent, options: { above?: SafeHtml; leadClass?: string } = {}): SafeHtml {
  return html`<header class="${className}">${options.above}${pageTitle(page, options.leadClass)}</header>`;
}

/** Inline text: `code` spans and `[label](https://…)` links (see inline-text.ts). */
export { inline };

/** Paragraphs from text with blank lines between them; blocks of `- ` lines become lists. */
export function rich(text: string): SafeHtml {
  const blocks = text
    .trim()
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean);
  return joinHtml(
    blocks.map((block) => {
      const lines = block.split("\n").map((line) => line.trim());
      if (lines.every((line) => /^[-*•]\s+/.test(line))) {
        return html`<ul>${lines.map((line) => html`<li>${inline(line.replace(/^[-*•]\s+/, ""))}</li>`)}</ul>`;
      }
      return html`<p>${joinHtml(
        lines.map((line) => inline(line)),
        " ",
      )}</p>`;
    }),
  );
}

export function codeBlock(code: string, label?: string): SafeHtml {
  const body = code.replace(/\s+$/, "");
  // Focusable: a long line scrolls inside the block, and keyboard users must be able to scroll it.
  return html`<pre tabindex="0"${label ? html` aria-label="${label}"` : ""}><code>${body}</code></pre>`;
}

/** The first command a reader would type: the first code line of the sections, without a prompt. */
export function firstCommand(content: LandingContent): string | undefined {
  for (const section of content.sections) {
    for (const line of (section.code ?? "").split("\n")) {
      const trimmed = line.trim();
      if (trimmed && !/^(#|\/\/|--)/.test(trimmed)) return trimmed.replace(/^[$>]\s*/, "");
    }
  }
  return undefined;
}

/** Two-digit counter: 01, 02… */
export function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** FNV-1a of a string: a stable seed for decorative choices. */
export function hashString(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Picks from a list by a number (variant or seed). */
export function pick<T>(list: readonly T[], n: number): T {
  return list[Math.abs(n) % list.length]!;
}

const ICON_PATHS = [
  "M13 2 4 14h7l-1 8 9-12h-7z", // bolt
  "M12 3 4 6v6c0 4.5 3.4 8.2 8 9 4.6-.8 8-4.5 8-9V6z", // shield
  "m12 3 9 5-9 5-9-5zM3 13l9 5 9-5", // layers
  "M4 5h16v14H4zM7 9l3 3-3 3M12 15h5", // terminal
  "M4 20V10M10 20V4M16 20v-7M22 20H2", // chart
  "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM3 12h18M12 3c2.5 2.7 2.5 15.3 0 18M12 3c-2.5 2.7-2.5 15.3 0 18", // globe
  "M9 3h6v4a2 2 0 1 0 0 4v4h-4a2 2 0 1 0-4 0H3V9h4a2 2 0 1 0 0-4z", // puzzle
  "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM12 7v5l3 2", // clock
  "M12 3v4M12 17v4M3 12h4M17 12h4M6 6l2.5 2.5M15.5 15.5 18 18M6 18l2.5-2.5M15.5 8.5 18 6", // spark
  "M8 6 2 12l6 6M16 6l6 6-6 6", // code
] as const;

/** A tick, for lists of what is included. */
export function checkIcon(className = "ico"): SafeHtml {
  return html`<svg class="${className}" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="m4 12.5 5 5L20 6.5"/></svg>`;
}

/** A decorative line icon, hidden from assistive technology. */
export function icon(n: number, className = "ico"): SafeHtml {
  return html`<svg class="${className}" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="${pick(ICON_PATHS, n)}"/></svg>`;
}

/** The sign-in and sign-up forms; publishing wires the two actions. */
export function authForms(content: AuthContent, className = "forms"): SafeHtml {
  const form = (id: string, title: string, action: string, password: string) => html`<form class="form" method="post" action="${action}" aria-labelledby="${id}-title">
<h2 id="${id}-title">${title}</h2>
<div class="field"><label for="${id}-email">Email</label><input id="${id}-email" name="email" type="email" autocomplete="email" required></div>
<div class="field"><label for="${id}-password">Password</label><input id="${id}-password" name="password" type="password" autocomplete="${password}" minlength="8" required></div>
<button class="btn" type="submit">${title}</button>
</form>`;
  return html`<div class="${className}">${form("sign-in", content.sign_in_label, "/auth/sign-in", "current-password")}${form("sign-up", content.sign_up_label, "/auth/sign-up", "new-password")}</div>`;
}

/** The sign-in and sign-up forms with the page's note under them, as most layouts set them. */
export function authFormsAndNote(content: AuthContent): SafeHtml {
  return html`${authForms(content)}<p class="note">${inline(content.note)}</p>`;
}

/** Questions as disclosure widgets; the first is open so the page never looks empty. */
export function faqDetails(content: FaqContent, openFirst = true): SafeHtml {
  return html`<div class="qas">${content.items.map(
    (item, i) => html`<details class="qa"${openFirst && i === 0 ? html` open` : ""}><summary>${item.question}</summary><div class="answer">${rich(item.answer)}</div></details>`,
  )}</div>`;
}

/** Questions as a list of `h2`s with their answers, for layouts that read like a document. */
export function faqList(content: FaqContent, numbered = false): SafeHtml {
  return html`<div class="qlist">${content.items.map(
    (item, i) => html`<section class="q"><h2>${numbered ? html`<span class="q-n" aria-hidden="true">${pad(i + 1)}</span> ` : ""}${item.question}</h2>${rich(item.answer)}</section>`,
  )}</div>`;
}

/** The About page's facts as a definition list under its own heading; nothing when there are none. */
export function factsBlock(content: AboutContent, title = "At a glance", headingClass = ""): SafeHtml {
  if (content.facts.length === 0) return html``;
  return html`<section class="facts-block" aria-labelledby="facts-title"><h2 id="facts-title"${headingClass ? html` class="${headingClass}"` : ""}>${title}</h2><dl class="facts">${content.facts.map(
    (fact) => html`<div><dt>${fact.label}</dt><dd>${inline(fact.value)}</dd></div>`,
  )}</dl></section>`;
}

/** About sections as `h2` + text; `idOf` gives each an anchor, for layouts that list them in a contents menu. */
export function aboutSections(content: AboutContent, className = "prose-section", idOf?: (index: number) => string): SafeHtml {
  return joinHtml(
    content.sections.map(
      (section, i) => html`<section class="${className}"${idOf ? html` id="${idOf(i)}"` : ""}><h2>${section.title}</h2>${rich(section.body)}${sectionMedia(section)}</section>`,
    ),
  );
}

/** Footer links: the menu, then the app (saas) or the source code (website, landing). */
export function footerLinks(ctx: RenderContext): SafeHtml {
  const items: HtmlValue[] = navItems(ctx).map((item) => html`<li><a href="${item.href}">${item.label}</a></li>`);
  if (ctx.site.type === "saas") items.push(html`<li><a href="${ctx.primary.href}">Open the app</a></li>`);
  else if (ctx.primary.external) items.push(html`<li><a href="${ctx.primary.href}" rel="noopener">Source code</a></li>`);
  return html`<ul>${items}</ul>`;
}

export function copyright(ctx: RenderContext): SafeHtml {
  return html`© ${ctx.site.year} ${ctx.site.name}`;
}

/** The standard footer: copyright and links, in one row that wraps. `beforeCopyright` is a decorative mark (the terminal's `#`). */
export function footer(ctx: RenderContext, { beforeCopyright }: { beforeCopyright?: SafeHtml } = {}): SafeHtml {
  return html`<footer class="footer"><div class="wrap footer-row"><p>${beforeCopyright}${copyright(ctx)}</p><nav aria-label="Footer">${footerLinks(ctx)}</nav></div></footer>`;
}

/**
 * The standard footer's row: copyright and links apart, wrapping on narrow screens. Layouts put it in
 * their own sheet, beside their `.footer` rule, so the order of the rules stays theirs.
 */
export const FOOTER_ROW_CSS = ".footer-row{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 2rem}.footer-row p{margin:0}";

/** The 404 page's message and way home. */
export function notFoundBody(ctx: RenderContext): SafeHtml {
  return html`<h1>Page not found</h1><p class="lead">There is nothing at this address. It may have moved, or the link may be mistyped.</p><div class="actions"><a class="btn" href="/">Back to ${ctx.site.name}</a></div>`;
}

/** Feature-section heading texts; layouts pick one by variant so siblings read differently. */
export const FEATURE_HEADINGS = ["Features", "What you get", "Highlights", "Why it helps"] as const;
