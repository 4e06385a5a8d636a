/**
 * The App and Domain screens' script and stylesheet, served from /account/assets next to xterm.js
 * (kept here as text so the build carries them without copying files). The script follows a run's
 * log live, keeps the output, metrics and their charts fresh, fills Generate fields, copies DNS
 * records and connects the terminal; the screens work without it, minus those.
 */
export const APP_SCREEN_SCRIPT = String.raw`const screen = document.getElementById("app-screen") ?? document.body;

// The run (or fix) under way: its job's log streams in; EventSource resumes after the last delta
// it saw (Last-Event-ID) when the connection drops. When the job ends the page reloads to show
// the run's outcome (and its diagnosis).
const buildLog = document.getElementById("build-log");
if (buildLog) {
  const state = document.getElementById("build-state");
  const source = new EventSource(buildLog.dataset.stream);
  const end = (job) => {
    source.close();
    state.textContent = job.status === "done" ? "The run is done." : "The run failed" + (job.error ? ": " + job.error : ".");
    setTimeout(() => location.replace(location.pathname + "?ended=" + encodeURIComponent(job.job_id)), 1200);
  };
  source.addEventListener("delta", (event) => {
    const atEnd = buildLog.scrollTop + buildLog.clientHeight >= buildLog.scrollHeight - 4;
    buildLog.textContent += JSON.parse(event.data).t;
    if (atEnd) buildLog.scrollTop = buildLog.scrollHeight;
  });
  source.addEventListener("done", (event) => end(JSON.parse(event.data)));
  // A frame named "error" carries the job; the connection's own error event carries no data.
  source.addEventListener("error", (event) => {
    if (event.data) end(JSON.parse(event.data));
    else if (source.readyState === EventSource.CONNECTING) state.textContent = "Reconnecting …";
    else state.textContent = "The log cannot be followed here: reload the page.";
  });
  source.addEventListener("open", () => { state.textContent = "Following the run …"; });
}

// Settings the app asks for: "Generate" fills a long random value (never sent anywhere but the form).
for (const button of document.querySelectorAll("[data-generate]")) {
  button.addEventListener("click", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const input = document.getElementById(button.dataset.generate);
    input.value = btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]);
    input.type = "text";
  });
}

// Copy buttons (the domain's DNS records): the text of the element they name.
for (const button of document.querySelectorAll("[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select and copy";
    }
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  });
}

// The app's output: replaced when it changed, kept scrolled to the end when the reader was there.
const log = document.getElementById("app-log");
async function refreshLog() {
  try {
    const response = await fetch(screen.dataset.logs + "?tail=200", { credentials: "same-origin", cache: "no-store" });
    // Nothing has run yet (409): say so instead of "Reading …".
    if (!response.ok) return void (log.textContent = "No output yet.");
    const text = (await response.text()) || "No output yet.";
    if (text === log.textContent) return;
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.textContent = text;
    if (atEnd) log.scrollTop = log.scrollHeight;
  } catch {}
}

const metrics = document.getElementById("app-metrics");
const LABELS = [
  ["running", "Running", (v) => (v ? "Yes" : "No")],
  ["cpu", "CPU", (v) => v.percent.toFixed(1) + " % of its share"],
  ["memory", "Memory", (v) => v.used_mb.toFixed(0) + " MB of " + v.limit_mb.toFixed(0) + " MB"],
  ["network", "Network", (v) => bytes(v.rx_bytes) + " in, " + bytes(v.tx_bytes) + " out"],
  ["storage", "Disk", (v) => v.used_mb.toFixed(0) + " MB of " + v.limit_mb.toFixed(0) + " MB" + (v.over ? " (over the limit)" : "")],
];
function bytes(n) {
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
  return (n / 1024 / 1024).toFixed(1) + " MB";
}
async function refreshMetrics() {
  try {
    const response = await fetch(screen.dataset.metrics, { credentials: "same-origin", cache: "no-store" });
    const body = await response.json();
    metrics.replaceChildren();
    const add = (label, value) => {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = value;
      metrics.append(dt, dd);
    };
    if (!response.ok) return add("Now", body.error || "Not available.");
    for (const [key, label, format] of LABELS) {
      if (body[key] === undefined || body[key] === null) continue;
      try { add(label, format(body[key])); } catch { add(label, JSON.stringify(body[key])); }
    }
    samples.push({ cpu: body.cpu.percent, memory: body.memory.used_mb, memoryLimit: body.memory.limit_mb });
    if (samples.length > SAMPLES) samples.shift();
    chart("chart-cpu", samples.map((s) => s.cpu), 100, "CPU", "%");
    chart("chart-memory", samples.map((s) => s.memory), body.memory.limit_mb, "Memory", " MB");
  } catch {}
}

// Small charts over the time the page is open: one reading every 5 s, the last 60 (5 minutes),
// drawn as SVG elements (no inline style, so the page's policy stays strict).
const SAMPLES = 60;
const samples = [];
const SVG = "http://www.w3.org/2000/svg";
function chart(id, values, ceiling, label, unit) {
  const svg = document.getElementById(id);
  if (!svg) return;
  // Scaled to the highest reading (a quarter above it), so a small app's changes show; the label says the numbers.
  const top = Math.min(ceiling, Math.max(...values) * 1.25) || ceiling || 1;
  const step = 300 / (SAMPLES - 1);
  const points = values.map((v, i) => (300 - (values.length - 1 - i) * step).toFixed(1) + "," + (58 - (v / top) * 56).toFixed(1));
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#1d4ed8");
  line.setAttribute("stroke-width", "2");
  const base = document.createElementNS(SVG, "line");
  for (const [k, v] of [["x1", 0], ["y1", 58], ["x2", 300], ["y2", 58], ["stroke", "#69707d"]]) base.setAttribute(k, v);
  svg.replaceChildren(base, line);
  const last = values[values.length - 1];
  svg.setAttribute("aria-label", label + " over the last " + values.length + " readings: now " + last.toFixed(1) + unit + ", highest " + Math.max(...values).toFixed(1) + unit);
}

if (screen.dataset.logs) {
  refreshLog();
  setInterval(refreshLog, 3000);
}
if (screen.dataset.metrics) {
  refreshMetrics();
  setInterval(refreshMetrics, 5000);
}

// The bare box's terminal: keystrokes and sizes go up as JSON, the screen comes down as bytes.
const opener = document.getElementById("terminal-open");
const holder = document.getElementById("terminal");
const state = document.getElementById("terminal-state");
let terminal = null;
if (opener) opener.addEventListener("click", async () => {
  opener.disabled = true;
  if (!terminal) {
    // Loaded only when a terminal opens: the other screens never fetch xterm.js.
    const [{ Terminal }, { FitAddon }] = await Promise.all([import("./xterm.mjs"), import("./addon-fit.mjs")]);
    terminal = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 2000 });
    terminal.fit = new FitAddon();
    terminal.loadAddon(terminal.fit);
    terminal.open(holder);
  }
  terminal.fit.fit();
  const { cols, rows } = terminal;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(scheme + "//" + location.host + holder.dataset.socket + "?cols=" + cols + "&rows=" + rows);
  socket.binaryType = "arraybuffer";
  const send = (message) => { if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); };
  const input = terminal.onData((data) => send({ type: "input", data }));
  const resize = terminal.onResize(({ cols, rows }) => send({ type: "resize", cols, rows }));
  const fit = () => terminal.fit.fit();
  state.textContent = "Connecting …";
  socket.addEventListener("open", () => {
    state.textContent = "Connected.";
    terminal.focus();
    window.addEventListener("resize", fit);
  });
  socket.addEventListener("message", (event) => terminal.write(new Uint8Array(event.data)));
  socket.addEventListener("close", (event) => {
    input.dispose();
    resize.dispose();
    window.removeEventListener("resize", fit);
    state.textContent = event.reason ? "Closed: " + event.reason : "The terminal closed.";
    opener.textContent = "Open terminal again";
    opener.disabled = false;
  });
});
`;

export const APP_SCREEN_STYLESHEET = `
.log{max-height:24rem;overflow:auto;margin:.5rem 0;padding:.75rem;background:#16191d;color:#f3f5f8;border-radius:6px;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;white-space:pre-wrap;word-break:break-all}
.terminal{margin:.5rem 0;height:24rem;padding:.4rem;background:#000;border-radius:6px}
.terminal:empty{display:none}
.said{white-space:pre-wrap;overflow-wrap:anywhere}
.hint{margin:.2rem 0 0;font-size:.9rem}
input[type=password],input[inputmode=numeric]{display:block;width:100%;max-width:28rem;font:inherit;color:var(--fg);background:#fff;padding:.55rem .65rem;border:1px solid #69707d;border-radius:6px}
.row{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}.row input{flex:1 1 14rem}
form.inline{display:inline-block;margin:0 .5rem .5rem 0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem}
ul.plain{list-style:none;padding:0}ul.plain li{display:flex;align-items:center;gap:.75rem;flex-wrap:wrap;margin:.3rem 0}ul.plain form.inline{margin:0}
.check{display:flex;align-items:center;gap:.5rem}.check label{margin:0;font-weight:400}.check input{width:1.3rem;height:1.3rem}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem}
.charts figure{margin:0}.chart{width:100%;height:4rem;background:#f3f5f8;border:1px solid #c7ced8;border-radius:6px}
figcaption{font-size:.9rem;color:#4a5361}
.record{word-break:break-all}
.parts ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:.5rem .75rem;margin:1rem 0;background:#f3f5f8;border:1px solid #c7ced8;border-radius:6px}
.parts a{display:inline-block;padding:.3rem 0}
#app-summary,#app-metrics,#domain-state{grid-template-columns:max-content minmax(0,1fr)}
#app-summary dd,#domain-state dd{overflow-wrap:anywhere}
.copyable{display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center}
`.trim();
