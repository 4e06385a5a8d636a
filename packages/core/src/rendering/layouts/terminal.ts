import { html, type SafeHtml } from "../escape.js";
import type { LandingContent } from "../../generation/page-content.js";
import { headerRow, pageFrame } from "./frame.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  FOOTER_ROW_CSS,
  aboutSections,
  authFormsAndNote,
  brand,
  closingButton,
  closingText,
  factsBlock,
  faqDetails,
  featureText,
  firstCommand,
  footer,
  heroActions,
  heroShot,
  nav,
  notFoundBody,
  pad,
  pageTitle,
  sectionsBlock,
  titleAndLead,
} from "./shared.js";

/**
 * Terminal: monospace throughout; the hero is a terminal window running the install command and
 * printing the features. Variations: 0 the window beside the pitch with a prompt-style menu; 1 the
 * window across the page under the pitch with a tmux-like status line and a tab-style menu.
 */

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "site";
}

/** The header reads like a shell: the name as a home directory, menu entries as paths, the copyright as a comment. */
function frame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  const pathMark = ctx.variant % 2 === 0 ? "./" : "";
  return pageFrame({
    header: headerRow(ctx, {
      brand: brand(ctx, { logoSize: 28, beforeName: html`<span class="prompt" aria-hidden="true">~/</span>` }),
      menu: nav(ctx, { itemContent: (item) => html`<span aria-hidden="true">${pathMark}</span>${item.label.toLowerCase()}` }),
    }),
    main,
    footer: footer(ctx, { beforeCopyright: html`<span aria-hidden="true"># </span>` }),
  });
}

function session(content: LandingContent, ctx: RenderContext): SafeHtml {
  const command = firstCommand(content) ?? (ctx.site.type === "saas" ? `open ${ctx.primary.href}` : `git clone ${slug(ctx.site.name)}`);
  const status =
    ctx.variant % 2 === 1
      ? html`<div class="status" aria-hidden="true"><span class="seg seg-1">${slug(ctx.site.name)}</span><span class="seg seg-2">main</span><span class="seg-fill"></span><span class="seg seg-3">${content.features.length} ok</span></div>`
      : "";
  return html`<div class="term" aria-hidden="true"><div class="term-bar"><i></i><i></i><i></i><span>${slug(ctx.site.name)} — zsh</span></div><div class="term-body"><p><span class="ps">$</span> ${command}</p>${content.features.map(
    (f) => html`<p><span class="ok">✓</span> ${f.title}</p>`,
  )}<p><span class="ps">$</span> <span class="cursor"></span></p></div>${status}</div>`;
}

export const terminal: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 2;
    // The session reads as a screen sunk into the page: darker than the page in the dark scheme, the raised surface in the light one.
    const sunk = ctx.theme.scheme === "dark" ? "color-mix(in srgb,var(--bg) 65%,#000)" : "var(--surface)";
    return `
body{font-size:1rem;line-height:1.7}
h1,h2,h3{letter-spacing:0}
.top{border-bottom:1px solid var(--border);padding-block:.9rem}
.top-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 2rem}
.brand{font-family:var(--font-mono);font-size:1rem}
.prompt{color:var(--link)}
.brand .mark{width:1.75rem;height:1.75rem;font-size:.8rem}
.nav{font-family:var(--font-mono);font-size:.95rem}
${
  v === 1
    ? `.top{background:var(--surface)}.nav ul{gap:.25rem}.nav a{display:block;padding:.25rem .75rem;border:1px solid var(--border);border-radius:var(--radius)}.nav a[aria-current="page"]{background:var(--accent);color:var(--accent-text);border-color:var(--accent);text-decoration:none}`
    : ``
}
.hero{display:grid;grid-template-columns:${v === 0 ? "minmax(0,1fr) minmax(0,1.1fr)" : "minmax(0,1fr)"};gap:clamp(2rem,4vw,3.5rem);align-items:center;padding-block:calc(var(--space)*4.5) calc(var(--space)*3.5)}
.hero h1{font-size:clamp(1.9rem,1.2rem + 2.6vw,3.1rem);line-height:1.15}
.hero h1::before{content:"# ";content:"# " / "";color:var(--link)}
${v === 1 ? `.hero-text{max-width:52rem}` : ""}
.hero .lead{margin-bottom:1.75rem;font-size:1.05rem}
.btn{font-family:var(--font-mono);font-weight:700}
.btn::before{content:"[ ";content:"[ " / ""}.btn::after{content:" ]";content:" ]" / ""}
.term{background:${v === 0 ? sunk : "var(--surface)"};border:1px solid var(--border);border-radius:var(--radius-box);overflow:hidden;box-shadow:0 24px 60px -30px #000;font-family:var(--font-mono);font-size:.92rem;min-width:0}
.term-bar{display:flex;gap:.45rem;align-items:center;padding:.65rem .9rem;background:var(--surface);border-bottom:1px solid var(--border);color:var(--muted);font-size:.8rem}
.term-bar i{width:.75rem;height:.75rem;border-radius:50%;background:var(--border)}
.term-bar i:nth-child(1){background:#ff5f57}.term-bar i:nth-child(2){background:#febc2e}.term-bar i:nth-child(3){background:#28c840}
.term-bar span{flex:1;text-align:center;margin-right:2.5rem}
.term-body{padding:1.1rem 1.25rem}
.term-body p{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.ps{color:var(--link)}.ok{color:var(--link)}
.cursor{display:inline-block;width:.6em;height:1.1em;vertical-align:text-bottom;background:var(--text)}
.status{display:flex;font-size:.8rem;background:var(--bg);border-top:1px solid var(--border)}
.seg{padding:.2rem .8rem}.seg-1{background:var(--accent);color:var(--accent-text);font-weight:700}.seg-2{background:var(--border);color:var(--text)}.seg-fill{flex:1}.seg-3{color:var(--muted)}
.section-title{font-size:var(--h2);margin-bottom:1.5rem}
.section-title::before,.story h2::before{content:"## ";content:"## " / "";color:var(--muted)}
.block{padding-block:calc(var(--space)*3);border-top:1px dashed var(--border)}
.features{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,${v === 0 ? "20rem" : "30rem"}),1fr));gap:1.25rem 2.5rem}
.features li{display:grid;grid-template-columns:auto 1fr;gap:0 .9rem}
.features .idx{color:var(--link);font-family:var(--font-mono)}
.features h3{font-size:1.05rem;margin:0 0 .25rem}
.features p{margin:0;color:var(--muted);font-size:.95rem}
${v === 1 ? `.features li{padding:1rem 1.1rem;border:1px solid var(--border);border-radius:var(--radius-box);background:var(--surface)}` : ""}
.story{max-width:52rem}
.story+.story{margin-top:calc(var(--space)*3)}
.story h2{font-size:var(--h3)}
.story pre{position:relative;background:${v === 0 ? sunk : "var(--surface)"}}
.closing{padding:calc(var(--space)*2.5);margin-block:calc(var(--space)*1) calc(var(--space)*4);border:1px dashed var(--link);border-radius:var(--radius-box)}
.closing p{color:var(--muted)}
.page{padding-block:calc(var(--space)*4)}
.page h1{font-size:clamp(1.8rem,1.2rem + 2vw,2.6rem)}
.page h1::before{content:"# ";content:"# " / "";color:var(--link)}
.page .lead{margin-bottom:2.5rem}
.col{max-width:52rem}
.prose-section h2::before,.facts-block h2::before,.form h2::before{content:"## ";content:"## " / "";color:var(--muted)}
.prose-section{margin-bottom:2rem}
.prose-section h2,.facts-block h2{font-size:var(--h3)}
.qa summary{font-family:var(--font-mono);font-size:1rem}
.qa summary::before{content:"?";content:"?" / "";color:var(--link);margin-right:.25rem}
.qa summary::after{content:"[+]";content:"[+]" / "";font-family:var(--font-mono);font-size:.9rem}
.qa[open] summary::after{content:"[-]";content:"[-]" / ""}
.note{color:var(--muted);margin-top:2rem}
.note::before{content:"// ";content:"// " / ""}
.footer{border-top:1px solid var(--border);padding-block:1.5rem;font-family:var(--font-mono);font-size:.85rem}
${FOOTER_ROW_CSS}
@media (max-width:52rem){.hero{grid-template-columns:minmax(0,1fr)}}
`;
  },

  landing: (content, ctx) => {
    const main = html`<section class="wrap hero"><div class="hero-text">${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}${heroActions(content, ctx)}</div>${session(content, ctx)}</section>
${heroShot(content)}
<section class="wrap block" id="features" aria-labelledby="features-title"><h2 class="section-title" id="features-title">${ctx.variant % 2 === 0 ? "features" : "what it does"}</h2><ul class="features">${content.features.map(
      (f, i) => html`<li><span class="idx" aria-hidden="true">[${pad(i + 1)}]</span><div>${featureText(f)}</div></li>`,
    )}</ul></section>
${sectionsBlock(content, "wrap block")}
<div class="wrap"><section class="closing">${closingText(content)}${closingButton(content, ctx)}</section></div>`;
    return frame(ctx, main);
  },

  about: (content, ctx) => frame(ctx, html`<div class="wrap page col">${pageTitle(content)}${aboutSections(content)}${factsBlock(content, "facts")}</div>`),

  faq: (content, ctx) => frame(ctx, html`<div class="wrap page col">${pageTitle(content)}${faqDetails(content)}</div>`),

  auth: (content, ctx) => frame(ctx, html`<div class="wrap page">${pageTitle(content)}${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="wrap page">${notFoundBody(ctx)}</div>`),
};
