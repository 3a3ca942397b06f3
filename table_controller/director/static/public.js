// The hall's screen: polls /api/public (delayed, no held cards) and redraws it all.
"use strict";
const $ = (id) => document.getElementById(id);
const delay = new URLSearchParams(location.search).get("delay");

function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
function card(c) { return el("span", "card" + (c.red ? " red" : ""), c.text); }

function drawTable(t) {
  const s = t.score || {};
  const trick = t.trick ? el("div", "trick", "Trick " + t.trick.number + ": ",
    ...t.trick.plays.map((p) => el("span", "play", p.seat + " ", card(p.card)))) : el("div", "trick", "");
  const trump = t.trump ? "trump " + t.trump.name : "";
  const names = (t.seats || []).map((x) => x.seat + " " + x.name).join(", ");
  return el("div", "ptable",
    el("div", "name", t.table),
    el("div", "score", `NS ${s.NS ?? 0} – EW ${s.EW ?? 0}`),
    el("div", "hand", t.hand ? `game ${t.game}, hand ${t.hand} ${trump}` : (t.phase || "")),
    trick,
    el("div", "players", names),
    t.problem ? el("div", "problem", t.problem) : null);
}

function drawStandings(ev) {
  const list = $("standings");
  const rows = (ev && ev.standings) || [];
  list.replaceChildren(...rows.map((r) => el("li", "standing",
    `${r.place}. ${r.name || r.team || r.player} ` + (r.total !== undefined ? `${r.total}` : (r.points ?? "")) +
    (r.final ? ` (${r.final})` : ""))));
  $("round").textContent = ev && ev.round ? `(round ${ev.round} of ${ev.rounds})` : "";
  const seat = ev && ev.seating;
  $("seating").replaceChildren(...(seat && seat.tables ? seat.tables.map((t) => el("div", "seat",
    `Table ${t.table}${t.feed ? " (" + t.feed + ")" : ""}: ` +
    Object.entries(t.seats).map(([k, v]) => k + " " + v).join(", "))) : []));
}

async function refresh() {
  try {
    const r = await fetch("/api/public" + (delay ? "?delay=" + encodeURIComponent(delay) : ""));
    const snap = await r.json();
    $("tables").replaceChildren(...snap.tables.map(drawTable));
    drawStandings(snap.event);
    $("delay").textContent = snap.delay ? `shown ${snap.delay} s behind play` : "live";
    $("conn").textContent = "";
    document.body.dataset.ready = "1";
  } catch (e) {
    $("conn").textContent = "reconnecting…";
  }
}
refresh();
setInterval(refresh, 1000);
