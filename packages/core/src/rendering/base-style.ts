/**
 * CSS every layout starts from: reset, type, links, buttons, code, forms, questions and the logo.
 * Everything reads the custom properties `themeCss` sets, so this sheet is the same for all designs.
 */
export const BASE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%;scroll-padding-top:1rem}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font-family:var(--font-body);font-size:1.0625rem;line-height:1.65;overflow-wrap:break-word;-webkit-font-smoothing:antialiased}
h1,h2,h3{font-family:var(--font-head);font-weight:var(--head-weight);text-transform:var(--head-case);letter-spacing:var(--head-track);line-height:1.15;margin:0 0 .55em;text-wrap:balance}
h1{font-size:var(--h1)}h2{font-size:var(--h2)}h3{font-size:var(--h3);line-height:1.3}
p{margin:0 0 1em}
main{display:block;min-height:55vh}
ul,ol{padding-left:1.25em}
a{color:var(--link);text-underline-offset:.18em;text-decoration-thickness:1px}
a:hover{text-decoration-thickness:2px}
.text-link{color:inherit;text-decoration:underline}
:focus-visible{outline:3px solid var(--focus);outline-offset:3px}
img{max-width:100%;height:auto}
svg{flex:none}
.wrap{width:100%;max-width:72rem;margin-inline:auto;padding-inline:clamp(1rem,4vw,2.5rem)}
.skip{position:absolute;left:1rem;top:-5rem;z-index:100;padding:.6rem 1rem;background:var(--accent);color:var(--accent-text);font-weight:700;border-radius:var(--radius-box)}
.skip:focus{top:1rem}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.brand{display:inline-flex;align-items:center;gap:.6rem;color:var(--text);text-decoration:none;font-family:var(--font-head);font-weight:var(--head-weight);font-size:1.15rem;letter-spacing:var(--head-track);line-height:1.2;min-width:0}
.brand img{width:2rem;height:2rem;object-fit:contain;border-radius:calc(var(--radius-box) / 3)}
.mark{display:inline-grid;place-items:center;flex:none;width:2rem;height:2rem;background:var(--accent);color:var(--accent-text);font-family:var(--font-head);font-weight:700;font-size:.95rem;line-height:1;border-radius:calc(var(--radius-box) / 2.5);text-transform:uppercase;letter-spacing:0}
.nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
.nav a{color:var(--text);text-decoration:none}
.nav a:hover{text-decoration:underline}
.nav a[aria-current="page"]{color:var(--link);text-decoration:underline;text-decoration-thickness:2px}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:.5em;min-height:2.75rem;padding:.7em 1.35em;border:2px solid var(--accent);border-radius:var(--radius);background:var(--accent);color:var(--accent-text);font:inherit;font-weight:700;line-height:1.2;text-decoration:none;cursor:pointer;text-align:center}
.btn:hover{filter:brightness(1.08);text-decoration:none}
.btn-alt{background:transparent;color:var(--text);border-color:var(--muted)}
.btn-alt:hover{border-color:var(--text)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
code,pre,kbd{font-family:var(--font-mono)}
:not(pre)>code{overflow-wrap:anywhere;font-size:.88em;padding:.1em .35em;border-radius:4px;background:var(--surface);color:var(--text);border:1px solid var(--border)}
pre{margin:0 0 1.25em;padding:1rem 1.15rem;overflow-x:auto;background:var(--surface);color:var(--text);border:1px solid var(--border);border-radius:var(--radius-box);font-size:.875rem;line-height:1.6;tab-size:2}
pre code{font-size:inherit}
.ico{width:1.5rem;height:1.5rem;stroke:currentColor;fill:none;stroke-width:1.75;stroke-linecap:round;stroke-linejoin:round}
.table-wrap{max-width:100%;overflow-x:auto;margin:0 0 1.25em;border:1px solid var(--border);border-radius:var(--radius-box);background:var(--bg)}
.table-wrap table{border-collapse:collapse;min-width:100%;font-size:.95rem;line-height:1.45;text-align:left;color:var(--text)}
.table-wrap th,.table-wrap td{padding:.55rem .85rem;border-bottom:1px solid var(--border);vertical-align:top;overflow-wrap:normal}
.table-wrap th{background:var(--surface);font-weight:700}
.table-wrap tbody tr:last-child td{border-bottom:0}
figure{margin:0 0 1.25em}
figure img{display:block;border:1px solid var(--border);border-radius:var(--radius-box)}
.hero-shot{margin-block:calc(var(--space)*1.5)}
.hero-shot img{margin-inline:auto}
.muted{color:var(--muted)}
.lead{font-size:1.2rem;color:var(--muted);max-width:42rem}
.qa{border-bottom:1px solid var(--border)}
.qa summary{cursor:pointer;list-style:none;display:flex;justify-content:space-between;gap:1rem;padding:1.05rem 0;font-family:var(--font-head);font-weight:var(--head-weight);font-size:1.1rem;line-height:1.35}
.qa summary::-webkit-details-marker{display:none}
.qa summary::after{content:"+";content:"+" / "";flex:none;font-family:var(--font-body);font-weight:400;font-size:1.4rem;line-height:1;color:var(--link)}
.qa[open] summary::after{content:"\\2212";content:"\\2212" / ""}
.qa .answer{padding:0 0 1rem;color:var(--text)}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr));gap:.75rem;margin:0}
.facts div{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box);padding:1rem 1.15rem}
.facts dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.08em;color:var(--muted)}
.facts dd{margin:.2rem 0 0;font-weight:600}
.forms{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,18rem),1fr));gap:clamp(1rem,3vw,2rem)}
.form{display:grid;gap:1rem;align-content:start;padding:clamp(1.1rem,3vw,1.75rem);background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box)}
.form h2{font-size:1.35rem;margin:0}
.field{display:grid;gap:.35rem}
.field label{font-weight:600;font-size:.95rem}
.field input{width:100%;min-height:2.75rem;padding:.6rem .8rem;font:inherit;color:var(--text);background:var(--bg);border:1px solid var(--muted);border-radius:min(var(--radius),12px)}
.field input:focus-visible{outline-offset:1px}
.form .btn{width:100%}
.footer{color:var(--muted);font-size:.95rem}
.footer a{color:var(--muted)}
.footer a:hover{color:var(--text)}
.footer ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
@media (max-width:40rem){.nav ul{gap:.2rem .95rem;font-size:.95rem}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important;transition:none!important}}
`;
