import { html, type SafeHtml } from "../escape.js";
import { headerRow, pageFrame } from "./frame.js";
import { plainText } from "../inline-text.js";
import type { Layout, RenderContext } from "./layout.js";
import {
  aboutSections,
  authFormsAndNote,
  closingButton,
  closingText,
  codeBlock,
  copyright,
  factsBlock,
  faqList,
  featureText,
  footerLinks,
  heroButtons,
  heroShot,
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
 * Editorial: a narrow reading column that reads like an article: a masthead, a large headline with a
 * standfirst, numbered points, a pull quote and a drop cap. Variations: 0 a centred masthead with a
 * crimson drop cap; 1 section marks (§) and a rule down the side; 2 an italic standfirst and ornaments.
 */

const ORNAMENTS = ["✻", "§", "* * *"] as const;

/** The variation's ornament: it closes the footer, the closing call and the text pages. */
function ornament(ctx: RenderContext): SafeHtml {
  return html`<p class="ornament" aria-hidden="true">${pick(ORNAMENTS, ctx.variant)}</p>`;
}

function frame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  return pageFrame({
    header: headerRow(ctx, { headerClass: "masthead", rowClass: "col masthead-row" }),
    main,
    footer: html`<footer class="footer"><div class="col">${ornament(ctx)}<nav aria-label="Footer">${footerLinks(ctx)}</nav><p>${copyright(ctx)}</p></div></footer>`,
  });
}

/** A text page's head set like an article's: a dateline, the headline and the standfirst. */
function articleHead(dateline: string, page: TextPageContent): SafeHtml {
  return pageHeader("col article-head", page, { above: html`<p class="dateline">${dateline}</p>`, leadClass: "standfirst" });
}

/** The first sentence of a text, for the pull quote. */
function firstSentence(text: string): string {
  const match = /^(.{20,220}?[.!?])(\s|$)/s.exec(plainText(text).trim());
  return (match?.[1] ?? text).replace(/`/g, "");
}

export const editorial: Layout = {
  css: (ctx) => {
    const v = ctx.variant % 3;
    return `
.col{width:100%;max-width:42rem;margin-inline:auto;padding-inline:clamp(1.1rem,5vw,2rem)}
.wide{max-width:60rem}
body{font-size:1.125rem;line-height:1.75}
.masthead{padding-block:calc(var(--space)*1.5) calc(var(--space)*1.1);border-bottom:1px solid var(--border)}
.masthead-row{display:flex;flex-direction:column;align-items:center;gap:.8rem;max-width:60rem}
.masthead .brand{font-size:1.6rem}
.masthead .nav ul{justify-content:center;font-size:.85rem;letter-spacing:.12em;text-transform:uppercase;gap:.25rem 1.6rem}
${v === 1 ? `.masthead-row{flex-direction:row;flex-wrap:wrap;justify-content:space-between}.masthead .brand{font-size:1.15rem}.masthead{border-bottom:2px solid var(--accent)}` : ""}
${v === 2 ? `.article-head{text-align:center}.article-head .byline{justify-content:center}.article-head h1{margin-inline:auto;max-width:14ch}.standfirst{margin-inline:auto;max-width:34rem}` : ""}
${v === 2 ? `.masthead{border-bottom:0}.masthead-row{border-bottom:1px solid var(--text);padding-bottom:1rem}.masthead .mark{border-radius:50%}` : ""}
.article-head{padding-block:calc(var(--space)*5) calc(var(--space)*2.5)}
.dateline{font-size:.8rem;letter-spacing:.16em;text-transform:uppercase;color:var(--muted);margin-bottom:1.5rem}
.article-head h1{font-size:var(--display);line-height:1.05;letter-spacing:${v === 1 ? "0.02em" : "-0.02em"}}
.standfirst{font-size:1.3rem;line-height:1.55;color:var(--muted)${v === 2 ? ";font-style:italic" : ""}}
.byline{display:flex;flex-wrap:wrap;align-items:center;gap:1rem 1.5rem;margin-top:2rem;padding-top:1.25rem;border-top:1px solid var(--border)}
.byline .btn-alt{border:0;padding-inline:0;text-decoration:underline;text-underline-offset:.25em;color:var(--link)}
.ornament{text-align:center;color:var(--link);font-size:1.4rem;letter-spacing:.3em;margin:calc(var(--space)*2) 0}
.points{padding-block:calc(var(--space)*2)}
.points>h2{font-size:.9rem;letter-spacing:.16em;text-transform:uppercase;color:var(--muted);font-family:var(--font-body);font-weight:700;border-bottom:1px solid var(--border);padding-bottom:.6rem}
.point{display:grid;grid-template-columns:3.2rem 1fr;gap:0 1rem;padding-block:1.1rem;border-bottom:1px solid var(--border)}
.point .n{font-family:var(--font-head);font-size:1.9rem;line-height:1.1;color:var(--link)}
.point h3{margin-bottom:.3rem}.point p{margin:0;color:var(--muted)}
.pull{margin:calc(var(--space)*3) 0;padding:0;border:0;font-family:var(--font-head);font-size:clamp(1.5rem,1.1rem + 1.5vw,2.1rem);line-height:1.3;font-weight:var(--head-weight);text-align:center}
.pull p{margin:0}
.pull::before{content:"\\201C";display:block;font-size:3.5rem;line-height:.8;color:var(--link)}
${v === 1 ? `.pull{text-align:left;border-left:4px solid var(--accent);padding-left:1.5rem}.pull::before{content:none}` : ""}
.chapter{padding-block:calc(var(--space)*1.5)}
.chapter h2{margin-top:.5rem}
${v === 1 ? `.chapter{border-left:1px solid var(--border);padding-left:1.5rem;margin-left:-1.5rem}.chapter .mark-s{display:block;font-family:var(--font-mono);font-size:.85rem;color:var(--link)}` : `.chapter .mark-s{display:none}`}
.chapter:first-of-type>p:first-of-type::first-letter{float:left;font-family:var(--font-head);font-size:3.9em;line-height:.82;padding:.06em .06em 0 0;margin-right:.04em;color:var(--link);font-weight:var(--head-weight)}
.coda{margin-block:calc(var(--space)*3) calc(var(--space)*5);padding-top:calc(var(--space)*2);border-top:3px double var(--border);text-align:center}
.coda p{color:var(--muted)}
.coda .actions{justify-content:center}
.qlist .q{padding-block:1.25rem;border-bottom:1px solid var(--border)}
.qlist .q h2{font-size:var(--h3);line-height:1.3}
.q-n{color:var(--link);font-family:var(--font-mono);font-size:.8em;margin-right:.4rem}
.qlist .q p:last-child{margin-bottom:0}
.facts-block{margin-top:calc(var(--space)*2)}
.forms{margin-block:calc(var(--space)*2)}
.note{color:var(--muted);font-style:italic;text-align:center;margin-bottom:calc(var(--space)*4)}
.notfound{padding-block:calc(var(--space)*6)}
.footer{border-top:1px solid var(--border);padding-block:calc(var(--space)*1) calc(var(--space)*2);text-align:center}
.footer .ornament{margin-top:0}
.footer ul{justify-content:center;margin-bottom:1rem}
`;
  },

  landing: (content, ctx) => {
    // The pull quote sits after the first chapter and quotes the closing words, far from where they appear.
    const quote = content.closing.body ? html`<blockquote class="pull"><p>${firstSentence(content.closing.body)}</p></blockquote>` : html``;
    const chapters = content.sections.map(
      (s, i) =>
        html`<section class="chapter" id="${sectionId(i)}"><span class="mark-s" aria-hidden="true">§ ${pad(i + 1)}</span><h2>${s.title}</h2>${rich(s.body)}${sectionMedia(s)}${s.code ? codeBlock(s.code) : ""}</section>`,
    );
    const main = html`<article>
<header class="col article-head"><p class="dateline">${ctx.site.name} <span aria-hidden="true">—</span> ${ctx.site.year}</p>${titleAndLead(content.hero.title, content.hero.subtitle, "standfirst", true)}
<div class="byline">${heroButtons(content, ctx)}</div></header>
${heroShot(content, "hero-shot col")}
<section class="col points" id="features" aria-labelledby="features-title"><h2 id="features-title">${pick(["In brief", "The essentials", "What matters"], ctx.variant)}</h2>${content.features.map(
      (f, i) => html`<div class="point"><span class="n" aria-hidden="true">${pad(i + 1)}</span><div>${featureText(f)}</div></div>`,
    )}</section>
<div class="col">${chapters.length ? html`${chapters[0]}${quote}${chapters.slice(1)}` : quote}
<section class="coda">${ornament(ctx)}${closingText(content)}<div class="actions">${closingButton(content, ctx)}</div></section></div>
</article>`;
    return frame(ctx, main);
  },

  about: (content, ctx) =>
    frame(
      ctx,
      html`<article>${articleHead(`About ${ctx.site.name}`, content)}<div class="col">${aboutSections(content, "chapter")}${factsBlock(content)}${ornament(ctx)}</div></article>`,
    ),

  faq: (content, ctx) => frame(ctx, html`<article>${articleHead(ctx.site.name, content)}<div class="col">${faqList(content, true)}${ornament(ctx)}</div></article>`),

  // Not an article: the two forms get the wider column.
  auth: (content, ctx) => frame(ctx, html`${articleHead(ctx.site.name, content)}<div class="col wide">${authFormsAndNote(content)}</div>`),

  notFound: (ctx) => frame(ctx, html`<div class="col notfound">${notFoundBody(ctx)}</div>`),
};
