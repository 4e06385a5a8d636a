import { html, type SafeHtml } from "../escape.js";
import type { LandingContent } from "../../generation/page-content.js";
import { headerRow, pageFrame } from "./frame.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  aboutSections,
  authForms,
  closingButton,
  closingText,
  codeBlock,
  factsBlock,
  faqDetails,
  featureText,
  firstCommand,
  footer,
  heading1,
  heroActions,
  heroShot,
  icon,
  inline,
  monogram,
  notFoundBody,
  pageHeader,
  pick,
  rich,
  sectionMedia,
  sectionId,
  sectionsBlock,
  type TextPageContent,
} from "./shared.js";

/**
 * Bento: everything sits in tiles of mixed sizes on one grid. Variations change where the hero tile
 * sits and what the small tiles show: 0 a bar chart, 1 a sparkline, 2 a chip with pins.
 */

/** Deterministic pseudo-random numbers in 0..1 from the design's seed, for chart shapes. */
function series(seed: number, count: number): number[] {
  const out: number[] = [];
  let x = seed || 1;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(((x >>> 8) % 1000) / 1000);
  }
  return out;
}

/** The header row is a tile of its own, so the bar, not the header, carries the box. */
function frame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  return pageFrame({ header: headerRow(ctx, { headerClass: "top wrap", rowClass: "top-row" }), main, footer: footer(ctx) });
}

/** A text page on the grid: its header as the wide first tile, then the page's own tiles. */
function pageGrid(page: TextPageContent, tiles: SafeHtml): SafeHtml {
  return html`<div class="wrap grid page-grid">${pageHeader("tile tile-main", page)}${tiles}</div>`;
}

function commandTile(content: LandingContent, ctx: RenderContext): SafeHtml {
  const command = firstCommand(content) ?? (ctx.site.type === "saas" ? `open ${ctx.primary.href}` : `git clone ${ctx.site.name.toLowerCase()}`);
  return html`<div class="tile tile-cmd" aria-hidden="true"><span class="tile-label">Quick start</span><code>$ ${command}</code></div>`;
}

function chartTile(ctx: RenderContext): SafeHtml {
  const values = series(ctx.seed, 12);
  const v = ctx.variant % 3;
  if (v === 1) {
    const points = values.map((value, i) => `${(i * 100) / 11},${(8 + (1 - value) * 44).toFixed(1)}`).join(" ");
    return html`<div class="tile tile-chart" aria-hidden="true"><span class="tile-label">${ctx.site.name}</span><svg viewBox="0 0 100 60" preserveAspectRatio="none"><polyline points="${points}"/><polyline class="area" points="0,60 ${points} 100,60"/></svg></div>`;
  }
  if (v === 2) {
    return html`<div class="tile tile-chip" aria-hidden="true"><div class="chip"><span>${monogram(ctx.site.name)}</span></div></div>`;
  }
  return html`<div class="tile tile-chart" aria-hidden="true"><span class="tile-label">${ctx.site.name}</span><div class="bars">${values
    .slice(0, 8)
    .map(() => html`<i></i>`)}</div></div>`;
}

const SPANS = [
  [2, 1, 1, 1, 1, 2],
  [1, 2, 1, 2, 1, 1],
  [1, 1, 2, 2, 1, 1],
] as const;

/**
 * Column spans for the feature tiles on the four-column grid, so that every row is full: spans
 * follow the variation's pattern, a tile that does not fit is narrowed, and the last tile of the
 * last row is widened. With `tallFirst`, the first tile takes two columns of two rows.
 */
export function bentoSpans(count: number, pattern: readonly number[], tallFirst: boolean): number[] {
  const spans: number[] = [];
  let start = 0;
  if (tallFirst && count >= 5) {
    spans.push(2, 1, 1, 1, 1);
    start = 5;
  }
  let free = 4;
  for (let i = start; i < count; i++) {
    const span = Math.min(pattern[i % pattern.length]!, free);
    spans.push(span);
    free -= span;
    if (free === 0) free = 4;
  }
  if (free < 4 && spans.length > start) spans[spans.length - 1]! += free;
  return spans;
}

export const bento: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    const heroArea = [
      `.hero-grid{grid-template-areas:"main main main a" "main main main b"}`,
      `.hero-grid{grid-template-areas:"a main main main" "b main main main"}`,
      `.hero-grid{grid-template-areas:"main main main main" "a a b c"}`,
    ][v];
    return `
.top{padding-block:calc(var(--space)*1)}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 2rem;padding:.7rem 1.1rem;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box)}
.grid{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:calc(var(--space)*.9)}
.tile{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:clamp(1.1rem,2.5vw,1.75rem);min-width:0}
${v === 1 ? `.tile{background:linear-gradient(160deg,color-mix(in srgb,var(--accent) 7%,var(--surface)),var(--surface) 60%)}` : ""}
${v === 2 ? `.tile{border-style:dashed;border-color:color-mix(in srgb,var(--accent) 45%,var(--border));position:relative}.tile::after{content:"";position:absolute;top:.55rem;right:.55rem;width:.45rem;height:.45rem;border-radius:50%;background:var(--accent)}` : ""}
.hero-grid{padding-top:calc(var(--space)*.5)}
${heroArea}
.hero-grid .tile-main{grid-area:main}
.tile-main{padding:clamp(1.5rem,4vw,3.25rem);display:flex;flex-direction:column;justify-content:center}
.tile-main h1{font-size:min(var(--display),${v === 2 ? "4.5rem" : "3.6rem"});line-height:1.05}
${v === 2 ? `.hero-grid .tile-main{display:grid;grid-template-columns:minmax(0,1.3fr) minmax(0,1fr);gap:1.5rem 3rem;align-items:end}.hero-grid .tile-main h1{margin:0;grid-row:span 2}.hero-grid .tile-main .lead{margin:0}.hero-grid .tile-main .actions{grid-column:2}` : ""}
.tile-main .lead{margin-bottom:1.75rem}
.hero-grid>div>.tile{height:100%}
.hero-grid .tile-a{grid-area:a}.hero-grid .tile-b{grid-area:b}.hero-grid .tile-c{grid-area:c}
.tile-label{display:block;font-size:.75rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--muted);margin-bottom:.75rem}
.tile-cmd code{display:block;font-size:.88rem;color:var(--text);background:none;border:0;padding:0;overflow-wrap:anywhere}
.tile-accent{background:var(--accent);color:var(--accent-text);border-color:var(--accent);display:flex;flex-direction:column;justify-content:space-between;gap:1rem}
.tile-accent .ico{width:2rem;height:2rem}
.tile-accent b{font-family:var(--font-head);font-size:1.3rem;line-height:1.2}
.bars{display:flex;align-items:flex-end;gap:6%;height:6.5rem}
.bars i{flex:1;background:var(--accent);border-radius:3px 3px 0 0;opacity:.9}
${series(ctx.seed, 8)
  .map((value, i) => `.bars i:nth-child(${i + 1}){height:${Math.round(25 + value * 75)}%}`)
  .join("")}
.bars i:nth-child(odd){background:color-mix(in srgb,var(--accent) 45%,var(--surface))}
.tile-chart svg{width:100%;height:6.5rem;display:block}
.tile-chart polyline{fill:none;stroke:var(--accent);stroke-width:2;vector-effect:non-scaling-stroke}
.tile-chart polyline.area{fill:color-mix(in srgb,var(--accent) 18%,transparent);stroke:none}
.tile-chip{display:grid;place-items:center;min-height:9rem}
.chip{width:5.5rem;height:5.5rem;display:grid;place-items:center;background:var(--bg);border:2px solid var(--accent);border-radius:6px;font-family:var(--font-mono);font-weight:700;color:var(--link);box-shadow:0 0 0 7px var(--surface),0 0 0 9px var(--accent);outline:2px dashed color-mix(in srgb,var(--accent) 60%,transparent);outline-offset:14px}
.section-head{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:end;gap:.5rem 2rem;margin:calc(var(--space)*3.5) 0 calc(var(--space)*1.25)}
.section-head h2{margin:0}.section-head p{margin:0;color:var(--muted)}
.features{grid-auto-flow:dense}
.feature h3{margin:.9rem 0 .4rem}
.feature p{margin:0;color:var(--muted)}
.feature .ico{color:var(--link)}
.feature.span-2{grid-column:span 2}.feature.span-3{grid-column:span 3}.feature.span-4{grid-column:span 4}
.feature.tall{grid-row:span 2;display:flex;flex-direction:column;justify-content:space-between}
.feature.tall .ico{width:5rem;height:5rem;stroke-width:1.25}
.feature.tall h3{font-size:var(--h2);margin-top:auto;padding-top:2rem}
.feature.hot{background:var(--accent);color:var(--accent-text);border-color:var(--accent)}
.feature.hot p,.feature.hot .ico{color:var(--accent-text)}
.feature.hot :not(pre)>code{background:transparent;border-color:currentColor;color:inherit}
.stories{grid-template-columns:repeat(2,minmax(0,1fr));margin-top:calc(var(--space)*.9)}
.story.with-code{grid-column:1/-1;display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.2fr);gap:1.5rem;align-items:start}
.story pre{margin:0;background:var(--bg)}
.story>div>:last-child{margin-bottom:0}
.closing{margin-block:calc(var(--space)*.9) calc(var(--space)*3);display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:1rem 2rem}
.closing h2{margin:0 0 .3rem}.closing p{margin:0;color:var(--muted)}
.page-grid{padding-block:calc(var(--space)*1) calc(var(--space)*3)}
.page-grid .tile-main{grid-column:1/-1}
.page-grid .tile-main h1{font-size:var(--h1)}
.page-grid .body-tile{grid-column:span 3}.page-grid .side-tile{grid-column:span 1}
.side-tile .facts{grid-template-columns:1fr;border:0;background:transparent;gap:.75rem}
.side-tile .facts div{padding:0;background:transparent;border:0}
.side-tile h2{font-size:1.2rem}
.body-tile .prose-section+.prose-section{margin-top:1.75rem}.body-tile .prose-section>:last-child{margin-bottom:0}
.faq-tile{grid-column:1/-1}
.qa:last-child{border-bottom:0}
.auth-tile{grid-column:1/-1}
.auth-tile .form{background:var(--bg)}
.note-tile{grid-column:1/-1;color:var(--muted)}
.note-tile p{margin:0}
.notfound{margin-block:calc(var(--space)*2) calc(var(--space)*4)}
.footer{padding-block:calc(var(--space)*1.5) calc(var(--space)*2.5)}
.footer-row{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 2rem;border-top:1px solid var(--border);padding-top:1.25rem}.footer-row p{margin:0}
@media (max-width:56rem){
.grid,.stories{grid-template-columns:repeat(2,minmax(0,1fr))}
.hero-grid{grid-template-areas:"main main" "a b"}
.hero-grid .tile-c{display:none}
.feature.span-3,.feature.span-4{grid-column:span 2}
.hero-grid .tile-main{display:flex}.hero-grid .tile-main h1{margin-bottom:.55em}.hero-grid .tile-main .lead{margin-bottom:1.75rem}
.page-grid .body-tile,.page-grid .side-tile{grid-column:1/-1}
}
@media (max-width:36rem){
.grid,.stories{grid-template-columns:minmax(0,1fr)}
.hero-grid{grid-template-areas:"main" "a" "b"}
.feature.span-2,.feature.span-3,.feature.span-4{grid-column:auto}.feature.tall{grid-row:auto}
.story.with-code{grid-template-columns:minmax(0,1fr)}
}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 3;
    const spans = bentoSpans(content.features.length, SPANS[v]!, v === 2);
    // The accent tile names a feature that is not the highlighted one in the grid below.
    const named = v === 2 ? content.features[content.features.length - 1]! : content.features[0]!;
    const accentTile = html`<div class="tile tile-accent" aria-hidden="true">${icon(ctx.seed)}<b>${named.title}</b></div>`;
    const side =
      v === 0
        ? html`<div class="tile-a">${commandTile(content, ctx)}</div><div class="tile-b">${chartTile(ctx)}</div>`
        : v === 1
          ? html`<div class="tile-a">${chartTile(ctx)}</div><div class="tile-b">${accentTile}</div>`
          : html`<div class="tile-a">${commandTile(content, ctx)}</div><div class="tile-b">${chartTile(ctx)}</div><div class="tile-c">${accentTile}</div>`;
    const main = html`<div class="wrap">
<section class="grid hero-grid" aria-labelledby="hero-title"><div class="tile tile-main">${heading1(content.hero.title, "hero-title")}<p class="lead">${inline(content.hero.subtitle)}</p>${heroActions(content, ctx)}</div>${side}</section>
${heroShot(content, "tile hero-shot")}
<section id="features" aria-labelledby="features-title"><div class="section-head"><h2 id="features-title">${pick(["Everything in one place", "At a glance", "Built in"], v)}</h2><p>${content.features.length} things ${ctx.site.name} does for you</p></div>
<div class="grid features">${content.features.map((f, i) => {
      const span = spans[i] ?? 1;
      const classes = ["tile", "feature", span > 1 ? `span-${span}` : "", i === (v === 2 ? 0 : 1) ? "hot" : "", v === 2 && i === 0 ? "tall" : ""].filter(Boolean).join(" ");
      return html`<div class="${classes}">${icon(i + ctx.seed)}${featureText(f)}</div>`;
    })}</div></section>
${sectionsBlock(
  content,
  "grid stories",
  (s, i) =>
    html`<section class="tile story${s.code ? " with-code" : ""}" id="${sectionId(i)}"><div><h2>${s.title}</h2>${rich(s.body)}${sectionMedia(s)}</div>${s.code ? codeBlock(s.code) : ""}</section>`,
)}
<section class="tile closing"><div>${closingText(content)}</div>${closingButton(content, ctx)}</section>
</div>`;
    return frame(ctx, main);
  },

  // Facts get a tile only when there are some: an empty tile would leave a hole in the grid.
  about: (content, ctx) =>
    frame(
      ctx,
      pageGrid(
        content,
        html`<div class="tile body-tile">${aboutSections(content)}</div>${content.facts.length ? html`<div class="tile side-tile">${factsBlock(content)}</div>` : ""}`,
      ),
    ),

  faq: (content, ctx) => frame(ctx, pageGrid(content, html`<div class="tile faq-tile">${faqDetails(content)}</div>`)),

  auth: (content, ctx) =>
    frame(ctx, pageGrid(content, html`<div class="tile auth-tile">${authForms(content)}</div><div class="tile note-tile"><p>${inline(content.note)}</p></div>`)),

  notFound: (ctx) => frame(ctx, html`<div class="wrap"><div class="tile tile-main notfound">${notFoundBody(ctx)}</div></div>`),
};
