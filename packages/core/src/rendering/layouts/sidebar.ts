import { html, type SafeHtml } from "../escape.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  aboutSections,
  authFormsAndNote,
  brand,
  closingButton,
  closingText,
  copyright,
  factsBlock,
  faqDetails,
  featureText,
  footerLinks,
  heroActions,
  heroShot,
  icon,
  inline,
  nav,
  notFoundBody,
  pad,
  pageHeader,
  pick,
  primaryButton,
  sectionId,
  skipLink,
  storySection,
  titleAndLead,
} from "./shared.js";

/**
 * Sidebar: a navigation column on the left holds the menu and an "on this page" list; content reads
 * like documentation on the right. On phones the column becomes a block at the top. Variations:
 * 0 an operations console with a breadcrumb bar and a feature table; 1 a friendly app with rounded
 * menu pills and feature cards; 2 a manual with a numbered table of contents and callouts.
 */

interface Anchor {
  id: string;
  label: string;
}

function frame(ctx: RenderContext, main: SafeHtml, anchors: Anchor[], crumb: string): SafeHtml {
  const v = ctx.variant % 3;
  const toc = anchors.length
    ? html`<nav class="toc" aria-label="On this page"><p class="side-label" aria-hidden="true">On this page</p><ol>${anchors.map(
        (a, i) => html`<li><a href="#${a.id}">${v === 2 ? html`<span class="toc-n" aria-hidden="true">${i + 1}.</span> ` : ""}${a.label}</a></li>`,
      )}</ol></nav>`
    : "";
  return html`${skipLink()}
<div class="shell">
<header class="side">${brand(ctx)}${nav(ctx, { className: "nav side-nav" })}${toc}<div class="side-foot">${primaryButton(ctx, ctx.site.type === "saas" ? "Open the app" : "Source code", "btn side-btn")}</div></header>
<div class="content">
<div class="crumbs" aria-hidden="true"><span>${ctx.site.name}</span><span class="sep">/</span><span>${crumb}</span></div>
<main id="main">${main}</main>
<footer class="footer"><nav aria-label="Footer">${footerLinks(ctx)}</nav><p>${copyright(ctx)}</p></footer>
</div>
</div>`;
}

export const sidebar: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    return `
.shell{display:grid;grid-template-columns:17rem minmax(0,1fr);min-height:100vh}
.side{position:sticky;top:0;height:100vh;overflow-y:auto;display:flex;flex-direction:column;gap:1.75rem;padding:1.5rem 1.25rem;border-right:1px solid var(--border);background:var(--surface)}
${v === 0 ? `.side{background:var(--bg)}.side .brand{text-transform:uppercase;letter-spacing:.08em;font-size:1rem}` : ""}
${v === 2 ? `.side{background:var(--bg)}` : ""}
.side-nav ul{flex-direction:column;gap:.15rem}
.side-nav a{display:block;padding:.4rem .7rem;border-radius:min(var(--radius),10px)}
.side-nav a:hover{background:color-mix(in srgb,var(--text) 7%,transparent);text-decoration:none}
.side-nav a[aria-current="page"]{background:var(--accent);color:var(--accent-text);text-decoration:none}
${v === 0 ? `.side-nav a{border-left:2px solid transparent;border-radius:0;font-size:.92rem;text-transform:uppercase;letter-spacing:.06em}.side-nav a[aria-current="page"]{background:transparent;color:var(--link);border-left-color:var(--link)}` : ""}
${v === 1 ? `.side-nav a{border-radius:999px;padding-inline:1rem}` : ""}
${v === 2 ? `.side-nav a[aria-current="page"]{background:transparent;color:var(--link);font-weight:700}` : ""}
.side-label{margin:0 0 .5rem;font-size:.75rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--muted)}
.toc ol{list-style:none;margin:0;padding:0;border-left:1px solid var(--border)}
.toc a{display:block;padding:.25rem .8rem;font-size:.9rem;color:var(--muted);text-decoration:none;line-height:1.4}
.toc a:hover{color:var(--text)}
.toc-n{color:var(--link)}
.side-foot{margin-top:auto}
.side-btn{width:100%;font-size:.95rem}
.crumbs{display:flex;flex-wrap:wrap;gap:.6rem;padding:.9rem clamp(1.25rem,4vw,3.5rem);border-bottom:1px solid var(--border);font-size:.85rem;color:var(--muted)}
${v === 0 ? `.crumbs{font-family:var(--font-mono);text-transform:uppercase;letter-spacing:.08em;background:var(--surface)}` : ""}
${v === 1 ? `.crumbs{display:none}` : ""}
.content main{padding:clamp(1.5rem,4vw,3.5rem);max-width:58rem}
.doc-head{padding-bottom:2rem;margin-bottom:2rem;border-bottom:1px solid var(--border)}
.doc-head h1{font-size:var(--h1)}
.landing .doc-head h1{font-size:clamp(2.1rem,1.2rem + 3vw,3.6rem);line-height:1.08}
${v === 1 ? `.doc-head{background:var(--surface);border:0;border-radius:var(--radius-box);padding:clamp(1.5rem,4vw,2.75rem)}` : ""}
.doc-section{padding-block:1.5rem}
.doc-section>h2{padding-bottom:.4rem}
${v === 2 ? `.doc-section>h2{border-bottom:1px solid var(--border)}` : ""}
.ftable{display:grid;grid-template-columns:minmax(0,14rem) minmax(0,1fr);border:1px solid var(--border);border-radius:var(--radius-box);overflow:hidden}
.ftable h3,.ftable p{margin:0;padding:.9rem 1.1rem;border-top:1px solid var(--border)}
.ftable h3{font-size:1rem;background:var(--surface);text-transform:none;letter-spacing:0;display:flex;gap:.6rem;align-items:center}
.ftable h3 .ico{color:var(--link);width:1.2rem;height:1.2rem}
.ftable p{color:var(--muted)}
.ftable>:nth-child(1),.ftable>:nth-child(2){border-top:0}
.fcards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,15rem),1fr));gap:1rem}
.fcards>div{padding:1.25rem;border-radius:var(--radius-box);background:var(--surface);border:1px solid var(--border)}
.fcards .ico{color:var(--link);margin-bottom:.5rem}
.fcards h3{font-size:1.1rem;margin-bottom:.3rem}.fcards p{margin:0;color:var(--muted);font-size:.95rem}
.flist{margin:0;padding:0;list-style:none;counter-reset:f}
.flist li{padding:.9rem 0 .9rem 3rem;position:relative;border-bottom:1px dotted var(--border)}
.flist li .n{position:absolute;left:0;top:.9rem;font-family:var(--font-mono);color:var(--link)}
.flist h3{font-size:1.1rem;margin-bottom:.2rem}.flist p{margin:0;color:var(--muted)}
.callout{margin-block:2rem;padding:1.5rem 1.75rem;border-left:4px solid var(--accent);background:var(--surface);border-radius:0 var(--radius-box) var(--radius-box) 0}
.callout h2{font-size:var(--h3)}.callout p{color:var(--muted)}
.two-facts .facts{grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr))}
.note{color:var(--muted);margin-top:2rem}
.footer{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 2rem;padding:1.5rem clamp(1.5rem,4vw,3.5rem) 2rem;border-top:1px solid var(--border)}
.footer p{margin:0}
@media (max-width:56rem){
.shell{grid-template-columns:minmax(0,1fr)}
.side{position:static;height:auto;flex-direction:row;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 1.5rem;border-right:0;border-bottom:1px solid var(--border);padding:1rem clamp(1rem,4vw,2rem)}
.side-nav ul{flex-direction:row;flex-wrap:wrap}
.side-nav a{padding:.3rem .6rem}
.toc,.side-foot{display:none}
.crumbs{padding-inline:clamp(1rem,4vw,2rem)}
.content main{padding:1.5rem clamp(1rem,4vw,2rem)}
.ftable{grid-template-columns:minmax(0,1fr)}
.ftable>:nth-child(2){border-top:0}.ftable p{border-top:0}
}
`;
  },

  landing: (content, ctx) => {
    const v = ctx.variant % 3;
    const features =
      v === 0
        ? html`<div class="ftable">${content.features.map((f, i) => html`<h3>${icon(i + 3)}${f.title}</h3><p>${inline(f.body)}</p>`)}</div>`
        : v === 1
          ? html`<div class="fcards">${content.features.map((f, i) => html`<div>${icon(i + 5)}${featureText(f)}</div>`)}</div>`
          : html`<ol class="flist">${content.features.map((f, i) => html`<li><span class="n" aria-hidden="true">${pad(i + 1)}</span>${featureText(f)}</li>`)}</ol>`;
    const featuresTitle = pick(["Capabilities", "What you can do", "Contents"], v);
    const anchors: Anchor[] = [
      { id: "features", label: featuresTitle },
      ...content.sections.map((s, i) => ({ id: sectionId(i), label: s.title })),
      { id: "get-started", label: content.closing.title },
    ];
    const main = html`<div class="landing"><header class="doc-head">${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}${heroActions(content, ctx)}</header>
${heroShot(content, "hero-shot")}
<section class="doc-section" id="features" aria-labelledby="features-title"><h2 id="features-title">${featuresTitle}</h2>${features}</section>
${content.sections.map((s, i) => storySection(s, i, "doc-section"))}
<section class="callout" id="get-started">${closingText(content)}${closingButton(content, ctx)}</section></div>`;
    return frame(ctx, main, anchors, "Overview");
  },

  about: (content, ctx) => {
    const aboutId = (index: number) => `about-${index + 1}`;
    const anchors: Anchor[] = content.sections.map((s, i) => ({ id: aboutId(i), label: s.title }));
    if (content.facts.length) anchors.push({ id: "facts", label: "At a glance" });
    return frame(
      ctx,
      html`${pageHeader("doc-head", content)}${aboutSections(content, "doc-section", aboutId)}<div class="two-facts" id="facts">${factsBlock(content)}</div>`,
      anchors,
      "About",
    );
  },

  faq: (content, ctx) => frame(ctx, html`${pageHeader("doc-head", content)}${faqDetails(content)}`, [], "FAQ"),

  auth: (content, ctx) => frame(ctx, html`${pageHeader("doc-head", content)}${authFormsAndNote(content)}`, [], content.sign_in_label),

  notFound: (ctx) => frame(ctx, notFoundBody(ctx), [], "404"),
};
