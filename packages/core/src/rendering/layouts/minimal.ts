import { html, type SafeHtml } from "../escape.js";
import { pageFrame } from "./frame.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  aboutSections,
  authFormsAndNote,
  brand,
  codeBlock,
  copyright,
  factsBlock,
  faqList,
  footerLinks,
  inline,
  nav,
  notFoundBody,
  pad,
  pageTitle,
  heroShot,
  primaryButton,
  rich,
  sectionMedia,
  secondaryButton,
  sectionId,
  titleAndLead,
} from "./shared.js";

/**
 * Minimal: text only, a single column, generous whitespace, one link colour and no decoration. The
 * product name is the mark. Variations: 0 capital headings with numbered sections and a rule under
 * the name; 1 comment-style markers in monospace, centred column.
 */

/** Header, content and footer share the one column; the name stands alone when there is no logo. */
function frame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  return pageFrame({
    header: html`<header class="top col">${brand(ctx, { logoSize: 28, withoutLogo: "nothing" })}${nav(ctx)}</header>`,
    main,
    mainClass: "col",
    footer: html`<footer class="footer col"><p>${copyright(ctx)}</p><nav aria-label="Footer">${footerLinks(ctx)}</nav></footer>`,
  });
}

export const minimal: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 2;
    return `
.col{max-width:${v === 0 ? "42rem" : "40rem"};margin-inline:${v === 0 ? "max(0rem,calc(14vw - 3rem)) auto" : "auto"};padding-inline:1.25rem}
body{line-height:1.75}
.top{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.75rem 2rem;padding-block:calc(var(--space)*3) calc(var(--space)*1)}
${v === 0 ? `.top{border-bottom:2px solid var(--link);padding-bottom:.9rem}` : ""}
.brand{font-size:1rem;font-weight:700}
.nav ul{gap:.25rem 1.1rem;font-size:.95rem}
.nav li+li::before{content:"/";content:"/" / "";color:var(--muted);margin-inline:.7rem}
.nav ul{gap:.25rem 0}
.nav a{color:var(--link)}
.nav a[aria-current="page"]{color:var(--text);text-decoration:none}
main{padding-block:calc(var(--space)*4) calc(var(--space)*3)}
h1{font-size:${v === 0 ? "clamp(1.9rem,1.3rem + 2vw,2.7rem)" : "clamp(1.6rem,1.2rem + 1.6vw,2.2rem)"};line-height:1.2;margin-bottom:1.25rem}
${v === 1 ? `h1::before{content:"// ";content:"// " / "";color:var(--muted);font-weight:400}` : ""}
h2{font-size:var(--h3);margin-top:calc(var(--space)*3)}
h3{font-size:1rem;display:inline;margin:0}
.lead{color:var(--muted);font-size:1.1rem}
.go{margin-top:1.75rem;display:flex;flex-wrap:wrap;gap:.5rem 1.75rem}
.go a{font-weight:700}
.go a::after{content:" \\2192";content:" \\2192" / ""}
.btn{background:transparent;color:var(--text);border:1px solid var(--text);border-radius:0;min-height:2.5rem;padding:.5em 1.1em}
.btn:hover{background:var(--text);color:var(--bg);filter:none}
.flist{list-style:none;padding:0;margin:0}
.flist li{margin-bottom:1rem}
.flist li::before{content:"${v === 0 ? "\\2014" : "-"}";content:"${v === 0 ? "\\2014" : "-"}" / "";color:var(--muted);margin-right:.6rem}
.flist p{display:inline;margin:0;color:var(--muted)}
${v === 0 ? `.num{color:var(--link);font-size:.8em;margin-right:.6rem;letter-spacing:.08em}` : `.num{display:none}`}
pre{border-radius:0;${v === 0 ? "border:0;border-left:2px solid var(--link)" : "border:1px solid var(--border)"}}
.facts{display:block;background:none;border:0;border-radius:0}
.facts div{background:none;border:0;padding:.25rem 0;display:flex;flex-wrap:wrap;gap:.5rem}
.facts dt{font-size:inherit;text-transform:none;letter-spacing:0}
.facts dt::after{content:":"}
.facts dd{margin:0;font-weight:400}
.qlist .q h2{font-size:1.05rem;margin:2.25rem 0 .5rem}
.q-n{color:var(--muted)}
.forms{grid-template-columns:minmax(0,1fr);gap:2.5rem;margin-top:2.5rem}
.form{background:none;border:0;padding:0;border-radius:0}
.form h2{font-size:var(--h3);margin:0}
.form .btn{width:auto;justify-self:start}
.field input{border-radius:0;background:transparent}
.note{color:var(--muted);margin-top:2.5rem}
.footer{padding-block:1.5rem calc(var(--space)*4);color:var(--muted);font-size:.9rem}
@media (max-width:40rem){.nav li+li::before{content:none}.nav ul{gap:.25rem 1rem}}
.footer p{margin:0 0 .5rem}
`;
  },

  landing: (content, ctx) => {
    const main = html`${titleAndLead(content.hero.title, content.hero.subtitle, "lead", true)}
<p class="go">${primaryButton(ctx, content.hero.primary_cta, "cta")}${
      secondaryButton(content, "alt")
    }</p>
${heroShot(content, "hero-shot")}
<section id="features" aria-labelledby="features-title"><h2 id="features-title"><span class="num" aria-hidden="true">${pad(1)}</span>${
      ctx.variant % 2 === 0 ? "Features" : "What it does"
    }</h2><ul class="flist">${content.features.map((f) => html`<li><h3>${f.title}.</h3> <p>${inline(f.body)}</p></li>`)}</ul></section>
${content.sections.map(
  (s, i) =>
    html`<section id="${sectionId(i)}"><h2><span class="num" aria-hidden="true">${pad(i + 2)}</span>${s.title}</h2>${rich(s.body)}${sectionMedia(s)}${s.code ? codeBlock(s.code) : ""}</section>`,
)}
<section><h2><span class="num" aria-hidden="true">${pad(content.sections.length + 2)}</span>${content.closing.title}</h2>${content.closing.body ? html`<p>${inline(content.closing.body)}</p>` : ""}<p class="go">${primaryButton(ctx, content.closing.cta, "cta")}</p></section>`;
    return frame(ctx, main);
  },

  about: (content, ctx) => frame(ctx, html`${pageTitle(content)}${aboutSections(content)}${factsBlock(content, "Facts")}`),

  faq: (content, ctx) => frame(ctx, html`${pageTitle(content)}${faqList(content)}`),

  auth: (content, ctx) => frame(ctx, html`${pageTitle(content)}${authFormsAndNote(content)}`),

  notFound: (ctx) => frame(ctx, notFoundBody(ctx)),
};
