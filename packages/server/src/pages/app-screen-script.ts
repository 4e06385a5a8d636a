/**
 * The app screen's script and stylesheet, served from /account/assets next to xterm.js (kept
 * here as text so the build carries them without copying files). The script keeps the output and
 * metrics fresh and connects the terminal; the page works without it, minus those three.
 */
export const APP_SCREEN_SCRIPT = String.raw`import { Terminal } from "./xterm.mjs";
import { FitAddon } from "./addon-fit.mjs";

const screen = document.getElementById("app-screen");

// The app's output: replaced when it changed, kept scrolled to the end when the reader was there.
const log = document.getElementById("app-log");
async function refreshLog() {
  try {
    const response = await fetch(screen.dataset.logs + "?tail=200", { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) return;
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
  } catch {}
}

refreshLog();
refreshMetrics();
setInterval(refreshLog, 3000);
setInterval(refreshMetrics, 5000);

// The bare box's terminal: keystrokes and sizes go up as JSON, the screen comes down as bytes.
const opener = document.getElementById("terminal-open");
const holder = document.getElementById("terminal");
const state = document.getElementById("terminal-state");
let terminal = null;
if (opener) opener.addEventListener("click", () => {
  opener.disabled = true;
  if (!terminal) {
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
`.trim();
