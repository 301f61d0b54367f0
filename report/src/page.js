"use strict";
// The proof browser of an `amazons report` page. Node pages come from data/fFpK.js
// (script tags, since fetch is blocked on file://), loaded when first needed. A node is
// [parent, label, kind, size, total, firstChild, childCount, move, extra]; see html.rs.
const S = window.AMZ_SUMMARY;
const KINDS = ["Choice", "ReplyAll", "NoMove", "Outlast", "Sum", "Transposition", "Shard", "Search"];
const AMZ = (window.AMZ = {
  store: {},
  page(f, k, nodes) {
    const st = this.store[f] || (this.store[f] = []);
    nodes.forEach((n, i) => { st[k * S.page + i] = n; });
  },
});
const loading = {};
function loadPage(f, k) {
  const key = f + ":" + k;
  if (!loading[key]) {
    loading[key] = new Promise((res, rej) => {
      const s = document.createElement("script");
      s.src = "data/f" + f + "p" + k + ".js";
      s.onload = () => res();
      s.onerror = () => rej(new Error("cannot load " + s.src));
      document.head.appendChild(s);
    });
  }
  return loading[key];
}
async function getNode(f, id) {
  await loadPage(f, Math.floor(id / S.page));
  const n = AMZ.store[f] && AMZ.store[f][id];
  if (!n) throw new Error("node " + id + " of " + S.files[f].n + " is missing");
  return n;
}
async function kids(f, n) {
  const first = n[5], count = n[6];
  if (first < 0) return null;
  const out = [];
  for (let id = first; id < first + count; id++) out.push({ f, id, node: await getNode(f, id) });
  return out;
}
function parseGrid(g) {
  const rows = g.split("|"), h = rows.length, w = rows[0].length, cells = new Array(w * h);
  rows.forEach((r, i) => { for (let x = 0; x < w; x++) cells[(h - 1 - i) * w + x] = r[x]; });
  return cells;
}
const posCache = {};
async function cellsOf(f, id) {
  const key = f + ":" + id;
  if (posCache[key]) return posCache[key];
  const n = await getNode(f, id);
  let cells;
  if (n[8].p) cells = parseGrid(n[8].p);
  else if (n[0] < 0) cells = parseGrid(S.files[f].p);
  else {
    cells = (await cellsOf(f, n[0])).slice();
    if (n[7]) { const [a, b, c] = n[7]; cells[b] = cells[a]; cells[a] = "."; cells[c] = "#"; }
  }
  return (posCache[key] = cells);
}
function sqName(sq) { return String.fromCharCode(97 + (sq % S.w)) + (Math.floor(sq / S.w) + 1); }
function esc(t) { return String(t).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
function fmt(n) { return Number(n).toLocaleString("en-US"); }
function steps(n) { return fmt(n) + (Number(n) === 1 ? " step" : " steps"); }
const C = 36, M = 18;
function center(sq) { const x = sq % S.w, y = Math.floor(sq / S.w); return [M + x * C + C / 2, M + (S.h - 1 - y) * C + C / 2]; }
// An SVG board: cells carry data-sq (name) and data-c (X O # .) for tests and tools.
function boardSvg(cells, opt) {
  opt = opt || {};
  const W = 2 * M + S.w * C, H = 2 * M + S.h * C;
  let s = `<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">`;
  for (let y = S.h - 1; y >= 0; y--) for (let x = 0; x < S.w; x++) {
    const sq = y * S.w + x, c = cells[sq], px = M + x * C, py = M + (S.h - 1 - y) * C;
    s += `<rect class="sq ${(x + y) % 2 ? "l" : "d"}${c === "#" ? " arrow" : ""}" data-sq="${sqName(sq)}" data-c="${c}" x="${px}" y="${py}" width="${C}" height="${C}"/>`;
  }
  for (const mark of opt.marks || []) for (const [j, sq] of mark.squares.entries()) {
    const x = sq % S.w, y = Math.floor(sq / S.w);
    s += `<rect class="mark" x="${M + x * C + 2}" y="${M + (S.h - 1 - y) * C + 2}" width="${C - 4}" height="${C - 4}" style="fill:${mark.color}"/>`;
    if (mark.label && j === 0) s += `<text class="marklabel" x="${M + x * C + 4}" y="${M + (S.h - 1 - y) * C + 12}">${esc(mark.label)}</text>`;
  }
  cells.forEach((c, sq) => {
    const [cx, cy] = center(sq);
    if (c === "O" || c === "X") s += `<circle class="queen ${c === "O" ? "white" : "black"}" cx="${cx}" cy="${cy}" r="${C * 0.33}"/>`;
    else if (c === "#") s += `<path class="arrowmark" d="M${cx - 9} ${cy - 9}L${cx + 9} ${cy + 9}M${cx + 9} ${cy - 9}L${cx - 9} ${cy + 9}"/>`;
  });
  for (const [i, m] of (opt.moves || []).entries()) {
    const [a, b, c] = m, [x1, y1] = center(a), [x2, y2] = center(b), [x3, y3] = center(c);
    s += `<line class="path${i ? " later" : ""}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" marker-end="url(#head)"/>`;
    s += `<line class="shot${i ? " later" : ""}" x1="${x2}" y1="${y2}" x2="${x3}" y2="${y3}" marker-end="url(#head2)"/>`;
  }
  for (let x = 0; x < S.w; x++) s += `<text class="coord" x="${M + x * C + C / 2}" y="${H - 4}">${String.fromCharCode(97 + x)}</text>`;
  for (let y = 0; y < S.h; y++) s += `<text class="coord" x="${M / 2}" y="${M + (S.h - 1 - y) * C + C / 2 + 4}">${y + 1}</text>`;
  s += `<defs><marker id="head" markerWidth="6" markerHeight="6" refX="5" refY="3" orient="auto"><path d="M0,0L6,3L0,6z" class="headp"/></marker><marker id="head2" markerWidth="6" markerHeight="6" refX="5" refY="3" orient="auto"><path d="M0,0L6,3L0,6z" class="heads"/></marker></defs>`;
  return s + "</svg>";
}
const PALETTE = ["rgba(66,133,244,.35)", "rgba(219,68,55,.35)", "rgba(15,157,88,.35)", "rgba(244,180,0,.4)", "rgba(171,71,188,.35)", "rgba(0,172,193,.35)"];
function sideName(w) { return w === "w" ? "White" : "Black"; }
function leafHtml(n, marks, moves, citePath) {
  const x = n[8];
  if (x.o) {
    const o = x.o;
    o.r.forEach((part, i) => marks.push({ squares: part[0], color: PALETTE[i % PALETTE.length], label: i ? "" : "R" }));
    o.m.forEach(m => moves.push(m));
    const rows = o.r.map((part, i) => `<tr><td>${i + 1}</td><td>${part[0].map(sqName).join(" ")}</td><td>${part[1]}</td><td>${part[2] < 0 ? "not searched: " + part[1] + " (one per empty square)" : part[2]}</td></tr>`).join("");
    const need = o.wm ? " + 1 (the winner is to move)" : "";
    return `<div class="leaf" id="leaf"><h4>Outlast</h4><p>The loser's region R (shaded) is walled in. The winner has ${o.m.length} moves outside it (drawn: ${o.m.map(m => sqName(m[0]) + "-" + sqName(m[1]) + "x" + sqName(m[2])).join(", ") || "none"}); the loser has at most M = ${o.b} inside.</p>
<p class="ineq">k + x = ${o.m.length} + ${o.x} &ge; M + y${need} = ${o.b} + ${o.y}${o.wm ? " + 1" : ""}</p>
<table><tr><th>part of R</th><th>squares</th><th>empty</th><th>loser's moves (one-player maximum)</th></tr>${rows}</table></div>`;
  }
  if (x.u) {
    x.u.c.forEach((part, i) => marks.push({ squares: part[0], color: PALETTE[i % PALETTE.length], label: String(i + 1) }));
    const rows = x.u.c.map((part, i) => `<tr><td style="background:${PALETTE[i % PALETTE.length]}">${i + 1}</td><td>${part[0].map(sqName).join(" ")}</td><td>${part[2] ? "&gt; " : "&ge; "}${part[1]}</td></tr>`).join("");
    return `<div class="leaf" id="leaf"><h4>Sum of components</h4><p>The arrows split the board into independent components, each with a bound from the winner's side; they add up to s = ${x.u.s} (sum of bounds + spare moves); the winner wins when s &ge; 1, or s = 0 with the loser to move or a strict bound. Each component's own proof is a child below.</p><table><tr><th>component</th><th>squares</th><th>bound</th></tr>${rows}</table></div>`;
  }
  if (x.t) {
    const t = x.t, link = citePath ? ` <a id="citelink" href="#m=${esc(citePath.join(","))}">Go to its proof.</a>` : " (Its proof is outside the nodes kept in this report.)";
    return `<div class="leaf" id="leaf"><h4>Transposition</h4><p>This claim, mapped by the symmetry <b>${esc(t.y)}</b>, is the claim below, proven earlier in this certificate.${link}</p>${boardSvg(parseGrid(t.p))}</div>`;
  }
  if (n[2] === 2) return `<div class="leaf" id="leaf"><h4>No move</h4><p>${sideName(x.w)} is to move and has no move: ${sideName(x.w)} loses.</p></div>`;
  return "";
}
let current = null, shows = 0;
async function show(labels) {
  const view = document.getElementById("view"), token = ++shows;
  let trail;
  try {
    let cur = { f: 0, id: 0 };
    trail = [cur];
    for (const lab of labels) {
      cur = await enter(cur);
      const list = await kids(cur.f, await getNode(cur.f, cur.id));
      const hit = list && list.find(c => c.node[1] === lab);
      if (!hit) throw new Error("no child " + lab + " here" + (list ? "" : " (not kept in this report)"));
      cur = { f: cur.f, id: hit.id };
      trail.push(cur);
    }
  } catch (e) {
    if (token === shows) view.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return;
  }
  const last = trail[trail.length - 1], shown = await enter(last), n = await getNode(shown.f, shown.id);
  const leafNode = await getNode(last.f, last.id), cells = await cellsOf(shown.f, shown.id);
  current = { labels, shown };
  const file = S.files[shown.f];
  let crumbs = `<a href="#m=">start</a>`;
  labels.forEach((lab, i) => { crumbs += ` &rsaquo; <a href="#m=${labels.slice(0, i + 1).join(",")}">${esc(lab)}</a>`; });
  const marks = [], moves = leafNode[7] ? [leafNode[7]] : [];
  const citePath = n[8].t && n[8].t.n >= 0 ? await pathTo(shown.f, n[8].t.n) : null;
  const leaf = leafHtml(n, marks, moves, citePath);
  const list = await kids(shown.f, n);
  let items = "";
  if (list) {
    const max = Math.max(1, ...list.map(c => c.node[4]));
    for (const c of list) {
      const k = c.node, href = "#m=" + labels.concat([k[1]]).join(",");
      items += `<li><a class="mv" href="${href}" data-move="${esc(k[1])}">${esc(k[1])}</a> <span class="kind">${k[8].a ? "&rarr; " + esc(k[8].a) : KINDS[k[2]]}</span> <span class="steps">${steps(k[4])}</span><span class="bar" style="width:${(200 * k[4] / max).toFixed(1)}px"></span></li>`;
    }
  }
  if (token !== shows) return; // a later navigation has started: leave the view to it
  const kidsHtml = n[6] === 0 ? "" : list
    ? `<h4>${n[2] === 1 ? "Every reply" : n[2] === 4 ? "The components' proofs" : "The winning move"} (${n[6]}), with the size of its subproof</h4><ol id="children">${items}</ol>`
    : `<p class="more">${n[6]} children, ${fmt(n[4] - 1)} steps below: not kept in this report (a larger <code>--max-nodes</code> keeps more).</p>`;
  const shard = shown.f !== last.f || shown.f !== 0 ? `<p class="shard">In shard <code>${esc(file.n)}</code> (${fmt(file.s)} steps, ${fmt(file.t)} with the shards it cites).</p>` : "";
  const spare = n[8].sp ? `, ${n[8].sp > 0 ? "Black" : "White"} holding ${Math.abs(n[8].sp)} spare move(s)` : "";
  view.innerHTML = `<nav id="crumbs">${crumbs}</nav>${shard}
<p class="claim" id="claim">${sideName(n[8].w)} to move${spare}; ${esc(file.win)} wins. Rule: <b>${KINDS[n[2]]}</b>; ${steps(n[4])} in this subproof.</p>
<div class="split"><div id="board" data-path="${esc(labels.join(","))}">${boardSvg(cells, { marks, moves })}</div><div>${leaf}${kidsHtml}</div></div>`;
  document.body.dataset.ready = labels.join(",");
}
async function enter(cur) {
  let n = await getNode(cur.f, cur.id);
  while (n[2] === 6 && n[8].h !== undefined) { cur = { f: n[8].h, id: 0 }; n = await getNode(cur.f, 0); }
  return cur;
}
async function pathTo(f, id) {
  const labels = [];
  for (let guard = 0; guard < 64; guard++) {
    for (let n = await getNode(f, id); n[0] >= 0; id = n[0], n = await getNode(f, id)) labels.push(n[1]);
    const by = S.files[f].by;
    if (!by || by[1] < 0) break;
    [f, id] = by;
  }
  return labels.reverse();
}
function route() {
  const m = /^#m=(.*)$/.exec(decodeURIComponent(location.hash));
  const labels = m && m[1] ? m[1].split(",").filter(Boolean) : [];
  return show(labels);
}
// #click=m1,m2,...: start at the root and click the listed moves one after another, as a
// reader would (used by the browser tests; the address then becomes #m=m1,m2,...).
async function clickThrough(moves) {
  await show([]);
  const done = [];
  for (const mv of moves) {
    const a = [...document.querySelectorAll("#children a.mv")].find(x => x.dataset.move === mv);
    if (!a) { document.getElementById("view").insertAdjacentHTML("afterbegin", `<p class="error">no link ${esc(mv)} to click</p>`); return; }
    done.push(mv);
    a.click();
    for (let i = 0; i < 500 && document.body.dataset.ready !== done.join(","); i++) await new Promise(r => setTimeout(r, 20));
  }
}
window.addEventListener("hashchange", route);
const click = /^#click=(.*)$/.exec(decodeURIComponent(location.hash));
if (click) clickThrough(click[1].split(",").filter(Boolean));
else route();
