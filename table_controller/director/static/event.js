// The dashboard's event section: the format, roster, seating, standings, bracket and
// history, redrawn from the overview dashboard.js receives; the forms post to /api/event/*.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let shown = null;
  let another = false; // the director asked to start a new event beside the current one
  let titles = {}; // a feed table's id -> its name, from the overview
  const titled = (id) => titles[id] || id;

  function item(tag, text) { const e = document.createElement(tag); e.textContent = text; return e; }

  async function send(action, body) {
    const r = await fetch("/api/event/" + action, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    let data = {};
    try { data = await r.json(); } catch (e) { data = {ok: false, problem: "no answer", fix: "try again"}; }
    $("event-problem").textContent = data.ok ? "" : data.problem + (data.fix ? ": " + data.fix : "");
    $("event-done").textContent = data.ok ? (data.done || "") : "";
    if (data.ok) draw(data.event);
    return data;
  }

  // The words for the codes the event's data carries: seats, formats, changes.
  const SEATS = {N: "North", E: "East", S: "South", W: "West", NS: "North–South", EW: "East–West"};
  const FORMATS = {progressive: "progressive", rounds: "12-hand rounds", bracket: "bracket, best of 3"};
  const ACTIONS = {
    created: "created the event", absent: "marked a player absent", present: "marked a player present",
    substitute: "seated a substitute", assigned: "assigned the tables", result: "recorded a result",
    feed_result: "result received", playoff: "playoff", match_corrected: "match corrected",
    final: "final", final_corrected: "final corrected", public_delay: "set the hall screen's delay",
    round_time: "set the round's time", round_started: "started the round's clock",
  };
  // "table table-3" (a change the feed made) -> "Table 3", by the table's name.
  const whoWords = (who) => String(who).replace(/^table (.+)$/, (_, id) => titled(id));

  function seatingLines(seat) {
    if (!seat) return [];
    // "Table 1" where the feed's table of that name plays place 1; else "Place 1 (Maple)".
    const out = (seat.tables || []).map((t) => {
      const feed = t.feed ? titled(t.feed) : "";
      const where = feed === `Table ${t.table}` ? feed : `Place ${t.table} (${feed || "no table assigned yet"})`;
      return item("div", `${where}: ` + Object.entries(t.seats).map(([k, v]) => `${SEATS[k] || k} ${v}`).join(", "));
    });
    if (seat.byes && seat.byes.length) out.push(item("div", "Sitting out: " + seat.byes.join(", ")));
    if (seat.problem) { const p = item("div", seat.problem); p.className = "problem"; out.push(p); }
    return out;
  }

  function draw(ev) {
    if (!ev) return;
    shown = ev;
    // No event yet: only the call to create it; its headings come with something to show.
    const none = !ev.format;
    $("event-body").hidden = none;
    $("event-create").hidden = !none && !another;
    $("event-heading").hidden = none;
    $("event-create-heading").hidden = !none && !another;
    $("event-create-heading").textContent = none ? "Create the event" :
      "A new event (the one above keeps its games, for its own papers)";
    $("event-new").hidden = none || another;
    $("event-name").textContent = ev.name || "The event";
    $("event-kind").textContent = ev.format ? `(${FORMATS[ev.format] || ev.format})` : "(none yet)";
    $("event-round").textContent = ev.round ? `round ${ev.round} of ${ev.rounds}` : "";
    $("event-seating").replaceChildren(...seatingLines(ev.seating));
    $("event-next").replaceChildren(...seatingLines(ev.next));
    const team = teamNamer(ev);
    $("event-bracket").replaceChildren(...(ev.bracket || []).map((r) => item("div",
      `${r.name}: ` + r.matches.map((m, i) => m.bye ? `${team(m.top)} has a bye` :
        `match ${i + 1}, ${team(m.top)} v ${team(m.bottom)}` +
        (m.games.length ? ` (games won: ${m.games.map(team).join(", ")})` : "") +
        (m.winner ? `, won by ${team(m.winner)}` : "")).join("; "))));
    drawPlayoff(ev);
    $("event-unplaced").replaceChildren(...(ev.unplaced || []).map((u) => item("li",
      `${titled(u.table)}, game ${u.game}: ` +
      ((u.result && Array.isArray(u.result.scores)) ? `North–South ${u.result.scores[0]}, East–West ${u.result.scores[1]}` : "") +
      (u.problem ? " – " + u.problem : ""))));
    $("event-history").replaceChildren(...(ev.history || []).map((h) => item("li",
      `${new Date(h.at * 1000).toLocaleTimeString()} ${whoWords(h.who)}: ` +
      `${ACTIONS[h.action] || String(h.action).replace(/_/g, " ")}${h.reason ? " – " + h.reason : ""}`)));
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
    for (const id of ["event-seating", "event-next", "event-unplaced", "event-history"]) {
      $(id + "-heading").hidden = !$(id).children.length;
    }
    if (document.activeElement !== $("delay-seconds")) $("delay-seconds").value = ev.public_delay || 0;
    drawRoundClock(ev.round_clock);
    // The rounds' fields follow the event's round until the director changes them.
    for (const id of ["sub-round", "assign-round", "result-round"]) {
      const box = $(id);
      if (ev.round && !box.dataset.touched && document.activeElement !== box) box.value = ev.round;
    }
    drawAssign(ev);
    const bracket = ev.format === "bracket";
    $("result-place-label").textContent = bracket ? "Match" : "Place";
    $("result-place").hidden = bracket;
    $("result-match").hidden = !bracket;
    if (bracket) fill($("result-match"), matchChoices(ev, false));
    $("result-seats-field").hidden = ev.format !== "progressive";
  }

  // The round's time as set, in its form; the clock started only once a time is set.
  function drawRoundClock(clock) {
    for (const [id, value] of [["round-minutes", clock ? clock.minutes : ""], ["round-hands", clock && clock.hands ? clock.hands : ""]]) {
      const box = $(id);
      if (!box.dataset.touched && document.activeElement !== box) box.value = value;
    }
    $("event-round-start").hidden = !clock;
    $("round-clock-state").textContent = !clock ? "" : clock.started ?
      `(${clock.round ? "round " + clock.round + ", " : ""}started at ${new Date(clock.started * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"})})` :
      "(not started)";
    $("round-start-button").textContent = clock && clock.started ? "Start the clock again (the next round)" : "Start the round's clock";
  }

  // A bracket's teams by name ("Aces"), never their ids; "to come" where not known yet.
  function teamNamer(ev) {
    const names = Object.fromEntries((ev.teams || []).map((t) => [t.id, t.name.split(" (")[0]]));
    return (id) => (id ? names[id] || id : "to come");
  }

  // Each match a director can choose: "Semi-finals, match 1: Aces v Farmers" (its id the value).
  function matchChoices(ev, blank) {
    const team = teamNamer(ev), out = blank ? [["", "no match"]] : [];
    for (const r of ev.bracket || []) {
      r.matches.forEach((m, i) => {
        if (m.top && m.bottom) out.push([m.id, `${r.name}, match ${i + 1}: ${team(m.top)} v ${team(m.bottom)}`]);
      });
    }
    return out;
  }

  // One line a table: "Maple plays at place [1]", the round's assignment filled in.
  let assignKey = "";
  function drawAssign(ev) {
    const ids = Object.keys(titles);
    const bracket = ev.format === "bracket";
    const round = $("assign-round").value;
    const key = JSON.stringify([ids.map(titled), bracket, round, (ev.assign || {})[round] || {},
      bracket ? matchChoices(ev, true) : null]);
    $("assign-none").hidden = ids.length > 0;
    if (key === assignKey) return;
    assignKey = key;
    const now = (ev.assign || {})[round] || {};
    $("assign-rows").replaceChildren(...ids.map((id) => {
      const input = document.createElement(bracket ? "select" : "input");
      input.dataset.table = id;
      if (bracket) fill(input, matchChoices(ev, true));
      else input.placeholder = "e.g. 1";
      input.value = now[id] || "";
      const label = item("label", `${titled(id)} plays at ${bracket ? "match" : "place"}`);
      label.append(input);
      return label;
    }));
  }
  for (const id of ["sub-round", "assign-round", "result-round"]) {
    $(id).addEventListener("input", () => { $(id).dataset.touched = "yes"; });
  }
  $("assign-round").addEventListener("input", () => { if (shown) drawAssign(shown); });

  // The 12-hand rounds' playoff (001 s18 to s20) and a bracket's corrections.
  const STEPS = {
    final: (p) => `Final (rule 18): ${p.pairs}, ${p.hands} hands`,
    tie_playoff: (p) => `Playoff (rule 19): ${p.pairs}, ${p.hands} hands, then sudden death if still tied`,
    round_robin: (p) => `Round-robin playoff (rule 20): ${p.pairs}, ${p.hands} hands each`,
    sudden_death: (p) => `Sudden death (rule 19): ${p.pairs}, a hand at a time until one leads`,
  };
  let lastStep = "", lastFinal = "";

  function fill(sel, options) {
    const keep = sel.value;
    sel.replaceChildren(...options.map(([value, text]) => { const o = item("option", text); o.value = value; return o; }));
    if (keep && options.some(([v]) => v === keep)) sel.value = keep;
  }

  function drawPlayoff(ev) {
    const teams = ev.teams || [];
    const names = Object.fromEntries(teams.map((t) => [t.id, t.name]));
    $("event-playoff").hidden = ev.format !== "rounds";
    $("event-correct").hidden = ev.format !== "bracket";
    fill($("playoff-a"), teams.map((t) => [t.id, t.name]));
    fill($("playoff-b"), teams.map((t) => [t.id, t.name]));
    const matches = (ev.bracket || []).flatMap((r) => r.matches).filter((m) => m.top && m.bottom);
    fill($("correct-match"), matchChoices(ev, false).filter(([id]) => matches.some((m) => m.id === id)));
    const p = ev.playoff, lines = [];
    if (ev.format === "rounds" && !p) lines.push(item("div", "The playoff comes after the last round."));
    if (p && p.problem) { const e = item("div", p.problem); e.className = "problem"; lines.push(e); }
    if (p && p.kind) {
      const pairs = p.matches.map((m) => m.map((t) => names[t] || t).join(" v ")).join("; ");
      const step = item("div", STEPS[p.kind]({pairs, hands: p.hands}));
      step.className = "playoff-step"; step.dataset.kind = p.kind;
      lines.push(step);
      for (const g of p.played || []) {
        const li = item("div", `Played: ${names[g.teams[0]] || g.teams[0]} ${g.points[0]} – ${names[g.teams[1]] || g.teams[1]} ${g.points[1]}`);
        li.className = "playoff-played"; lines.push(li);
      }
      const key = p.kind + JSON.stringify(p.matches);
      if (key !== lastStep && p.kind !== "final") { $("playoff-a").value = p.matches[0][0]; $("playoff-b").value = p.matches[0][1]; }
      lastStep = key;
    }
    if (lines.length) lines.unshift(item("h3", "Playoff"));
    $("event-playoff-step").replaceChildren(...lines);
    drawFinal(ev, names);
  }

  // The final's result and the champion (001 s18; a tie played off as in s19).
  function drawFinal(ev, names) {
    const f = ev.final, p = ev.playoff, lines = [];
    $("event-final").hidden = ev.format !== "rounds";
    const finalists = p && p.kind === "final" ? p.teams : [];
    const choices = (ev.teams || []).map((t) => [t.id, t.name]);
    fill($("final-a"), choices);
    fill($("final-b"), choices);
    const key = JSON.stringify(finalists);
    if (finalists.length && key !== lastFinal) { $("final-a").value = finalists[0]; $("final-b").value = finalists[1]; }
    lastFinal = key;
    if (f) {
      const tie = f.tiebreak ? ` (tied; tie-break ${f.tiebreak[0]} – ${f.tiebreak[1]})` : "";
      const r = item("div", `Final: ${names[f.teams[0]] || f.teams[0]} ${f.points[0]} – ` +
        `${names[f.teams[1]] || f.teams[1]} ${f.points[1]}${tie}`);
      r.className = "final-result"; lines.push(r);
    }
    if (ev.champion) {
      const c = item("div", `Champion: ${names[ev.champion] || ev.champion}`);
      c.className = "champion"; lines.push(c);
    }
    $("event-final-result").replaceChildren(...lines);
  }

  $("event-playoff").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("playoff", {teams: [$("playoff-a").value, $("playoff-b").value],
      points: [$("playoff-a-points").value, $("playoff-b-points").value], reason: $("playoff-reason").value});
    if (r.ok) for (const id of ["playoff-a-points", "playoff-b-points", "playoff-reason"]) $(id).value = ""; });
  $("event-final").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("final", {teams: [$("final-a").value, $("final-b").value],
      points: [$("final-a-points").value, $("final-b-points").value],
      tiebreak: [$("final-a-tiebreak").value, $("final-b-tiebreak").value],
      correct: $("final-correct").checked, reason: $("final-reason").value});
    if (r.ok) {
      for (const id of ["final-a-points", "final-b-points", "final-a-tiebreak", "final-b-tiebreak", "final-reason"]) $(id).value = "";
      $("final-correct").checked = false;
    } });
  $("event-correct").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("correct_match", {match: $("correct-match").value, games: $("correct-games").value,
      reason: $("correct-reason").value});
    if (r.ok) for (const id of ["correct-games", "correct-reason"]) $(id).value = ""; });
  $("event-new").addEventListener("click", () => { another = true; if (shown) draw(shown); });
  $("event-create").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("create", {format: $("event-format").value, rounds: $("event-rounds").value,
                    entrants: $("event-entrants").value, name: $("event-name-input").value});
    if (r.ok) { another = false; $("event-name-input").value = ""; if (shown) draw(shown); } });
  $("event-absent").addEventListener("submit", (e) => { e.preventDefault();
    send("absent", {player: $("absent-player").value, absent: true, reason: $("absent-reason").value}); });
  $("present-button").addEventListener("click", () =>
    send("absent", {player: $("absent-player").value, absent: false, reason: $("absent-reason").value}));
  $("event-sub").addEventListener("submit", (e) => { e.preventDefault();
    send("substitute", {round: $("sub-round").value, absent: $("sub-absent").value,
                        substitute: $("sub-name").value, credit: $("sub-credit").value}); });
  $("event-assign").addEventListener("submit", (e) => { e.preventDefault();
    const places = {};
    for (const input of $("assign-rows").querySelectorAll("input, select")) {
      if (input.value.trim()) places[input.dataset.table] = input.value.trim();
    }
    send("assign", {round: $("assign-round").value, places}); });
  $("event-result").addEventListener("submit", (e) => { e.preventDefault();
    const result = {event: "game_ended", scores: [Number($("result-ns").value), Number($("result-ew").value)],
                    winner: $("result-winner").value || null};
    const seats = $("result-seats").value.trim();
    if (seats) result.individual = seats.split(/[\s,]+/).map(Number);
    if (!result.winner && result.scores[0] !== result.scores[1]) result.winner = result.scores[0] > result.scores[1] ? "NS" : "EW";
    const place = shown && shown.format === "bracket" ? $("result-match").value : $("result-place").value;
    send("result", {round: $("result-round").value, place, result,
                    reason: $("result-reason").value}); });
  $("event-delay").addEventListener("submit", (e) => { e.preventDefault();
    send("public_delay", {seconds: $("delay-seconds").value}); });
  for (const id of ["round-minutes", "round-hands"]) {
    $(id).addEventListener("input", () => { $(id).dataset.touched = "yes"; });
  }
  $("event-round-time").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("round_time", {minutes: $("round-minutes").value, hands: $("round-hands").value});
    if (r.ok) for (const id of ["round-minutes", "round-hands"]) delete $(id).dataset.touched; });
  $("event-round-start").addEventListener("submit", async (e) => { e.preventDefault();
    const r = await send("round_start", {minutes_ago: $("round-began").value});
    if (r.ok) $("round-began").value = 0; });

  // Drawn from the overview the dashboard's stream brings (dashboard.js), once logged in.
  window.tcEvent = {draw: (ev, names) => { titles = names || titles; try { draw(ev); } catch (e) { /* the next one */ } }};
})();
