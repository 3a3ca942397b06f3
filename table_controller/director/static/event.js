// The dashboard's event section: the format, roster, seating, standings, bracket and
// history, redrawn from the overview pushed over SSE; the forms post to /api/event/*.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let shown = null;

  function item(tag, text) { const e = document.createElement(tag); e.textContent = text; return e; }

  async function send(action, body) {
    const r = await fetch("/api/event/" + action, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    let data = {};
    try { data = await r.json(); } catch (e) { data = {ok: false, problem: "no answer", fix: "try again"}; }
    $("event-problem").textContent = data.ok ? "" : data.problem + (data.fix ? ": " + data.fix : "");
    if (data.ok) draw(data.event);
    return data;
  }

  function seatingLines(seat) {
    if (!seat) return [];
    const out = (seat.tables || []).map((t) => item("div",
      `Table ${t.table}${t.feed ? " (" + t.feed + ")" : ""}: ` +
      Object.entries(t.seats).map(([k, v]) => `${k} ${v}`).join(", ")));
    if (seat.byes && seat.byes.length) out.push(item("div", "Sitting out: " + seat.byes.join(", ")));
    if (seat.problem) { const p = item("div", seat.problem); p.className = "problem"; out.push(p); }
    return out;
  }

  function draw(ev) {
    if (!ev) return;
    shown = ev;
    $("event-kind").textContent = ev.format ? `(${ev.format})` : "(none yet)";
    $("event-round").textContent = ev.round ? `round ${ev.round} of ${ev.rounds}` : "";
    $("event-seating").replaceChildren(...seatingLines(ev.seating));
    $("event-next").replaceChildren(...seatingLines(ev.next));
    $("event-standings").replaceChildren(...(ev.standings || []).map((s) => item("li",
      `${s.place}. ${s.name || s.team || s.player}` +
      (s.total !== undefined ? ` – ${s.total} points, ${s.rounds_won} rounds won` : "") +
      (s.points !== undefined ? ` – ${s.points} points, ${s.wins} wins` : ""))));
    $("event-bracket").replaceChildren(...(ev.bracket || []).map((r) => item("div",
      `${r.name}: ` + r.matches.map((m) => `${m.id} ${m.top || "?"} v ${m.bottom || (m.bye ? "bye" : "?")}` +
        (m.winner ? ` → ${m.winner}` : ` (${m.games.length} games)`)).join("; "))));
    $("event-unplaced").replaceChildren(...(ev.unplaced || []).map((u) => item("li",
      `${u.table}, game ${u.game}: ${JSON.stringify(u.result.scores)}${u.problem ? " – " + u.problem : ""}`)));
    $("event-history").replaceChildren(...(ev.history || []).map((h) => item("li",
      `${new Date(h.at * 1000).toLocaleTimeString()} ${h.who}: ${h.action}${h.reason ? " – " + h.reason : ""}`)));
    const roster = ev.roster || {players: []};
    const absent = new Set(roster.absent || []);
    for (const id of ["absent-player", "sub-absent"]) {
      const sel = $(id), keep = sel.value;
      sel.replaceChildren(...roster.players.map((p) => {
        const o = item("option", p.name + (absent.has(p.id) ? " (absent)" : ""));
        o.value = p.id; return o;
      }));
      if (keep) sel.value = keep;
    }
    if (document.activeElement !== $("delay-seconds")) $("delay-seconds").value = ev.public_delay || 0;
  }

  $("event-create").addEventListener("submit", (e) => { e.preventDefault();
    send("create", {format: $("event-format").value, rounds: $("event-rounds").value,
                    entrants: $("event-entrants").value}); });
  $("event-absent").addEventListener("submit", (e) => { e.preventDefault();
    send("absent", {player: $("absent-player").value, absent: true, reason: $("absent-reason").value}); });
  $("present-button").addEventListener("click", () =>
    send("absent", {player: $("absent-player").value, absent: false, reason: $("absent-reason").value}));
  $("event-sub").addEventListener("submit", (e) => { e.preventDefault();
    send("substitute", {round: $("sub-round").value, absent: $("sub-absent").value,
                        substitute: $("sub-name").value, credit: $("sub-credit").value}); });
  $("event-assign").addEventListener("submit", (e) => { e.preventDefault();
    const places = {};
    for (const line of $("assign-places").value.split("\n")) {
      const [t, p] = line.split("=").map((x) => (x || "").trim());
      if (t) places[t] = p;
    }
    send("assign", {round: $("assign-round").value, places}); });
  $("event-result").addEventListener("submit", (e) => { e.preventDefault();
    const result = {event: "game_ended", scores: [Number($("result-ns").value), Number($("result-ew").value)],
                    winner: $("result-winner").value || null};
    const seats = $("result-seats").value.trim();
    if (seats) result.individual = seats.split(/[\s,]+/).map(Number);
    if (!result.winner && result.scores[0] !== result.scores[1]) result.winner = result.scores[0] > result.scores[1] ? "NS" : "EW";
    send("result", {round: $("result-round").value, place: $("result-place").value, result,
                    reason: $("result-reason").value}); });
  $("event-delay").addEventListener("submit", (e) => { e.preventDefault();
    send("public_delay", {seconds: $("delay-seconds").value}); });

  fetch("/api/event").then((r) => r.json()).then(draw);
  const source = new EventSource("/events");
  source.onmessage = (m) => { try { draw(JSON.parse(m.data).event); } catch (e) { /* next one */ } };
})();
