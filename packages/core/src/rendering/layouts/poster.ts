import { html } from "../escape.js";
import { topBarFrame as frame } from "./frame.js";
import type { Layout } from "./layout.js";
import {
  FOOTER_ROW_CSS,
  aboutSections,
  authFormsAndNote,
  closingButton,
  closingText,
  codeBlock,
  factsBlock,
  faqDetails,
  featureText,
  heroActions,
  heroShot,
  notFoundBody,
  pad,
  pageHeader,
  pick,
  rich,
  sectionMedia,
  sectionId,
  sectionsBlock,
  titleAndLead,
} from "./shared.js";

/**
 * Poster: one oversized headline fills the first screen; below it, blocks of flat colour. Every
 * block pairs colours the palette promises are readable (accent/accentText, surface/text,
 * text/background swapped). Variations: 0 a big disc of accent behind the headline; 1 a
 * checkerboard strip and the headline in the accent; 2 a halftone block with a tilted sticker.
 * A section's title column is never narrower than its longest word, so a heading in large capitals
 * ("INSTALLATION") is not broken mid-word beside its content.
 */

const BLOCK_KINDS = ["b-accent", "b-surface", "b-ink"] as const;

export const poster: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    return `
.top{padding-block:calc(var(--space)*1.1);position:relative;z-index:2}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 2rem}
.top .nav ul{font-weight:700;text-transform:uppercase;letter-spacing:.06em;font-size:.9rem}
.hero{position:relative;min-height:min(86vh,52rem);display:flex;flex-direction:column;justify-content:center;padding-block:calc(var(--space)*3) calc(var(--space)*4);overflow:hidden;isolation:isolate}
.hero h1{font-size:clamp(2.6rem,1rem + 8.2vw,8.5rem);line-height:.95;letter-spacing:${v === 1 ? "0.01em" : "-0.035em"};max-width:12ch;margin-bottom:.35em;hyphens:manual}
.hero .lead{font-size:clamp(1.1rem,1rem + .6vw,1.45rem);color:var(--text);max-width:38rem;margin-bottom:2rem}
.hero .btn{font-size:1.1rem;padding:1em 2em}
${
  v === 0
    ? `.hero::before{content:"";position:absolute;z-index:-1;width:min(62vw,46rem);aspect-ratio:1;right:-8vw;top:50%;transform:translateY(-50%);border-radius:50%;background:var(--accent);opacity:.14}
.hero::after{content:"";position:absolute;z-index:-1;width:min(16vw,11rem);aspect-ratio:1;right:6vw;bottom:8%;border-radius:50%;background:var(--accent)}
@media (max-width:48rem){.hero::after{display:none}}`
    : ""
}
${
  v === 1
    ? `.hero h1{color:var(--link)}
.hero::after{content:"";position:absolute;left:0;right:0;bottom:0;height:2.5rem;background:repeating-conic-gradient(var(--accent) 0 25%,transparent 0 50%) 0 0/2.5rem 2.5rem}
.hero .btn{box-shadow:6px 6px 0 var(--text)}`
    : ""
}
${
  v === 2
    ? `.hero-block{position:relative;background:var(--accent);color:var(--accent-text);padding:clamp(1.5rem,5vw,3.5rem);background-image:radial-gradient(color-mix(in srgb,var(--accent-text) 22%,transparent) 1.5px,transparent 1.8px);background-size:12px 12px;border:3px solid var(--text);box-shadow:10px 10px 0 var(--text)}
.hero-block h1{font-size:clamp(2.4rem,1rem + 6.6vw,7.25rem)}
@media (max-width:30rem){.hero-block h1{font-size:2rem}}
.hero-block .lead{color:var(--accent-text)}
.hero-block .btn{background:var(--accent-text);color:var(--accent);border-color:var(--accent-text)}
.hero-block .btn-alt{background:transparent;color:var(--accent-text);border-color:var(--accent-text)}
.sticker{position:absolute;top:-1.2rem;right:clamp(.5rem,4vw,3rem);transform:rotate(6deg);background:var(--bg);color:var(--text);border:3px solid var(--text);padding:.4rem .9rem;font-family:var(--font-head);font-weight:700;text-transform:uppercase;letter-spacing:.06em}`
    : ""
}
.blocks{display:flex;flex-wrap:wrap}
.blocks>.block{flex:1 1 19rem}
.block{padding:clamp(1.75rem,4vw,3.25rem);min-height:15rem;display:flex;flex-direction:column;justify-content:space-between;gap:1.5rem}
${v === 0 ? `.block{border-radius:var(--radius-box);margin:.5rem}.blocks{padding-inline:clamp(.5rem,2vw,1.5rem)}` : ""}
${v === 2 ? `.blocks{gap:0;border-block:3px solid var(--text)}.block{border-right:3px solid var(--text)}` : ""}
.block .n{font-family:var(--font-head);font-size:clamp(3rem,2rem + 3vw,5rem);line-height:.9;font-weight:var(--head-weight)}
.block h3{font-size:clamp(1.3rem,1.1rem + .6vw,1.7rem);margin-bottom:.4rem}
.block p{margin:0}
.b-accent{background:var(--accent);color:var(--accent-text)}
.b-surface{background:var(--surface);color:var(--text)}
.b-ink{background:var(--text);color:var(--bg)}
.b-accent :not(pre)>code,.b-ink :not(pre)>code{background:transparent;border-color:currentColor;color:inherit}
.features-title{padding-block:calc(var(--space)*3) calc(var(--space)*1.5)}
.features-title h2{font-size:clamp(2rem,1.4rem + 3vw,4rem);line-height:1}
.story{display:grid;grid-template-columns:minmax(min-content,.5fr) minmax(0,1fr);gap:1rem clamp(1.5rem,4vw,4rem);padding-block:calc(var(--space)*3.5);border-bottom:${v === 2 ? "3px solid var(--text)" : "1px solid var(--border)"}}
.story h2{font-size:clamp(1.8rem,1.3rem + 2vw,3rem);line-height:1.05}
.story .big-n{display:block;color:var(--link);font-family:var(--font-head);font-size:1rem;letter-spacing:.1em;margin-bottom:.5rem}
.story pre{background:var(--surface)}
.closing{background:${v === 1 ? "var(--surface)" : "var(--text)"};color:${v === 1 ? "var(--text)" : "var(--bg)"};padding-block:calc(var(--space)*6);text-align:center;margin-top:calc(var(--space)*3)}
.closing h2{font-size:clamp(2.2rem,1.4rem + 4vw,5rem);line-height:1;max-width:18ch;margin-inline:auto}
.closing p{max-width:36rem;margin:0 auto 2rem;font-size:1.15rem}
.closing .btn{font-size:1.1rem;padding:1em 2em}
.page-hero{padding-block:calc(var(--space)*4) calc(var(--space)*3)}
.page-hero h1{font-size:clamp(2.4rem,1.2rem + 5vw,5.5rem);line-height:1;max-width:16ch}
.page-hero .lead{color:var(--text);font-size:1.2rem}
.page-body{padding-bottom:calc(var(--space)*4);max-width:52rem}
.prose-section{padding-block:1.5rem;border-top:${v === 2 ? "3px solid var(--text)" : "2px solid var(--border)"}}
.prose-section h2{font-size:clamp(1.5rem,1.2rem + 1vw,2.1rem)}
.facts-block{margin-top:1.5rem}
.qa summary{font-size:clamp(1.15rem,1rem + .6vw,1.45rem);padding-block:1.3rem}
.forms{padding-bottom:1rem}
.note{padding-block:1.5rem calc(var(--space)*4);font-size:1.1rem}
.notfound{padding-block:calc(var(--space)*5)}
.notfound h1{font-size:clamp(2.6rem,1.2rem + 6vw,6rem);line-height:1}
.footer{padding-block:calc(var(--space)*2);border-top:${v === 2 ? "3px solid var(--text)" : "1px solid var(--border)"}}
${FOOTER_ROW_CSS}
@media (max-width:48rem){.story{grid-template-columns:minmax(0,1fr)}.hero{min-height:0}.block{min-height:0}${v === 2 ? ".block{border-right:0;border-bottom:3px solid var(--text)}" : ""}}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 3;
    const heroInner = html`${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}${heroActions(content, ctx)}`;
    const main = html`<section class="hero"><div class="wrap">${
      v === 2 ? html`<div class="hero-block"><span class="sticker" aria-hidden="true">${ctx.site.name}</span>${heroInner}</div>` : heroInner
    }</div></section>
${heroShot(content)}
<section id="features" aria-labelledby="features-title"><div class="wrap features-title"><h2 id="features-title">${pick(["The good stuff", "Press start", "What's inside"], v)}</h2></div>
<div class="blocks">${content.features.map(
      (f, i) => html`<div class="block ${pick(BLOCK_KINDS, i + v)}"><span class="n" aria-hidden="true">${pad(i + 1)}</span><div>${featureText(f)}</div></div>`,
    )}</div></section>
${sectionsBlock(
  content,
  "wrap",
  (s, i) =>
    html`<section class="story" id="${sectionId(i)}"><div><span class="big-n" aria-hidden="true">${pad(i + 1)} /</span><h2>${s.title}</h2></div><div>${rich(s.body)}${sectionMedia(s)}${s.code ? codeBlock(s.code) : ""}</div></section>`,
)}
<section class="closing"><div class="wrap">${closingText(content)}${closingButton(content, ctx)}</div></section>`;
    return frame(ctx, main);
  },

  about: (content, ctx) =>
    frame(ctx, html`<div class="wrap">${pageHeader("page-hero", content)}<div class="page-body">${aboutSections(content)}${factsBlock(content)}</div></div>`),

  faq: (content, ctx) => frame(ctx, html`<div class="wrap">${pageHeader("page-hero", content)}<div class="page-body">${faqDetails(content)}</div></div>`),

  auth: (content, ctx) => frame(ctx, html`<div class="wrap">${pageHeader("page-hero", content)}${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="wrap notfound">${notFoundBody(ctx)}</div>`),
};
