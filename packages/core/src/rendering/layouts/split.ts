import { html, type SafeHtml } from "../escape.js";
import type { LandingContent } from "../../generation/page-content.js";
import { topBarFrame as frame } from "./frame.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  FEATURE_HEADINGS,
  FOOTER_ROW_CSS,
  aboutSections,
  authForms,
  checkIcon,
  closingButton,
  closingText,
  codeBlock,
  factsBlock,
  faqDetails,
  featureText,
  firstCommand,
  heroActions,
  heroShot,
  icon,
  inline,
  monogram,
  notFoundBody,
  pageHeader,
  pageTitle,
  pick,
  rich,
  sectionMedia,
  sectionId,
  sectionsBlock,
  titleAndLead,
} from "./shared.js";

/**
 * Split: the hero in two columns, the pitch on one side and a picture of the product on the other.
 * The picture is the variation: 0 a statement card listing the features, 1 a phone, 2 a code
 * window, 3 a diagram on blueprint grid. Sections alternate text and code side by side.
 */

/** The product picture beside the pitch; decorative, so hidden from assistive technology. */
function visual(content: LandingContent, ctx: RenderContext): SafeHtml {
  const v = ctx.variant % 4;
  const features = content.features.slice(0, 4);
  if (v === 0) {
    return html`<div class="visual statement" aria-hidden="true"><div class="st-head"><span>${ctx.site.name}</span><span>${ctx.site.year}</span></div>${features.map(
      (f) => html`<div class="st-row"><span>${f.title}</span><span class="st-tick">${checkIcon("ico tick")}</span></div>`,
    )}<div class="st-total"><span>All included</span><span class="st-tick">${checkIcon("ico tick")}</span></div></div>`;
  }
  if (v === 1) {
    return html`<div class="visual phone" aria-hidden="true"><div class="phone-screen"><div class="phone-notch"></div><div class="phone-app"><span class="mark">${monogram(ctx.site.name)}</span><b>${ctx.site.name}</b></div>${features
      .slice(0, 3)
      .map((f, i) => html`<div class="phone-card">${icon(i + 2)}<span>${f.title}</span></div>`)}<div class="phone-cta">${content.hero.primary_cta.label}</div></div></div>`;
  }
  if (v === 2) {
    // Up to two code samples from the sections fill the window; a bare command when there are none.
    const samples = content.sections.flatMap((s) => (s.code ? [s.code.trimEnd()] : [])).slice(0, 2);
    const code = samples.length ? samples.join("\n\n") : `$ ${firstCommand(content) ?? ctx.site.name.toLowerCase()}`;
    return html`<div class="visual window" aria-hidden="true"><div class="win-bar"><i></i><i></i><i></i><span>${ctx.site.name.toLowerCase()}</span></div><pre><code>${code}</code></pre></div>`;
  }
  return html`<div class="visual diagram" aria-hidden="true"><div class="node node-main">${ctx.site.name}</div>${features.map(
    (f, i) => html`<div class="node node-${i + 1}">${f.title}</div>`,
  )}</div>`;
}

const VISUAL_CSS = [
  `.statement{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:1.5rem 1.75rem;box-shadow:0 24px 48px -28px rgba(0,0,0,.35);font-size:.95rem}
.st-head{display:flex;justify-content:space-between;padding-bottom:.9rem;margin-bottom:.4rem;border-bottom:2px solid var(--text);font-family:var(--font-head);font-weight:var(--head-weight);font-size:1.1rem}
.st-row,.st-total{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 0;border-bottom:1px dashed var(--border)}
.st-tick{color:var(--link)}.tick{width:1.1rem;height:1.1rem}
.st-total{border-bottom:0;border-top:2px solid var(--text);margin-top:.4rem;font-weight:700}`,
  `.phone{justify-self:center;width:min(100%,18rem);aspect-ratio:9/18;padding:.7rem;border-radius:2.6rem;background:var(--text);box-shadow:0 30px 60px -30px rgba(0,0,0,.45);transform:rotate(3deg)}
.phone-screen{height:100%;border-radius:2rem;background:var(--bg);padding:1.1rem .9rem;display:flex;flex-direction:column;gap:.7rem;overflow:hidden}
.phone-notch{align-self:center;width:40%;height:1.1rem;border-radius:1rem;background:var(--text);margin-bottom:.4rem}
.phone-app{display:flex;align-items:center;gap:.5rem;font-size:1.05rem}
.phone-card{display:flex;gap:.6rem;align-items:center;padding:.8rem;border-radius:1.1rem;background:var(--surface);font-size:.85rem;line-height:1.3;color:var(--text)}
.phone-card .ico{color:var(--link)}
.phone-cta{margin-top:auto;text-align:center;padding:.7rem;border-radius:999px;background:var(--accent);color:var(--accent-text);font-weight:700;font-size:.9rem}`,
  `.window{border:1px solid var(--border);border-radius:var(--radius-box);background:var(--surface);box-shadow:0 30px 60px -30px rgba(0,0,0,.6);overflow:hidden;min-width:0}
.win-bar{display:flex;align-items:center;gap:.4rem;padding:.7rem 1rem;border-bottom:1px solid var(--border);color:var(--muted);font-family:var(--font-mono);font-size:.8rem}
.win-bar i{width:.7rem;height:.7rem;border-radius:50%;background:var(--border)}.win-bar i:first-child{background:var(--accent)}
.win-bar span{margin-left:auto}
.window pre{margin:0;border:0;border-radius:0;background:transparent;padding:1.25rem 1.4rem;font-size:.9rem}`,
  `.diagram{position:relative;display:grid;grid-template-columns:1fr 1fr;gap:2.5rem 1.5rem;padding:2rem;border:1px solid var(--border);background-color:var(--surface);background-image:linear-gradient(var(--border) 1px,transparent 1px),linear-gradient(90deg,var(--border) 1px,transparent 1px);background-size:24px 24px;font-family:var(--font-mono);font-size:.8rem}
.node{position:relative;padding:.8rem;border:1.5px solid var(--text);background:var(--bg);text-align:center;line-height:1.3}
.node-main{grid-column:1/-1;justify-self:center;padding:1rem 2rem;background:var(--accent);color:var(--accent-text);border-color:var(--accent);font-family:var(--font-head);font-size:1.3rem;text-transform:uppercase;letter-spacing:.08em}
.node-main::after{content:"";position:absolute;left:50%;top:100%;height:1.25rem;border-left:1.5px dashed var(--text)}
.node-1::before,.node-2::before,.node-3::before,.node-4::before{content:"";position:absolute;left:50%;bottom:100%;height:1.25rem;border-left:1.5px dashed var(--text)}`,
];

export const split: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 4;
    return `
.top{padding-block:calc(var(--space)*1.1);border-bottom:1px solid var(--border)}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 2rem}
${v === 3 ? `.top{background:var(--surface)}` : ""}
.hero{display:grid;grid-template-columns:minmax(0,1.1fr) minmax(0,1fr);gap:clamp(2rem,5vw,4.5rem);align-items:center;padding-block:calc(var(--space)*4.5)}
${v === 1 ? `.hero{grid-template-columns:minmax(0,1.3fr) minmax(0,.8fr)}` : ""}
.hero h1{font-size:min(var(--display),${ctx.design.look.typography.uppercaseHeadings ? "3.3rem" : "4rem"});line-height:1.05}
.hero .lead{margin-bottom:2rem}
.kicker{display:inline-block;margin-bottom:1.1rem;font-size:.85rem;font-weight:700;letter-spacing:.1em;text-transform:uppercase;color:var(--link)}
${v === 0 ? `.kicker{border-bottom:2px solid currentColor;padding-bottom:.2rem}` : ""}
${v === 1 ? `.kicker{background:var(--surface);color:var(--text);border-radius:999px;padding:.3rem .9rem;letter-spacing:.02em;text-transform:none}` : ""}
${v === 2 ? `.kicker{font-family:var(--font-mono);text-transform:none;letter-spacing:0}.kicker::before{content:"> "}` : ""}
${v === 3 ? `.kicker{border:1.5px solid currentColor;padding:.2rem .6rem;font-family:var(--font-mono)}` : ""}
${VISUAL_CSS[v]}
.band{padding-block:calc(var(--space)*4)}
${v === 0 || v === 3 ? `.band-features{background:var(--surface);border-block:1px solid var(--border)}` : ""}
.band-head{max-width:40rem;margin-bottom:calc(var(--space)*2.5)}
.features{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,22rem),1fr));gap:calc(var(--space)*1.75) calc(var(--space)*3)}
.feature{display:grid;grid-template-columns:auto 1fr;gap:0 1rem}
.feature .ico-box{grid-row:span 2;display:grid;place-items:center;width:2.75rem;height:2.75rem;border-radius:var(--radius-box);background:var(--accent);color:var(--accent-text)}
${v === 2 ? `.feature .ico-box{background:transparent;color:var(--link);border:1px solid var(--border)}` : ""}
${v === 3 ? `.feature .ico-box{border-radius:0;background:transparent;color:var(--text);border:1.5px solid var(--text)}` : ""}
.feature h3{margin:.35rem 0 .35rem}
.feature p{margin:0;color:var(--muted)}
.row{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.15fr);gap:clamp(1.5rem,4vw,4rem);align-items:start;padding-block:calc(var(--space)*2.75);border-top:1px solid var(--border)}
.row:first-child{border-top:0}
.row.text-only{grid-template-columns:minmax(0,1fr)}.row.text-only .row-text{max-width:46rem;order:0}
.row:nth-child(even) .row-text{order:2}
.row pre{margin:0}
.row-text>:last-child{margin-bottom:0}
.finale{background:var(--accent);color:var(--accent-text);padding-block:calc(var(--space)*4)}
.finale-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:1.5rem 3rem}
.finale h2{margin:0 0 .4rem}.finale p{margin:0;max-width:38rem}
.finale .btn{background:var(--accent-text);color:var(--accent);border-color:var(--accent-text)}
.page-head{padding-block:calc(var(--space)*4) calc(var(--space)*2.5);display:grid;grid-template-columns:minmax(0,1.2fr) minmax(0,1fr);gap:1rem 4rem;align-items:end;border-bottom:1px solid var(--border);margin-bottom:calc(var(--space)*3)}
.page-head h1{margin:0}.page-head .lead{margin:0}
.two{display:grid;grid-template-columns:minmax(0,1.6fr) minmax(0,1fr);gap:clamp(1.5rem,5vw,4rem);align-items:start;padding-bottom:calc(var(--space)*4)}
.two .facts{grid-template-columns:1fr}
.prose-section{margin-bottom:calc(var(--space)*2)}
.auth-grid{display:grid;grid-template-columns:minmax(0,.9fr) minmax(0,1.6fr);gap:clamp(1.5rem,5vw,4rem);padding-block:calc(var(--space)*4);align-items:start}
.auth-grid .note{color:var(--muted);border-left:3px solid var(--accent);padding-left:1rem}
.faq-wrap{max-width:50rem;padding-bottom:calc(var(--space)*4)}
.notfound{padding-block:calc(var(--space)*7)}
.footer{border-top:1px solid var(--border);padding-block:calc(var(--space)*2)}
${FOOTER_ROW_CSS}
@media (max-width:52rem){
.hero,.row,.page-head,.two,.auth-grid{grid-template-columns:minmax(0,1fr)}
.row:nth-child(even) .row-text{order:0}
.phone{width:min(80%,15rem)}
}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 4;
    const main = html`<section class="wrap hero"><div class="hero-text"><span class="kicker">${ctx.site.name}</span>${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}${heroActions(content, ctx)}</div>${content.hero.image ? heroShot(content, "visual hero-shot") : visual(content, ctx)}</section>
<section class="band band-features" id="features" aria-labelledby="features-title"><div class="wrap"><div class="band-head"><h2 id="features-title">${pick(FEATURE_HEADINGS, v + 1)}</h2></div><div class="features">${content.features.map(
      (f, i) => html`<div class="feature"><span class="ico-box">${icon(i + v)}</span>${featureText(f)}</div>`,
    )}</div></div></section>
${sectionsBlock(
  content,
  "band wrap",
  (s, i) =>
    html`<section class="row${s.code ? "" : " text-only"}" id="${sectionId(i)}"><div class="row-text"><h2>${s.title}</h2>${rich(s.body)}${sectionMedia(s)}</div>${s.code ? codeBlock(s.code) : ""}</section>`,
)}
<section class="finale"><div class="wrap finale-row"><div>${closingText(content)}</div>${closingButton(content, ctx)}</div></section>`;
    return frame(ctx, main);
  },

  about: (content, ctx) =>
    frame(ctx, html`<div class="wrap">${pageHeader("page-head", content)}<div class="two"><div>${aboutSections(content)}</div>${factsBlock(content)}</div></div>`),

  faq: (content, ctx) => frame(ctx, html`<div class="wrap">${pageHeader("page-head", content)}<div class="faq-wrap">${faqDetails(content)}</div></div>`),

  // The note stands beside the forms, under the title, rather than after them.
  auth: (content, ctx) =>
    frame(ctx, html`<div class="wrap auth-grid"><div>${pageTitle(content)}<p class="note">${inline(content.note)}</p></div>${authForms(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="wrap notfound">${notFoundBody(ctx)}</div>`),
};
