import { html, type SafeHtml } from "../escape.js";
import { topBarFrame as frame } from "./frame.js";
import type { Layout } from "./layout.js";
import {
  FOOTER_ROW_CSS,
  aboutSections,
  authFormsAndNote,
  closingButton,
  closingText,
  factsBlock,
  faqDetails,
  featureText,
  heading1,
  heroActions,
  heroShot,
  icon,
  inline,
  monogram,
  notFoundBody,
  pageTitle,
  pick,
  sectionsBlock,
  type TextPageContent,
} from "./shared.js";

/**
 * Cards: a short hero, then the features as a row of equal cards with icons. Variations: 0 an API
 * product with a tinted hero band and icon tiles; 1 an open-source project with a centred hero and
 * cards topped by an accent rule; 2 index cards on ruled notebook paper; 3 features as a
 * conversation of chat bubbles.
 */

/** The page head is a full-width band, so the text sits in its own `.wrap`. */
function pageHead(page: TextPageContent): SafeHtml {
  return html`<header class="page-head"><div class="wrap">${pageTitle(page)}</div></header>`;
}

export const cards: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 4;
    return `
.top{padding-block:.9rem;background:var(--surface);border-bottom:1px solid var(--border);position:sticky;top:0;z-index:5}
${v === 2 ? `.top{background:var(--bg);border-bottom:2px dashed var(--border);position:static}` : ""}
${v === 3 ? `.top{background:var(--bg);position:static}` : ""}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 2rem}
.top .nav a[aria-current="page"]{text-decoration:none;background:var(--accent);color:var(--accent-text);border-radius:var(--radius);padding:.2rem .7rem}
.hero{padding-block:calc(var(--space)*4) calc(var(--space)*3)}
.hero h1{font-size:clamp(2.1rem,1.2rem + 3.2vw,3.9rem);line-height:1.08;max-width:20ch}
.hero .lead{margin-bottom:1.75rem}
${v === 0 ? `.hero{background:linear-gradient(180deg,color-mix(in srgb,var(--accent) 9%,var(--bg)),var(--bg));border-bottom:1px solid var(--border)}.hero-inner{display:grid;grid-template-columns:minmax(0,1.4fr) minmax(0,1fr);gap:2rem 4rem;align-items:end}.hero .lead{margin:0}.hero .actions{grid-column:1/-1}` : ""}
${v === 1 ? `.hero{text-align:center}.hero h1,.hero .lead{margin-inline:auto}.hero .actions{justify-content:center}` : ""}
${
  v === 2
    ? `.hero{background-image:repeating-linear-gradient(180deg,transparent 0 31px,color-mix(in srgb,var(--link) 22%,transparent) 31px 32px);background-position:0 12px;border-bottom:2px dashed var(--border)}
.hero-inner{position:relative;padding-left:clamp(0rem,4vw,3rem);border-left:2px solid color-mix(in srgb,var(--accent) 55%,transparent)}
.hero h1{transform:rotate(-1deg);transform-origin:left}`
    : ""
}
${v === 3 ? `.hero-inner{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,.9fr);gap:2rem 4rem;align-items:center}` : ""}
.features{padding-block:calc(var(--space)*3)}
.features-head{margin-bottom:calc(var(--space)*1.75)}
${v === 1 ? `.features-head{text-align:center}` : ""}
.card-row{--cols:3;display:grid;grid-template-columns:repeat(var(--cols),minmax(0,1fr));gap:calc(var(--space)*1.25)}
.card-row.n-1{--cols:1}.card-row.n-2{--cols:2}.card-row.n-4,.card-row.n-7,.card-row.n-8{--cols:4}
@media (max-width:64rem){.card-row.card-row{--cols:2}.card-row.n-1{--cols:1}}
@media (max-width:40rem){.card-row.card-row{--cols:1}}
.card{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:1.5rem}
.card h3{font-size:1.15rem;margin:.9rem 0 .4rem}
.card h2{font-size:var(--h3)}.card>:last-child{margin-bottom:0}
.card p{margin:0;color:var(--muted)}
.card .ico-box{display:inline-grid;place-items:center;width:2.75rem;height:2.75rem;border-radius:calc(var(--radius-box) * .7);background:color-mix(in srgb,var(--accent) 14%,var(--surface));color:var(--link)}
${v === 0 ? `.card{box-shadow:0 1px 2px rgba(0,0,0,.06),0 8px 24px -12px rgba(0,0,0,.12)}` : ""}
${v === 1 ? `.card{border-top:4px solid var(--accent);text-align:center}.card .ico-box{border-radius:50%;background:var(--accent);color:var(--accent-text)}` : ""}
${
  v === 2
    ? `.card{border:2px dashed var(--border);background:var(--surface);box-shadow:4px 4px 0 var(--border)}
.card:nth-child(odd){transform:rotate(-.6deg)}.card:nth-child(even){transform:rotate(.6deg)}
.card .ico-box{border-radius:50%;background:var(--bg);border:2px solid var(--link)}`
    : ""
}
${
  v === 3
    ? `.chat{display:flex;flex-direction:column;gap:1rem;max-width:46rem}
.bubble{display:grid;grid-template-columns:2.5rem minmax(0,1fr);gap:.75rem;align-items:end;max-width:36rem}
.bubble .avatar{width:2.5rem;height:2.5rem;border-radius:50%;display:grid;place-items:center;background:var(--surface);border:1px solid var(--border);color:var(--link)}
.bubble .avatar .ico{width:1.2rem;height:1.2rem}
.bubble .msg{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box) var(--radius-box) var(--radius-box) 4px;padding:1rem 1.2rem}
.bubble:nth-child(even){align-self:flex-end;grid-template-columns:minmax(0,1fr) 2.5rem}
.bubble:nth-child(even) .avatar{order:2}
.bubble:nth-child(even) .msg{background:var(--accent);color:var(--accent-text);border-color:var(--accent);border-radius:var(--radius-box) var(--radius-box) 4px var(--radius-box)}
.bubble:nth-child(even) .msg p{color:var(--accent-text)}
.bubble:nth-child(even) :not(pre)>code{background:transparent;border-color:currentColor;color:inherit}
.msg h3{font-size:1.05rem;margin:0 0 .25rem}.msg p{margin:0;color:var(--muted)}
.hero-chat{display:flex;flex-direction:column;gap:.6rem}
.hero-chat .bubble{grid-template-columns:minmax(0,1fr)}
.typing{display:inline-flex;gap:.3rem;padding:.8rem 1rem;background:var(--surface);border:1px solid var(--border);border-radius:999px;align-self:flex-start}
.typing i{width:.5rem;height:.5rem;border-radius:50%;background:var(--muted)}`
    : ""
}
.stories{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,30rem),1fr));gap:calc(var(--space)*1.25);padding-bottom:calc(var(--space)*3)}
.story{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:clamp(1.25rem,3vw,2rem)}
${v === 2 ? `.story{border:2px dashed var(--border)}` : ""}
.story pre{background:var(--bg);margin-bottom:0}
.story>:last-child{margin-bottom:0}
.closing{margin-bottom:calc(var(--space)*4);padding:clamp(1.75rem,5vw,3.5rem);border-radius:var(--radius-box);background:var(--accent);color:var(--accent-text);display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:1.5rem}
.closing h2{margin:0 0 .3rem}.closing p{margin:0;max-width:36rem}
.closing .btn{background:var(--accent-text);color:var(--accent);border-color:var(--accent-text)}
.page-head{padding-block:calc(var(--space)*3.5) calc(var(--space)*2)}
${v === 0 ? `.page-head{background:linear-gradient(180deg,color-mix(in srgb,var(--accent) 9%,var(--bg)),var(--bg))}` : ""}
${v === 1 ? `.page-head{text-align:center}.page-head .lead{margin-inline:auto}` : ""}
.page-body{padding-bottom:calc(var(--space)*4)}
.page-body .card-row{margin-bottom:2rem}
.page-body .card{text-align:left}
.qas{max-width:50rem}
${v === 1 ? `.qas{margin-inline:auto}` : ""}
.note{color:var(--muted);margin-top:2rem}
.notfound{padding-block:calc(var(--space)*6)}
.footer{background:var(--surface);border-top:1px solid var(--border);padding-block:1.75rem}
${FOOTER_ROW_CSS}
@media (max-width:48rem){.hero-inner{grid-template-columns:minmax(0,1fr)!important}.top{position:static}}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 4;
    const heroSide =
      v === 3
        ? html`<div class="hero-chat" aria-hidden="true">${content.features.slice(0, 2).map(
            (f) => html`<div class="bubble"><div class="msg"><p>${f.title}</p></div></div>`,
          )}<span class="typing"><i></i><i></i><i></i></span></div>`
        : "";
    const featureBlock =
      v === 3
        ? html`<div class="chat">${content.features.map(
            (f, i) => html`<div class="bubble"><span class="avatar">${i % 2 === 0 ? icon(i + 3) : html`<b>${monogram(ctx.site.name)}</b>`}</span><div class="msg">${featureText(f)}</div></div>`,
          )}</div>`
        : html`<div class="card-row n-${content.features.length}">${content.features.map(
            (f, i) => html`<div class="card"><span class="ico-box">${icon(i + v * 2)}</span>${featureText(f)}</div>`,
          )}</div>`;
    const main = html`<section class="hero"><div class="wrap"><div class="hero-inner"><div>${heading1(content.hero.title)}${v === 0 ? "" : html`<p class="lead">${inline(content.hero.subtitle)}</p>`}</div>${
      v === 0 ? html`<p class="lead">${inline(content.hero.subtitle)}</p>` : heroSide
    }${v === 0 ? heroActions(content, ctx) : ""}</div>${v === 0 ? "" : heroActions(content, ctx)}</div></section>
${heroShot(content)}
<section class="features wrap" id="features" aria-labelledby="features-title"><div class="features-head"><h2 id="features-title">${pick(["Built for builders", "Why people use it", "What you will learn", "Say hello to"], v)}${
      v === 3 ? html` ${ctx.site.name}` : ""
    }</h2></div>${featureBlock}</section>
${sectionsBlock(content, "wrap stories")}
<div class="wrap"><section class="closing"><div>${closingText(content)}</div>${closingButton(content, ctx)}</section></div>`;
    return frame(ctx, main);
  },

  about: (content, ctx) =>
    frame(
      ctx,
      html`${pageHead(content)}<div class="wrap page-body"><div class="card-row n-${Math.min(content.sections.length, 2)}">${aboutSections(content, "card")}</div>${factsBlock(content)}</div>`,
    ),

  faq: (content, ctx) => frame(ctx, html`${pageHead(content)}<div class="wrap page-body">${faqDetails(content)}</div>`),

  auth: (content, ctx) => frame(ctx, html`${pageHead(content)}<div class="wrap page-body">${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="wrap notfound">${notFoundBody(ctx)}</div>`),
};
