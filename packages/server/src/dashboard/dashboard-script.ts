/**
 * The dashboard's one script and stylesheet, served from /dashboard/assets (kept here as text so
 * the build carries them without copying files). Every screen works without the script; it adds
 * the site search, the address check as you type and the live text of a generation. It reads
 * only this server, with the session cookie: no token is ever in the page or in storage.
 */
export const DASHBOARD_SCRIPT = String.raw`
// Sites: the search hides the rows that do not match and says how many are shown.
const search = document.getElementById("site-search");
if (search) {
  const rows = [...document.querySelectorAll("[data-search]")];
  const count = document.getElementById("site-count");
  search.addEventListener("input", () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const match = words.every((word) => row.dataset.search.includes(word));
      row.hidden = !match;
      if (match) shown++;
    }
    count.textContent = shown === rows.length ? "" : shown + " of " + rows.length + " sites shown";
  });
}

// The address: asked of the server as it is typed (the same check as GET /app/subdomain-check).
const slug = document.querySelector("[data-slug-check]");
if (slug) {
  const said = document.getElementById(slug.getAttribute("aria-describedby").split(" ")[0]);
  const WORDS = { invalid: "Not a possible address: 3 to 60 of a-z, 0-9 and -, starting and ending with a letter or digit.", reserved: "Reserved: choose another.", taken: "Taken: choose another." };
  let timer;
  let asked = 0;
  slug.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const value = slug.value.trim();
      const mine = ++asked;
      if (value === "" || value === slug.defaultValue) return void (said.textContent = "");
      try {
        const response = await fetch(slug.dataset.slugCheck + "?slug=" + encodeURIComponent(value), { credentials: "same-origin", cache: "no-store" });
        const answer = await response.json();
        if (mine !== asked) return;
        said.textContent = answer.available ? value + " is available." : WORDS[answer.reason] || answer.error || "Not available.";
      } catch {}
    }, 250);
  });
}

// A generation's text as it is written: one page after another (each page is a job, the next one
// named by the finished job). A dropped connection is resumed after the last delta shown: by
// EventSource itself (it sends Last-Event-ID), or, when it gives up (an answer that is not the
// stream, such as a proxy's 502), by opening the stream again with ?from=. At the end the link
// to the new versions shows.
const live = document.getElementById("generation-live");
if (live) {
  const text = document.getElementById("generation-text");
  const state = document.getElementById("generation-state");
  let failures = 0;
  const follow = (jobId, from) => {
    let next = from;
    const address = live.dataset.streams.replace("JOB_ID", encodeURIComponent(jobId));
    const source = new EventSource(from > 0 ? address + "?from=" + from : address);
    source.addEventListener("meta", (event) => {
      failures = 0;
      const job = JSON.parse(event.data);
      state.textContent = "Writing the " + (job.kind === "template" ? "landing page" : job.kind + " page") + " …";
    });
    source.addEventListener("delta", (event) => {
      const delta = JSON.parse(event.data);
      // Shown already: this source's own reconnects ask again from the ?from= in its address.
      if (delta.i < next) return;
      next = delta.i + 1;
      const atEnd = text.scrollTop + text.clientHeight >= text.scrollHeight - 4;
      text.textContent += delta.t;
      if (atEnd) text.scrollTop = text.scrollHeight;
    });
    source.addEventListener("done", (event) => {
      source.close();
      const job = JSON.parse(event.data);
      if (job.next_job_id) {
        text.textContent += "\n\n";
        return follow(job.next_job_id, 0);
      }
      state.textContent = "Done: every page is written.";
      const link = document.getElementById("generation-reload");
      if (link) link.hidden = false;
    });
    source.addEventListener("error", (event) => {
      // An "error" frame is the job's end; a network error (no data) is EventSource reconnecting,
      // unless it gave up (CLOSED): then this page opens the stream again, a few times.
      if (event.data) {
        source.close();
        state.textContent = "Stopped: " + (JSON.parse(event.data).error || "the job did not finish.");
      } else if (source.readyState === EventSource.CLOSED) {
        if (++failures > 5) return void (state.textContent = "The connection was lost: reload the page to follow the writing.");
        state.textContent = "Reconnecting …";
        setTimeout(() => follow(jobId, next), 1000 * failures);
      }
    });
  };
  follow(live.dataset.job, 0);
}
`;

export const DASHBOARD_STYLESHEET = `
.subnav{display:flex;flex-wrap:wrap;gap:.25rem .5rem;margin:0 0 1.25rem;padding:0 0 .75rem;border-bottom:1px solid var(--line)}
.subnav a{padding:.35rem .6rem;border-radius:6px;text-decoration:none}
.subnav a[aria-current=page]{background:var(--fg);color:#fff}
.subnav a:first-child{margin-right:auto}
input[type=search],input[type=url],textarea{display:block;width:100%;max-width:28rem;font:inherit;color:var(--fg);background:#fff;padding:.55rem .65rem;border:1px solid #69707d;border-radius:6px}
textarea{max-width:100%;min-height:8rem;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:1rem 0;padding:.5rem 1rem 1rem}
legend{font-weight:600;padding:0 .25rem}
fieldset label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.4rem 0}
input[type=radio],input[type=checkbox]{width:1.2rem;height:1.2rem;margin:0;accent-color:var(--accent)}
.hint{font-size:.95rem;color:var(--muted);margin:.3rem 0}
.row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.stream{max-height:24rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
.gallery{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1rem}
.gallery li{border:1px solid var(--line);border-radius:8px;padding:.75rem;display:flex;flex-direction:column;gap:.4rem}
.gallery li.chosen{border:3px solid var(--accent)}
.gallery img{width:100%;height:auto;aspect-ratio:1200/630;border-radius:4px;border:1px solid var(--line)}
.gallery p{margin:0;font-size:.95rem}
.gallery label{display:flex;gap:.5rem;align-items:center;margin:0}
.preview{width:100%;height:28rem;border:1px solid var(--line);border-radius:6px;background:#fff}
.versions li{margin:.5rem 0}
details{margin:.75rem 0}summary{cursor:pointer;font-weight:600}
td form{display:inline}
`.trim();
