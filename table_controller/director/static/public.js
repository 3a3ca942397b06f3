// The hall's screen: polls /api/public (delayed, no held cards; the server sends the
// words) and lays it out; when more tables are in play than fit, it turns pages on a
// steady clock (?rotate=SECONDS, default 15), every screen in step from its own start.
"use strict";
const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const delay = query.get("delay");
const rotateSeconds = Math.min(600, Math.max(2, Number(query.get("rotate")) || 15));

let snap = null;
let tick = 0; // pages turned since the screen opened

function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) if (c !== null && c !== undefined && c !== "") e.append(c);
  return e;
}

function face(c) { return el("span", "card" + (c.red ? " red" : ""), c.text); }

// The grid's columns and rows at this size, as the style sheet sets them.
function layout() {
  const style = getComputedStyle($("tables"));
  const cols = parseInt(style.getPropertyValue("--cols"), 10) || 1;
  const rows = parseInt(style.getPropertyValue("--rows"), 10) || 4;
  return cols * rows;
}

function drawTable(t) {
  const teams = (t.teams || []).map((team) => el("div", "team" + (team.won ? " won" : ""),
    el("span", "who", team.names),
    el("span", "score", String(team.score)),
  ));
  let trump = null;
  if (t.trump_words) {
    const w = t.trump_words;
    trump = el("div", "trump", "Trump ",
      el("span", "suit" + (w.red ? " red" : ""), (w.symbol ? w.symbol + " " : "") + w.text),
      w.by ? ", " + w.by : "");
  } else if (t.upcard_words) {
    const u = t.upcard_words;
    trump = el("div", "trump", u.status === "turned down" ? "Turned down " : "Up card ", face(u));
  }
  const plays = (t.plays || []).length ? el("div", "trick",
    ...t.plays.map((p) => el("span", "play", el("span", "who", p.who), face(p)))) : null;
  const news = (t.news || []).length ? t.news[t.news.length - 1].text : "";
  const line = [t.phase_text, t.hand_text].filter(Boolean).join(" · ");
  const box = el("article", "tile",
    el("div", "tile-head", el("h3", "name", t.title),
      t.trump_words && t.trump_words.symbol
        ? el("span", "big-suit" + (t.trump_words.red ? " red" : ""), t.trump_words.symbol) : null),
    el("div", "phase", line),
    ...teams,
    trump,
    plays,
    news ? el("div", "news", news) : null,
    t.problem ? el("div", "problem", "Held at the director's desk: " + t.problem) : null);
  box.dataset.table = t.table;
  return box;
}

// A tile with more than fits (a long trick of long names): the latest news goes first,
// then the trump's line where the big suit in the tile's head already shows trump.
function fitTile(tile) {
  for (const part of [".news", ".trump"]) {
    if (tile.scrollHeight <= tile.clientHeight + 1) return;
    const line = tile.querySelector(part);
    if (line && (part === ".news" || tile.querySelector(".big-suit"))) line.remove();
  }
}

// The standings' rows that fit the box, a page of them turning with the tables.
function drawStandings(standings) {
  const rows = (standings && standings.rows) || [];
  $("standings-box").hidden = rows.length === 0;
  $("standings-heading").textContent = (standings && standings.heading) || "Standings";
  const list = $("standings");
  const li = (r) => el("li", "standing",
    el("span", "place", r.place === "" || r.place === undefined ? "" : String(r.place)),
    el("span", "s-name", r.name),
    el("span", "s-value", r.value),
    r.detail || r.more ? el("span", "s-detail", [r.detail, r.more].filter(Boolean).join(" · ")) : null);
  list.replaceChildren(...rows.map(li));
  if (!rows.length) return;
  const most = parseInt(getComputedStyle(list).getPropertyValue("--most"), 10) || rows.length;
  let fit = 0;
  for (const item of list.children) {
    if (item.offsetTop + item.offsetHeight > list.clientHeight + 1) break;
    fit += 1;
  }
  fit = Math.max(1, Math.min(fit, most));
  const pages = Math.ceil(rows.length / fit);
  const first = (tick % pages) * fit;
  list.replaceChildren(...rows.slice(first, first + fit).map(li));
  $("standings-more").textContent = pages > 1
    ? `Places ${first + 1}–${Math.min(first + fit, rows.length)} of ${rows.length}` : "";
}

// The round's seating: a page of its own after the tables', for players finding a seat.
function drawSeating(seating) {
  $("seating-heading").textContent = seating.heading;
  $("seating-tables").replaceChildren(...seating.tables.map((t) => el("li", "seat",
    el("span", "seat-table", t.title), el("span", "seat-who", t.text))));
  $("byes").textContent = seating.byes || "";
}

function drawResults(results) {
  $("results-box").hidden = !results.length;
  const most = parseInt(getComputedStyle($("results")).getPropertyValue("--most"), 10) || 4;
  $("results").replaceChildren(...results.slice(0, most).map((r) => el("li", "result",
    el("span", "r-table", r.title), el("span", "r-text", r.text), reviewLink(r))));
}

// A finished game's hand review (the hall offers none for a game still being played).
function reviewLink(r) {
  if (!r.review) return null;
  const a = el("a", "r-review", "Replay the hands");
  a.href = r.review;
  return a;
}

function draw() {
  if (!snap) return;
  const tables = snap.tables || [];
  const rows = (snap.standings && snap.standings.rows) || [];
  const waiting = !tables.length && !rows.length;
  $("waiting").hidden = !waiting;
  $("hall").hidden = waiting;
  document.body.classList.toggle("waiting", waiting);
  $("delay").textContent = snap.delay_text || "";
  $("round").textContent = snap.round_text || "";
  const per = layout();
  const tablePages = Math.max(1, Math.ceil(tables.length / per));
  const seating = snap.seating;
  const pages = tablePages + (seating ? 1 : 0);
  const page = tick % pages;
  $("page-of").hidden = pages < 2;
  $("page-of").textContent = `Page ${page + 1} of ${pages}`;
  const seatingPage = seating && page === tablePages;
  $("seating").hidden = !seatingPage;
  $("tables").hidden = seatingPage;
  if (seatingPage) drawSeating(seating);
  $("tables").replaceChildren(...(seatingPage ? [] : tables.slice(page * per, (page + 1) * per).map(drawTable)));
  $("no-tables").hidden = tables.length > 0 || seatingPage;
  if (!waiting) {
    drawResults(snap.results || []);
    drawStandings(snap.standings);
  }
  // Last: the standings' and results' widths decide how wide the tiles are.
  for (const tile of $("tables").children) fitTile(tile);
  document.body.dataset.page = String(page + 1);
  document.body.dataset.pages = String(pages);
}

async function refresh() {
  try {
    const r = await fetch("/api/public" + (delay ? "?delay=" + encodeURIComponent(delay) : ""));
    const body = await r.json();
    if (!r.ok) {
      $("conn").textContent = (body.problem || "The hall's screen cannot be shown") +
        (body.fix ? ": " + body.fix : "");
      return;
    }
    snap = body;
    $("conn").textContent = "";
    draw();
    document.body.dataset.ready = "1";
  } catch (e) {
    $("conn").textContent = "Reconnecting…";
  }
}

refresh();
setInterval(refresh, 1000);
setInterval(() => { tick += 1; draw(); }, rotateSeconds * 1000);
addEventListener("resize", draw);
