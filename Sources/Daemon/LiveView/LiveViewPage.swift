/// The live view's one page (`/`): HTML, CSS and JavaScript in the binary, nothing fetched from
/// elsewhere. It shows `/stream.mjpeg` with each code's outline (from its corners, scaled to the
/// picture's displayed size by an SVG overlay in frame pixels) and text, the rect of interest,
/// the last 20 codes, frames/s scanned, drops by reason and the source's state, from `/events`.
enum LiveViewPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>syncscan live view</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{margin:0;font:14px system-ui,sans-serif;background:#111;color:#eee;display:flex;flex-wrap:wrap;gap:12px;padding:12px}
#view{position:relative;display:inline-block;align-self:flex-start;line-height:0;background:#000;min-width:320px;min-height:240px}
#live{display:block;max-width:calc(100vw - 420px);min-width:320px}
#overlay{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
#overlay polygon{fill:rgba(0,255,0,.15);stroke:#0f0;stroke-width:4;vector-effect:non-scaling-stroke}
#overlay text{fill:#0f0;font:bold 20px system-ui,sans-serif;paint-order:stroke;stroke:#000;stroke-width:4px;vector-effect:non-scaling-stroke}
#overlay rect{fill:none;stroke:#fc0;stroke-dasharray:8 6;stroke-width:2;vector-effect:non-scaling-stroke}
aside{flex:1;min-width:360px}
h1{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #333;padding:3px 6px;text-align:left;vertical-align:top;word-break:break-all}
.state-scanning{color:#0f0}.state-waiting,.state-opening{color:#fc0}
</style></head><body>
<div id="view"><img id="live" alt="live picture" src="stream.mjpeg"><svg id="overlay" preserveAspectRatio="none"></svg></div>
<aside>
<h1>syncscan <span id="source"></span> — <span id="state">connecting</span></h1>
<p><span id="fps">–</span> frames/s scanned · frames <span id="frames">0</span> · codes <span id="codes">0</span></p>
<p>dropped: <span id="drops">–</span></p>
<table><thead><tr><th>symbology</th><th>text</th><th>seq</th><th>time</th><th>engine</th></tr></thead><tbody id="recent"></tbody></table>
</aside>
<script>
"use strict";
const svgNS = "http://www.w3.org/2000/svg";
const overlay = document.getElementById("overlay"), img = document.getElementById("live");
const recent = [], outlines = [];
let frameSize = null, roi = null, last = null;
img.addEventListener("error", () => setTimeout(() => { img.src = "stream.mjpeg?" + Date.now(); }, 1000));
img.addEventListener("load", () => { if (!frameSize && img.naturalWidth) frameSize = {w: img.naturalWidth, h: img.naturalHeight}; });
function el(name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function label(code) { return code.text !== undefined ? code.text : "base64:" + code.data_b64; }
function draw() {
  const now = Date.now();
  while (outlines.length && now - outlines[0].at > 2000) outlines.shift();
  overlay.replaceChildren();
  if (!frameSize || !img.naturalWidth) return;  // no picture yet: nothing to draw on
  overlay.setAttribute("viewBox", "0 0 " + frameSize.w + " " + frameSize.h);
  if (roi && !(roi.x == 0 && roi.y == 0 && roi.width == 1 && roi.height == 1))
    overlay.append(el("rect", {x: roi.x * frameSize.w, y: roi.y * frameSize.h, width: roi.width * frameSize.w, height: roi.height * frameSize.h}));
  for (const o of outlines) {
    if (!o.code.corners.length) continue;
    overlay.append(el("polygon", {points: o.code.corners.map(p => p.join(",")).join(" ")}));
    const b = o.code.bounds;
    overlay.append(el("text", {x: b.x + b.width + 6, y: b.y + 20, class: "code-text"}, label(o.code)));
  }
}
function showRecent() {
  const body = document.getElementById("recent");
  body.replaceChildren(...recent.map(c => {
    const tr = document.createElement("tr");
    for (const v of [c.symbology, label(c), c.frame.seq, c.time, c.engine]) {
      const td = document.createElement("td"); td.textContent = v; tr.append(td);
    }
    return tr;
  }));
}
const events = new EventSource("events");
function listed(code) {
  frameSize = {w: code.frame.width, h: code.frame.height};
  recent.unshift(code); recent.length = Math.min(recent.length, 20);
  showRecent();
}
events.onmessage = (m) => {
  const code = JSON.parse(m.data);
  listed(code);
  outlines.push({at: Date.now(), code});
  draw();
};
events.addEventListener("recent", (m) => listed(JSON.parse(m.data)));
function showStatus(s) {
  const c = s.counters, now = Date.now();
  roi = s.rect_of_interest;
  document.getElementById("source").textContent = s.source;
  const state = document.getElementById("state");
  state.textContent = s.status; state.className = "state-" + s.state;
  document.getElementById("frames").textContent = c.frames;
  document.getElementById("codes").textContent = c.codes_found;
  document.getElementById("drops").textContent = Object.keys(c).filter(k => k.startsWith("dropped_")).map(k => k.slice(8) + " " + c[k]).join(", ");
  if (last) document.getElementById("fps").textContent = ((c.scanned - last.scanned) * 1000 / (now - last.at)).toFixed(1);
  last = {at: now, scanned: c.scanned};
}
events.addEventListener("status", (m) => showStatus(JSON.parse(m.data)));
fetch("status").then(r => r.json()).then(showStatus, () => {});
setInterval(draw, 250);
</script></body></html>
"""#
}
