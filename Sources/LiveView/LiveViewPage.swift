/// The live view's one page (`/`): HTML, CSS and JavaScript in the binary, nothing fetched from
/// elsewhere. It shows `/stream.mjpeg` with outlines (from corners, scaled to the picture's
/// displayed size by an SVG overlay in frame pixels): green with its text and `#id` for each item,
/// from its code line (its first reading) until the sightings no longer list it (its removal),
/// at its last corners, filled while the latest frame read it; green with its text for a code
/// read that is no item (codes not reported as items); magenta for a code detected but not
/// decoded; the rect of interest; the last 20 codes; frames/s scanned and captured, the source's
/// mode, drops by reason and the source's state, from `/events`.
///
/// An item's outline has no timeout: it goes when an `event: sightings` no longer lists the item,
/// or the events stream ends. Any other outline stays while the latest sightings hold its code,
/// and for `holdMs` after the last that did or after its code line (a code in view for one frame
/// is still seen); none outlives `staleMs` without new sightings. Each polygon of an item carries
/// `data-item`, its id.
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
#overlay polygon.undecoded{fill:rgba(255,0,255,.15);stroke:#f0f}
#overlay polygon.held{fill:none}
#overlay text{fill:#0f0;font:bold 20px system-ui,sans-serif;paint-order:stroke;stroke:#000;stroke-width:4px;vector-effect:non-scaling-stroke}
#overlay text.undecoded{fill:#f0f}
.read{color:#0f0}.undecoded{color:#f0f}
#overlay rect{fill:none;stroke:#fc0;stroke-dasharray:8 6;stroke-width:2;vector-effect:non-scaling-stroke}
aside{flex:1;min-width:360px}
h1{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #333;padding:3px 6px;text-align:left;vertical-align:top;word-break:break-all}
.state-scanning{color:#0f0}.state-waiting,.state-opening{color:#fc0}
</style></head><body>
<div id="view"><img id="live" alt="live picture" src="stream.mjpeg"><svg id="overlay" preserveAspectRatio="none"></svg></div>
<aside>
<h1>syncscan <span id="source"></span> — <span id="state">connecting</span></h1>
<p><span id="fps">–</span> frames/s scanned of <span id="capture-fps">–</span> captured · frames <span id="frames">0</span> · codes <span id="codes">0</span></p>
<p>mode: <span id="mode">–</span></p>
<p>dropped: <span id="drops">–</span></p>
<p>outlines: <span class="read">green</span> a code read, with its #item until it leaves (filled while read now) · <span class="undecoded">magenta</span> a code seen but not decoded</p>
<table><thead><tr><th>symbology</th><th>text</th><th>seq</th><th>time</th><th>engine</th></tr></thead><tbody id="recent"></tbody></table>
</aside>
<script>
"use strict";
const svgNS = "http://www.w3.org/2000/svg";
const overlay = document.getElementById("overlay"), img = document.getElementById("live");
const recent = [], outlines = new Map();  // outlines: key → {at, kind, code}: reads that are no item, codes not decoded
const items = new Map();  // item id → {id, code, read}: from its first reading until its removal
const holdMs = 500, staleMs = 2000;
let frameSize = null, roi = null, latest = new Set();
img.addEventListener("error", () => setTimeout(() => { img.src = "stream.mjpeg?" + Date.now(); }, 1000));
img.addEventListener("load", () => { if (!frameSize && img.naturalWidth) frameSize = {w: img.naturalWidth, h: img.naturalHeight}; });
function el(name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function label(code) { return code.text !== undefined ? code.text : "base64:" + code.data_b64; }
// One outline: its polygon and, unless text is null, its caption right of it, or left of it where
// the picture ends first (about 11 units a character).
function outline(c, kind, text, item) {
  const attrs = {points: c.map(p => p.join(",")).join(" "), class: kind};
  if (item !== undefined) attrs["data-item"] = item;
  overlay.append(el("polygon", attrs));
  if (text === null) return;
  const right = Math.max(...c.map(p => p[0])), left = Math.min(...c.map(p => p[0])), y = Math.min(...c.map(p => p[1]));
  const fits = right + 6 + 11 * text.length <= frameSize.w || left - 6 - 11 * text.length < 0;
  overlay.append(el("text", fits ? {x: right + 6, y: y + 20, class: kind} : {x: left - 6, y: y + 20, class: kind, "text-anchor": "end"}, text));
}
function within(c, box) {
  const x = c.reduce((s, p) => s + p[0], 0) / c.length, y = c.reduce((s, p) => s + p[1], 0) / c.length;
  return Math.min(...box.map(p => p[0])) <= x && x <= Math.max(...box.map(p => p[0]))
    && Math.min(...box.map(p => p[1])) <= y && y <= Math.max(...box.map(p => p[1]));
}
function draw() {
  const now = Date.now();
  for (const [key, o] of outlines)
    if (now - o.at > staleMs || (!latest.has(key) && now - o.at > holdMs)) outlines.delete(key);
  overlay.replaceChildren();
  if (!frameSize || !img.naturalWidth) return;  // no picture yet: nothing to draw on
  overlay.setAttribute("viewBox", "0 0 " + frameSize.w + " " + frameSize.h);
  if (roi && !(roi.x == 0 && roi.y == 0 && roi.width == 1 && roi.height == 1))
    overlay.append(el("rect", {x: roi.x * frameSize.w, y: roi.y * frameSize.h, width: roi.width * frameSize.w, height: roi.height * frameSize.h}));
  const alive = [...items.values()].filter(i => i.code.corners.length);
  for (const o of outlines.values()) {
    const c = o.code.corners;
    if (!c.length) continue;
    // A code not decoded where an item is (what keeps it alive): its outline under the item's, no caption.
    const text = o.kind == "read" ? o.code.label : alive.some(i => within(c, i.code.corners)) ? null : o.code.symbology + ": not decoded";
    outline(c, o.kind, text);
  }
  for (const i of alive) outline(i.code.corners, i.read ? "item" : "item held", i.code.label + " #" + i.id, i.id);
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
// A code line outlines its code too: an item's first reading begins the item's outline; a code that
// is no item is outlined for holdMs, longer while sightings keep it. A code in view for less than
// an update's interval is seen.
function cut(s) { return s.length <= 64 ? s : s.slice(0, 63) + "…"; }
events.onmessage = (m) => {
  const code = JSON.parse(m.data);
  listed(code);
  const lined = {symbology: code.symbology, label: cut(label(code)), corners: code.corners};
  if (code.item !== undefined) items.set(code.item, {id: code.item, code: lined, read: true});
  else outlines.set("read " + lined.symbology + " " + lined.label, {at: Date.now(), kind: "read", code: lined});
  draw();
};
events.addEventListener("recent", (m) => listed(JSON.parse(m.data)));
// What a scanned frame held: every code read (duplicates too; a read of an item marks the item read
// now), every code detected, not decoded, and the items in view: exactly those listed keep an outline.
events.addEventListener("sightings", (m) => {
  const s = JSON.parse(m.data), now = Date.now();
  frameSize = {w: s.width, h: s.height};
  latest = new Set();
  const seen = (key, kind, code) => { outlines.set(key, {at: now, kind, code}); latest.add(key); };
  const readNow = new Set();
  for (const c of s.read) if (c.item !== undefined) readNow.add(c.item); else seen("read " + c.symbology + " " + c.label, "read", c);
  s.undecoded.forEach((c, i) => seen("undecoded " + i, "undecoded", c));
  items.clear();
  for (const i of s.items || []) items.set(i.item, {id: i.item, code: i, read: readNow.has(i.item)});
  draw();
});
// The stream ended (the daemon stopped or restarts): its items are gone; a new stream lists those in view.
events.addEventListener("error", () => { items.clear(); draw(); });
function rate(v) { return v === undefined || v === null ? "–" : v.toFixed(1); }
function showStatus(s) {
  const c = s.counters;
  roi = s.rect_of_interest;
  document.getElementById("source").textContent = s.source;
  const state = document.getElementById("state");
  state.textContent = s.status; state.className = "state-" + s.state;
  document.getElementById("frames").textContent = c.frames;
  document.getElementById("codes").textContent = c.codes_found;
  document.getElementById("drops").textContent = Object.keys(c).filter(k => k.startsWith("dropped_")).map(k => k.slice(8) + " " + c[k]).join(", ");
  document.getElementById("fps").textContent = rate(s.rates && s.rates.scanned_per_second);
  document.getElementById("capture-fps").textContent = rate(s.rates && s.rates.frames_per_second);
  const m = s.mode;
  document.getElementById("mode").textContent = !m ? "–" : m.width + "x" + m.height + " " + m.format
    + (m.fps === null ? "" : " at " + +m.fps.toFixed(3) + " fps")
    + ({negotiated: " (negotiated with the camera)", file: " (the file's)", assumed: " (no rate in the file: 25 fps assumed)",
        stream: " (the stream's)"}[m.origin] ?? " (" + m.origin + ")");
}
events.addEventListener("status", (m) => showStatus(JSON.parse(m.data)));
fetch("status").then(r => r.json()).then(showStatus, () => {});
setInterval(draw, 250);
</script></body></html>
"""#
}
