import { html, type SafeHtml } from "../escape.js";
import { topBarFrame as frame } from "./frame.js";
import type { Layout } from "./layout.js";
import {
  FEATURE_HEADINGS,
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
  notFoundBody,
  pad,
  pageHeader,
  pick,
  primaryButton,
  secondaryButton,
  sectionsBlock,
  type TextPageContent,
} from "./shared.js";

/**
 * Centered: hero text centred over a wide call to action, sections stacked and centred.
 * Variations: 0 a glow behind the hero and a floating pill menu; 1 a badge, features on one big
 * panel; 2 an aurora band and numbered features in two columns.
 */

function pageHead(page: TextPageContent): SafeHtml {
  return pageHeader("page-head wrap", page);
}

export const centered: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    return `
.top{padding-block:calc(var(--space)*1.1)}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 1.5rem}
${
  v === 0
    ? `.top .nav ul{background:var(--surface);border:1px solid var(--border);border-radius:999px;padding:.45rem 1.1rem}`
    : v === 1
      ? `.top{border-bottom:1px solid var(--border)}`
      : `.top-row{justify-content:center;flex-direction:column}.top .nav ul{justify-content:center}`
}
.hero-band{position:relative;overflow:hidden;isolation:isolate}
.hero{text-align:center;padding-block:calc(var(--space)*5) calc(var(--space)*4)}
.hero h1{font-size:var(--display);max-width:16ch;margin-inline:auto;line-height:1.05}
.hero .lead{margin:0 auto calc(var(--space)*2);font-size:clamp(1.1rem,1rem + .5vw,1.3rem)}
.hero .actions{justify-content:center}
.hero .btn{font-size:1.05rem;padding:.85em 1.7em}
.badge{display:inline-flex;align-items:center;gap:.5rem;margin-bottom:1.5rem;padding:.35rem .9rem;border:1px solid var(--border);border-radius:999px;background:var(--surface);color:var(--muted);font-size:.9rem}
.badge b{color:var(--text)}
${
  v === 0
    ? `.hero-band::before{content:"";position:absolute;inset:-20% 10% auto;height:34rem;background:radial-gradient(closest-side,color-mix(in srgb,var(--accent) 30%,transparent),transparent);z-index:-1}
.hero-band::after{content:"";position:absolute;inset:0;z-index:-1;background-image:radial-gradient(color-mix(in srgb,var(--text) 16%,transparent) 1px,transparent 1.5px);background-size:26px 26px;-webkit-mask-image:radial-gradient(ellipse at 50% 40%,#000,transparent 70%);mask-image:radial-gradient(ellipse at 50% 40%,#000,transparent 70%)}`
    : v === 2
      ? `.hero{padding-top:calc(var(--space)*6)}
.hero-band::before{content:"";position:absolute;left:-10%;right:-10%;top:0;height:26rem;-webkit-mask-image:linear-gradient(transparent,#000 35%,#000 55%,transparent);mask-image:linear-gradient(transparent,#000 35%,#000 55%,transparent);background:linear-gradient(172deg,transparent 20%,color-mix(in srgb,var(--accent) 55%,transparent) 42%,transparent 60%),linear-gradient(186deg,transparent 30%,color-mix(in srgb,var(--accent) 35%,#38bdf8) 48%,transparent 66%);opacity:.45;filter:blur(36px);z-index:-1}
.prompt-box{display:flex;align-items:center;gap:.75rem;max-width:38rem;margin:0 auto;padding:.5rem .5rem .5rem 1.4rem;border:1px solid color-mix(in srgb,var(--accent) 45%,var(--border));border-radius:calc(var(--radius-box) * 1.4);background:color-mix(in srgb,var(--surface) 85%,transparent);box-shadow:0 0 0 6px color-mix(in srgb,var(--accent) 10%,transparent),0 20px 50px -20px color-mix(in srgb,var(--accent) 45%,transparent);text-align:left}
.prompt-box .hint{flex:1;min-width:0;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.prompt-box .btn{flex:none}
.hero .after{margin-top:1.25rem;justify-content:center}
@media (max-width:30rem){.prompt-box{flex-direction:column;align-items:stretch;padding:1rem}.prompt-box .hint{white-space:normal}}`
      : ``
}
.block{padding-block:calc(var(--space)*3.5)}
.block-head{text-align:center;max-width:44rem;margin:0 auto calc(var(--space)*2.5)}
.eyebrow{display:block;font-size:.8rem;letter-spacing:.14em;text-transform:uppercase;color:var(--muted);margin-bottom:.6rem;font-family:var(--font-body);font-weight:600}
.features{display:grid;gap:calc(var(--space)*1.5);grid-template-columns:repeat(auto-fit,minmax(min(100%,17rem),1fr));text-align:center}
.feature p{color:var(--muted);margin:0}
.feature .ico-wrap{display:inline-grid;place-items:center;width:3rem;height:3rem;margin-bottom:1rem;color:var(--link);border:1px solid var(--border);border-radius:var(--radius-box);background:var(--surface)}
${v === 0 ? `.feature .ico-wrap{border-radius:50%;box-shadow:0 0 24px color-mix(in srgb,var(--accent) 35%,transparent)}` : ""}
${
  v === 1
    ? `.panel{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:clamp(1.5rem,4vw,3rem)}
.feature .ico-wrap{background:var(--accent);color:var(--accent-text);border-color:var(--accent)}`
    : ""
}
${
  v === 2
    ? `.features{grid-template-columns:repeat(auto-fit,minmax(min(100%,24rem),1fr));text-align:left;column-gap:calc(var(--space)*3)}
.feature{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1.1rem;padding-top:1.25rem;border-top:1px solid var(--border)}
.feature .num{grid-row:span 2;font-family:var(--font-head);font-size:2.4rem;line-height:1;color:var(--link);font-weight:300}`
    : ""
}
.story{max-width:46rem;margin-inline:auto}
.story h2{text-align:center}
.story + .story{margin-top:calc(var(--space)*4)}
.story pre{margin-top:1.5rem}
.closing{margin:calc(var(--space)*2) auto calc(var(--space)*5);max-width:56rem;text-align:center;padding:clamp(2rem,6vw,4.5rem) clamp(1.25rem,4vw,3rem);border-radius:var(--radius-box);background:var(--surface);border:1px solid var(--border)}
.closing .actions{justify-content:center}
.closing p{color:var(--muted);max-width:36rem;margin:0 auto 1.75rem}
.page-head{text-align:center;padding-block:calc(var(--space)*4.5) calc(var(--space)*2.5)}
.page-head .lead{margin-inline:auto}
.column{max-width:46rem;margin:0 auto;padding-bottom:calc(var(--space)*4)}
.prose-section{margin-bottom:calc(var(--space)*2.5)}
.facts-block h2{text-align:center}
.forms{max-width:50rem;margin:0 auto}
.note{text-align:center;color:var(--muted);max-width:36rem;margin:calc(var(--space)*2) auto calc(var(--space)*4)}
.notfound{text-align:center;padding-block:calc(var(--space)*7)}
.notfound .lead{margin:0 auto 2rem}.notfound .actions{justify-content:center}
.footer{border-top:1px solid var(--border);padding-block:calc(var(--space)*2)}
${FOOTER_ROW_CSS}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 3;
    const features = html`<div class="features">${content.features.map(
      (feature, i) => html`<div class="feature">${
        v === 2 ? html`<span class="num" aria-hidden="true">${pad(i + 1)}</span>` : html`<span class="ico-wrap">${icon(i + ctx.seed)}</span>`
      }${featureText(feature)}</div>`,
    )}</div>`;
    const main = html`<div class="hero-band"><section class="hero wrap">
${v === 1 ? html`<p class="badge"><b>${ctx.site.name}</b> <span aria-hidden="true">·</span> ${content.features[0]!.title}</p>` : ""}
${heading1(content.hero.title)}
<p class="lead">${inline(content.hero.subtitle)}</p>
${
  v === 2
    ? html`<div class="prompt-box"><span class="hint" aria-hidden="true">${content.features[0]!.title}…</span>${primaryButton(ctx, content.hero.primary_cta)}</div>${
        content.hero.secondary_cta ? html`<div class="actions after">${secondaryButton(content)}</div>` : ""
      }`
    : heroActions(content, ctx)
}
</section></div>
${heroShot(content)}
<section class="block wrap" id="features" aria-labelledby="features-title">
<div class="block-head"><span class="eyebrow">${ctx.site.name}</span><h2 id="features-title">${pick(FEATURE_HEADINGS, v)}</h2></div>
${v === 1 ? html`<div class="panel">${features}</div>` : features}
</section>
${sectionsBlock(content, "block wrap")}
<div class="wrap"><section class="closing">${closingText(content)}<div class="actions">${closingButton(content, ctx)}</div></section></div>`;
    return frame(ctx, main);
  },

  about: (content, ctx) => frame(ctx, html`${pageHead(content)}<div class="column wrap">${aboutSections(content)}${factsBlock(content)}</div>`),

  faq: (content, ctx) => frame(ctx, html`${pageHead(content)}<div class="column wrap">${faqDetails(content)}</div>`),

  auth: (content, ctx) => frame(ctx, html`${pageHead(content)}<div class="wrap">${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="notfound wrap">${notFoundBody(ctx)}</div>`),
};
