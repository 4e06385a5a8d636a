import { html, type SafeHtml } from "../escape.js";
import { pageFrame } from "./frame.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  FOOTER_ROW_CSS,
  aboutSections,
  authFormsAndNote,
  brand,
  closingButton,
  closingText,
  codeBlock,
  factsBlock,
  faqList,
  featureText,
  footer,
  heroActions,
  heroShot,
  nav,
  notFoundBody,
  pad,
  pageHeader,
  pick,
  rich,
  sectionMedia,
  sectionId,
  titleAndLead,
  type TextPageContent,
} from "./shared.js";

/**
 * Magazine: a masthead between rules, a lead story beside a side column, features in ruled columns
 * and sections set in two text columns. Variations: 0 a centred scholarly masthead; 1 a left-aligned
 * masthead on a bar of accent colour; 2 contour lines behind the masthead and numbered discs.
 */

const ISSUE_WORDS = ["Vol.", "Issue", "No."] as const;

/** The masthead: an issue line, the name set large between rules, the menu under it. */
function masthead(ctx: RenderContext): SafeHtml {
  return html`<header class="masthead"><div class="wrap"><p class="issue"><span>${pick(ISSUE_WORDS, ctx.variant)} ${ctx.site.year}</span><span>${ctx.site.type === "saas" ? "The product" : "The project"}</span></p><div class="title-row">${brand(ctx)}</div>${nav(ctx)}</div></header>`;
}

function frame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  return pageFrame({ header: masthead(ctx), main, footer: footer(ctx) });
}

/** A text page's head, under a kicker naming the section of the magazine it belongs to. */
function pageHead(kicker: string, page: TextPageContent): SafeHtml {
  return pageHeader("page-head", page, { above: html`<p class="kicker">${kicker}</p>` });
}

export const magazine: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    return `
.masthead{padding-top:calc(var(--space)*1.1)}
.issue{display:flex;justify-content:space-between;gap:1rem;margin:0;padding-bottom:.5rem;border-bottom:1px solid var(--text);font-size:.78rem;letter-spacing:.14em;text-transform:uppercase;color:var(--muted)}
.title-row{display:flex;justify-content:center;padding-block:calc(var(--space)*1.3)}
.masthead .brand{font-size:clamp(2rem,1.2rem + 3.5vw,3.6rem);gap:1rem;letter-spacing:-.01em}
.masthead .brand .mark,.masthead .brand img{width:clamp(2.5rem,1.8rem + 2vw,3.5rem);height:clamp(2.5rem,1.8rem + 2vw,3.5rem);font-size:1.3rem}
.masthead .nav{border-top:3px double var(--text);border-bottom:1px solid var(--text);padding-block:.55rem}
.masthead .nav ul{justify-content:center;font-size:.85rem;letter-spacing:.1em;text-transform:uppercase;gap:.25rem 2rem}
${
  v === 1
    ? `.masthead{background:var(--surface);border-top:6px solid var(--accent)}.title-row{justify-content:flex-start}.masthead .nav ul{justify-content:flex-start}.masthead .nav{border-top:1px solid var(--text)}`
    : ""
}

.front{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:0;padding-block:calc(var(--space)*2.5);border-bottom:1px solid var(--text)}
.lead-story{padding-right:clamp(1.5rem,3vw,2.5rem);border-right:1px solid var(--border)}
.lead-story h1{font-size:var(--display);line-height:1.02}
.lead-story .lead{font-size:1.25rem;max-width:none}
.kicker{font-size:.8rem;font-weight:700;letter-spacing:.14em;text-transform:uppercase;color:var(--link);margin-bottom:.75rem}
.contents{padding-left:clamp(1.5rem,3vw,2.5rem)}
.contents h2{font-size:.95rem;letter-spacing:.14em;text-transform:uppercase;padding-bottom:.5rem;border-bottom:2px solid var(--text)}
.contents ol{list-style:none;margin:0;padding:0}
.contents li{display:grid;grid-template-columns:2.2rem 1fr;padding-block:.7rem;border-bottom:1px solid var(--border);font-family:var(--font-head);font-size:1.05rem;line-height:1.35}
.contents .n{color:var(--link);font-weight:700}
${v === 2 ? `.contents .n{display:inline-grid;place-items:center;width:1.7rem;height:1.7rem;border-radius:50%;background:var(--accent);color:var(--accent-text);font-size:.8rem;font-family:var(--font-body)}` : ""}
.features{padding-block:calc(var(--space)*2.5);border-bottom:1px solid var(--text)}
.features>h2{font-size:var(--h3);text-transform:uppercase;letter-spacing:.12em;margin-bottom:1.5rem}
.feature-cols{display:grid;grid-template-columns:repeat(3,minmax(0,1fr))}
.feature{padding:0 1.5rem 1.5rem;border-left:1px solid var(--border)}
.feature:nth-child(3n+1){border-left:0;padding-left:0}
.feature h3{font-size:1.2rem}
.feature p{margin:0;color:var(--muted)}
.story{padding-block:calc(var(--space)*2.5);border-bottom:1px solid var(--border)}
.story h2{font-size:var(--h2);max-width:40rem}
.story .text{columns:2 20rem;column-gap:3rem;column-rule:1px solid var(--border)}
.story .text p,.story .text ul{break-inside:avoid-column}
.story pre{margin-top:1rem;max-width:48rem}
.closing{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:1rem 3rem;align-items:center;margin-block:calc(var(--space)*2.5) calc(var(--space)*4);padding:calc(var(--space)*2);border:2px solid var(--text)}
${v === 1 ? `.closing{background:var(--surface);border-color:var(--accent)}` : ""}
.closing h2{margin:0 0 .25rem}.closing p{margin:0;color:var(--muted)}
.page-head{padding-block:calc(var(--space)*3) calc(var(--space)*1.5);border-bottom:1px solid var(--text);margin-bottom:calc(var(--space)*2)}
.page-head h1{font-size:var(--h1);max-width:48rem}
.page-head .lead{max-width:48rem}
.page-cols{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:2.5rem;padding-bottom:calc(var(--space)*4)}
.page-cols>aside{border-left:1px solid var(--border);padding-left:2rem}
.page-cols .facts{grid-template-columns:1fr;background:transparent;border:0;gap:0}
.page-cols .facts div{background:transparent;padding:.75rem 0;border:0;border-bottom:1px solid var(--border);border-radius:0}
.prose-section{margin-bottom:2rem}
.qlist{columns:2 22rem;column-gap:3rem;column-rule:1px solid var(--border);padding-bottom:calc(var(--space)*4)}
.qlist .q{break-inside:avoid;padding-bottom:1.25rem;margin-bottom:1.25rem;border-bottom:1px solid var(--border)}
.qlist .q h2{font-size:1.15rem;line-height:1.35}
.q-n{color:var(--link)}
.qlist .q p:last-child{margin-bottom:0}
.note{color:var(--muted);padding-block:1.5rem calc(var(--space)*4)}
.notfound{padding-block:calc(var(--space)*5)}
.footer{border-top:3px double var(--text);padding-block:1.5rem 2rem}
${FOOTER_ROW_CSS}
${
  v === 2
    ? `.masthead{border-bottom:3px solid var(--accent);padding-bottom:.9rem}
.masthead .wrap{display:grid;grid-template-columns:auto minmax(0,1fr);align-items:center;gap:0 2rem}
.issue{grid-column:1/-1}.title-row{justify-content:flex-start;padding-block:1rem .2rem}
.masthead .brand{font-size:clamp(1.8rem,1.2rem + 2vw,2.6rem)}
.masthead .nav{border:0;padding:0}.masthead .nav ul{justify-content:flex-end}
.front{margin-top:calc(var(--space)*1.5);padding:clamp(1.25rem,4vw,3rem);border:0;border-radius:var(--radius-box);background-color:var(--surface);background-image:repeating-radial-gradient(ellipse at 88% 15%,transparent 0 22px,color-mix(in srgb,var(--accent) 18%,transparent) 22px 23.5px)}
.lead-story{border-right:0}
.contents{background:var(--bg);border-radius:var(--radius-box);padding:1.5rem;align-self:start}
.features{border-bottom:0}
.feature-cols{gap:1.25rem}
.feature,.feature:nth-child(3n+1){border:0;border-top:4px solid var(--accent);padding:1rem 0 0}
.story{border-bottom:0;border-top:1px dashed var(--muted)}
@media (max-width:48rem){.masthead .wrap{grid-template-columns:minmax(0,1fr)}.masthead .nav ul{justify-content:flex-start}}`
    : ""
}
@media (max-width:56rem){
.front,.page-cols{grid-template-columns:minmax(0,1fr)}
.lead-story{padding-right:0;border-right:0;padding-bottom:1.5rem;border-bottom:1px solid var(--border)}
.contents{padding-left:0;padding-top:1.5rem}
.page-cols>aside{border-left:0;padding-left:0}
.feature-cols{grid-template-columns:repeat(2,minmax(0,1fr))}
.feature,.feature:nth-child(3n+1){border-left:0;padding:0 1.25rem 1.25rem 0}
.closing{grid-template-columns:minmax(0,1fr)}
}
@media (max-width:36rem){.feature-cols{grid-template-columns:minmax(0,1fr)}.issue span:last-child{display:none}}
`;
  },

  landing: (content, ctx) => {
    const main = html`<div class="wrap">
<section class="front" aria-label="Lead story"><article class="lead-story"><p class="kicker">${ctx.site.name}</p>${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}${heroActions(content, ctx)}${heroShot(content, "hero-shot")}</article>
<aside class="contents" aria-labelledby="contents-title"><h2 id="contents-title">${pick(["In this issue", "Inside", "On these pages"], ctx.variant)}</h2><ol>${content.features.map(
      (f, i) => html`<li><span class="n" aria-hidden="true">${ctx.variant % 3 === 2 ? String(i + 1) : pad(i + 1)}</span><span>${f.title}</span></li>`,
    )}</ol></aside></section>
<section class="features" id="features" aria-labelledby="features-title"><h2 id="features-title">${pick(["Features", "The details", "Field notes"], ctx.variant)}</h2><div class="feature-cols">${content.features.map(
      (f) => html`<div class="feature">${featureText(f)}</div>`,
    )}</div></section>
${content.sections.map(
  (s, i) => html`<section class="story" id="${sectionId(i)}"><h2>${s.title}</h2><div class="text">${rich(s.body)}${sectionMedia(s)}</div>${s.code ? codeBlock(s.code) : ""}</section>`,
)}
<section class="closing"><div>${closingText(content)}</div>${closingButton(content, ctx)}</section>
</div>`;
    return frame(ctx, main);
  },

  // No `<aside>` without facts: an empty one would still draw its rule.
  about: (content, ctx) =>
    frame(
      ctx,
      html`<div class="wrap">${pageHead("About", content)}<div class="page-cols"><div>${aboutSections(content)}</div>${
        content.facts.length ? html`<aside>${factsBlock(content, "Facts")}</aside>` : ""
      }</div></div>`,
    ),

  faq: (content, ctx) => frame(ctx, html`<div class="wrap">${pageHead("Questions", content)}${faqList(content, true)}</div>`),

  auth: (content, ctx) => frame(ctx, html`<div class="wrap">${pageHead("Members", content)}${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="wrap notfound">${notFoundBody(ctx)}</div>`),
};
