// The director's dashboard: draws the overview pushed over SSE, reads a table's detail
// and an alert's evidence on demand, and posts logins, alert changes and rulings as
// JSON. Every word shown comes from the server (title, phase_text, sentence, ...):
// this script places them and maps no code to words of its own.
"use strict";
const $ = (id) => document.getElementById(id);
let overview = null;
let openTable = null;
let counts = {};
let watching = null; // the ruling just sent: {id, table, title}, until the table answers

// replaceChildren without the parts that are not there (null: nothing to show)
function fill(box, ...children) { box.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false)); }

async function post(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                              body: JSON.stringify(body || {}), credentials: "same-origin"});
  let data = {};
  try { data = await r.json(); } catch (e) { data = {ok: false, problem: "no answer", fix: "try again"}; }
  return data;
}

async function getJSON(url) {
  const r = await fetch(url, {credentials: "same-origin"});
  let data = {};
  try { data = await r.json(); } catch (e) { data = {problem: "no answer", fix: "try again"}; }
  return {ok: r.ok, data};
}

function words(problemReply) {
  return problemReply.problem + (problemReply.fix ? ": " + problemReply.fix : "");
}

function titleOf(table) {
  const t = overview && overview.tables.find((x) => x.table === table);
  return t ? t.title : table;
}

// --- login -------------------------------------------------------------------------
// Nothing but the login form until logged in: the data comes only with a session.
async function refreshMe() {
  const me = await (await fetch("/api/me", {credentials: "same-origin"})).json();
  $("login-form").hidden = !!me.director;
  $("who").hidden = !me.director;
  $("who-name").textContent = me.director || "";
  $("dashboard").hidden = !me.director;
  document.body.classList.toggle("logged-in", !!me.director);
  if (me.public_port) {
    $("public-link").href = `${location.protocol}//${location.hostname}:${me.public_port}/public`;
  }
  if (me.director) connect(); else { disconnect(); closeAlert(); closeRuling(); }
}
$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const r = await post("/api/login", {name: $("login-name").value, password: $("login-password").value});
  $("login-problem").textContent = r.ok ? "" : words(r);
  $("login-password").value = "";
  refreshMe();
});
$("logout").addEventListener("click", async () => { await post("/api/logout"); refreshMe(); });
$("results-final-button").addEventListener("click", confirmFinal);

// --- the overview --------------------------------------------------------------------
function line(cls, label, text) {
  return text ? el("div", {class: cls}, label ? el("span", {class: "label"}, label) : null, text) : null;
}

// Each table's pace (director/pace/model.py), by table: its card's line.
// Drawn on a card only while the round's clock runs (or has run out).
function paceOf(table) {
  const pace = overview && overview.pace;
  if (!pace || (pace.state !== "running" && pace.state !== "over")) return null;
  return (pace.tables || []).find((p) => p.table === table) || null;
}

function drawTables(tables) {
  $("tables").replaceChildren(...tables.map((t) => {
    const pace = paceOf(t.table);
    const teams = el("div", {class: "teams"}, ...t.teams.map((team) => el("div", {class: "team", "data-team": team.team},
      el("span", {class: "names"}, team.names), el("span", {class: "points"}, String(team.score)))));
    const across = t.across_texts || [];
    const late = pace && pace.state === "late";
    return el("button", {type: "button", class: "table-card" + (t.online ? "" : " offline") + (t.alerts ? " alerting" : "") + (across.length ? " across" : "") + (late ? " late" : ""),
                         "data-table": t.table, onclick: () => showTable(t.table)},
      el("div", {class: "card-head"}, el("span", {class: "title"}, t.title),
         el("span", {class: "online" + (t.online ? "" : " is-offline")}, t.online_text)),
      teams,
      line("phase", null, [t.phase_text, t.hand_text].filter(Boolean).join(" · ")),
      line("turn", "Turn: ", t.turn_text),
      t.trump_text ? el("div", {class: "trump" + (t.trump_red ? " red" : "")}, el("span", {class: "label"}, "Trump: "), t.trump_text) : null,
      across.length ? el("div", {class: "across-lines"}, ...across.map((text) => el("div", {class: "across-line"}, el("span", {class: "label"}, "Card across a line: "), text))) : null,
      t.alerts ? el("div", {class: "alerts-count"}, t.alerts === 1 ? "1 open alert" : `${t.alerts} open alerts`) : null,
      (t.faults || []).length ? el("div", {class: "faults"}, t.faults.map((f) => `${f.what}: ${f.problem}`).join("; ")) : null,
      t.backlog ? el("div", {class: "backlog"}, t.backlog === 1 ? "1 message not yet sent" : `${t.backlog} messages not yet sent`) : null,
      line("clock", null, t.clock_text),
      pace && pace.finish_text ? el("div", {class: "pace" + (late ? " late" : "")}, el("span", {class: "label"}, "Pace: "), pace.finish_text) : null);
  }));
  $("table-count").textContent = tables.length ? `(${tables.length})` : "";
  $("no-tables").hidden = tables.length > 0;
}

// The pace of play: the round's line, the tables that will not finish (in words, the
// latest first), and each table's hands, pace and projected finish.
function drawPace(pace) {
  $("pace-section").hidden = !pace || !(pace.tables || []).length && pace.state === "not_set" && !pace.problem;
  if (!pace) return;
  $("pace-round").textContent = pace.problem || pace.round_text;
  $("pace-round").className = pace.problem ? "pace-round problem" : "pace-round";
  $("pace-flagged").replaceChildren(...(pace.flagged || []).map((s) => el("li", {}, s)));
  $("pace-tables").querySelector("tbody").replaceChildren(...(pace.tables || []).map((p) =>
    el("tr", {class: p.state, "data-table": p.table},
      el("td", {}, p.title), el("td", {class: "number"}, String(p.hands_done)),
      el("td", {class: "number"}, p.hands_left === null ? "none" : (p.estimated ? "about " : "") + p.hands_left),
      el("td", {}, p.pace_text), el("td", {}, p.finish_text))));
  $("pace-how").textContent = pace.how || "";
}

function drawAlerts(alerts) {
  const open = alerts.filter((a) => a.state === "open").length;
  $("alert-count").textContent = alerts.length ? `(${open} open)` : "";
  $("no-alerts").hidden = alerts.length > 0;
  $("alerts").replaceChildren(...alerts.map((a) => {
    const li = el("li", {class: "alert " + a.state, "data-alert": a.id, "data-kind": a.category},
      el("div", {class: "alert-head"}, el("span", {class: "kind"}, a.heading),
         el("span", {class: "state"}, a.state === "open" ? "" : `${a.state}${a.who ? " by " + a.who : ""}`)),
      el("p", {class: "text"}, a.sentence),
      el("div", {class: "buttons"},
        el("button", {type: "button", class: "open-alert", onclick: () => openAlert(a.id)},
           a.category === "renege_proven" || a.pictured ? "Open the evidence" : "Open"),
        a.state === "open" ? el("button", {type: "button", class: "ack secondary", onclick: () => setAlert(a.id, "acknowledged")}, "Acknowledge") : null,
        el("button", {type: "button", class: "close secondary", onclick: () => setAlert(a.id, "closed")}, "Close")));
    return li;
  }));
}

async function setAlert(id, state) {
  const r = await post(`/api/alerts/${id}`, {state});
  if (!r.ok) window.alert(words(r));
}

// The games and the standings, as the results model gives them (tournament/results/view.py): the
// same rows, points and places as results.csv and the booklet.
function drawResults(res) {
  const games = res ? res.games : [];
  $("standings-section").hidden = !games.length && !(res && res.problem);
  const body = $("standings").querySelector("tbody");
  if (res && res.problem) { body.replaceChildren(el("tr", {}, el("td", {colspan: 8, class: "problem"}, res.problem))); return; }
  body.replaceChildren(...games.map((g) => {
    const status = [g.status, g.correction, ...g.rulings, g.problem].filter(Boolean);
    return el("tr", {"data-table": g.table, "data-game": g.game === null ? "" : String(g.game)},
      el("td", {}, g.round === null ? "" : String(g.round)), el("td", {}, g.title),
      el("td", {}, g.game === null ? "entered by hand" : String(g.game)),
      el("td", {}, g.ns_points === null ? g.ns : `${g.ns}: ${g.ns_points}`),
      el("td", {}, g.ew_points === null ? g.ew : `${g.ew}: ${g.ew_points}`),
      el("td", {}, g.winner || "none"), el("td", {}, status.join(". ")),
      el("td", {}, g.game === null ? "" : el("a", {class: "review-link", target: "_blank", rel: "noopener",
        href: `/review/${encodeURIComponent(g.table)}/${g.game}`}, "Replay")));
  }));
  const st = res ? res.standings : null;
  $("event-standings-heading").textContent = st && st.rows.length ? st.heading : "Standings";
  $("event-standings").querySelector("thead tr").replaceChildren(...(st ? st.heads : []).map((h) => el("th", {}, h)));
  $("event-standings").querySelector("tbody").replaceChildren(...(st ? st.rows : []).map((r) =>
    el("tr", {}, ...r.map((c) => el("td", {}, String(c))))));
  $("event-standings-note").textContent = st ? st.note : "";
  const state = !res || !st.rows.length ? "" : res.final ? res.final :
    res.over ? "Every result is in. These standings are provisional until you confirm them final." :
    "Provisional: the event is still being played.";
  $("results-state").textContent = state;
  $("results-final-button").hidden = !(res && res.over && res.state !== "final");
}

async function confirmFinal() {
  if (!window.confirm("Confirm these results final? The papers printed from now on say \"final\". A later correction makes them provisional again.")) return;
  const r = await post("/api/results/final", {});
  if (!r.ok) window.alert(words(r));
}

function draw(snap) {
  // The database is down: say so, and keep showing what was last known.
  $("store-problem").hidden = !snap.store_problem;
  $("store-problem").textContent = snap.store_problem ?
    "The director's store cannot be read: " + snap.store_problem + ". What is shown may be out of date; it updates again by itself." : "";
  overview = snap;
  if (snap.store_problem) return;
  drawTables(snap.tables);
  drawPace(snap.pace);
  drawAlerts(snap.alerts);
  drawResults(snap.results);
  const b = snap.broker;
  $("broker").textContent = b === null ? "not connected to the tables" :
    (b.connected ? "" : ("Broker: " + (b.problem || "connecting…")));
  let reload = false;
  for (const t of snap.tables) {
    if (t.table === openTable && counts[t.table] !== t.events) reload = true;
    counts[t.table] = t.events;
  }
  if (reload || (openTable && snap.changed.includes(openTable))) showTable(openTable);
  if (watching && snap.changed.includes(watching.table)) checkRuling();
  if (openAlertId !== null && openAlertWaiting && snap.changed.includes(openAlertTable)) refreshEvidence();
  if (window.tcEvent) window.tcEvent.draw(snap.event, Object.fromEntries(snap.tables.map((t) => [t.table, t.title])));
  document.body.dataset.version = snap.version;
}

// --- pictures, large, in the page ----------------------------------------------------
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  if (!$("lightbox").hidden) closePicture(); else if (!$("alert-detail").hidden) closeAlert();
});

function figure(cls, pic, fallback) {
  if (!pic) return null;
  const body = pic.url ?
    el("img", {class: cls, src: pic.url, alt: pic.caption, onclick: () => showPicture(pic.url, pic.caption)}) :
    el("div", {class: `no-picture ${cls}-missing`},
      pic.waiting ? "The picture has not been received yet: it is shown here as soon as it is." : fallback);
  return el("figure", {class: "evidence-figure"}, body, el("figcaption", {}, pic.caption));
}

// --- an alert's panel ------------------------------------------------------------------
let openAlertId = null;
let openAlertTable = null;
let openAlertWaiting = false; // a picture not received yet: drawn again when its table changes

// The alert's pictures and rule; whether a picture is still missing.
function evidenceParts(ev) {
  const parts = [];
  let missing = false;
  const fig = (cls, pic, fallback) => { if (pic && pic.waiting) missing = true; return figure(cls, pic, fallback); };
  if (ev && (ev.offence || ev.proof)) {
    const pair = el("div", {class: "evidence-pair"});
    fill(pair, fig("evidence-offence", ev.offence, "No picture of this play was received."),
      fig("evidence-proof", ev.proof, "The proof is the hand itself: no picture."));
    parts.push(pair);
  }
  if (ev && ev.trick && ev.trick.length) { // a claim: the trick it names, card by card
    const row = el("div", {class: "evidence-pair evidence-trick"});
    fill(row, ...ev.trick.map((p) => fig("evidence-play" + (p.accused ? " accused" : ""), p, "No picture of this play.")));
    parts.push(row);
  }
  if (ev && ev.rule && ev.rule.text) {
    parts.push(el("blockquote", {class: "rule-text"}, el("p", {}, ev.rule.text),
      el("cite", {}, `${ev.rule.source} (the event's rules: ${ev.rule.preset})`)));
  }
  return {parts, missing};
}

// A picture arrived after the panel opened: only the pictures are drawn again (the
// ruling form, and what the director typed in it, stay).
async function refreshEvidence() {
  const id = openAlertId;
  const {ok, data} = await getJSON(`/api/alerts/${id}/detail`);
  if (!ok || id !== openAlertId) return;
  const {parts, missing} = evidenceParts(data.evidence);
  openAlertWaiting = missing;
  $("alert-detail-evidence").replaceChildren(...parts);
}

async function openAlert(id) {
  openAlertId = id;
  const {ok, data} = await getJSON(`/api/alerts/${id}/detail`);
  if (!ok) { window.alert(words(data)); return; }
  const a = data;
  openAlertTable = a.table;
  $("alert-detail-heading").textContent = `${a.heading}: ${a.title}`;
  $("alert-detail-sentence").textContent = a.sentence;
  const {parts, missing} = evidenceParts(a.evidence);
  openAlertWaiting = missing;
  $("alert-detail-evidence").replaceChildren(...parts);
  fill($("alert-detail-actions"),
    a.state === "open" ? el("button", {type: "button", class: "secondary", onclick: async (e) => {
      const b = e.currentTarget; await setAlert(a.id, "acknowledged"); b.replaceWith(el("span", {class: "quiet"}, "Acknowledged: you are on it.")); }},
      "Acknowledge (I am on it)") : null,
    el("button", {type: "button", class: "secondary", onclick: async () => { await setAlert(a.id, "closed"); closeAlert(); }}, "Close the alert (no ruling)"),
    el("button", {type: "button", class: "secondary", onclick: () => { closeAlert(); showTable(a.table); }}, `Show ${a.title}`));
  $("alert-detail").hidden = false;
  if (["renege_proven", "renege_claimed", "irregularity"].includes(a.category)) {
    rulingForm($("alert-detail-ruling"), {table: a.table, title: a.title, alert: a.id});
  } else {
    $("alert-detail-ruling").replaceChildren();
  }
  $("alert-detail-close").focus();
}
function closeAlert() {
  $("alert-detail").hidden = true;
  if ($("alert-detail-ruling").contains($("ruling-form"))) closeRuling();
  openAlertId = null;
  openAlertTable = null;
  openAlertWaiting = false;
}
$("alert-detail-close").addEventListener("click", closeAlert);

// --- a table ---------------------------------------------------------------------------
async function showTable(table) {
  openTable = table;
  const {ok, data: d} = await getJSON(`/api/tables/${encodeURIComponent(table)}`);
  $("detail-section").hidden = false;
  if (!ok) { $("detail-summary").textContent = words(d); return; }
  const w = d.words;
  $("detail-name").textContent = d.title;
  $("detail-game").textContent = w.hand_text || "";
  // The game's hand review (its ended hands while it is being played), in a new tab.
  const review = $("detail-review");
  review.hidden = !d.games.length;
  review.href = `/review/${encodeURIComponent(table)}/${d.game}`;
  fill($("detail-summary"),
    el("div", {class: "teams"}, ...w.teams.map((team) => el("div", {class: "team"},
      el("span", {class: "names"}, team.names), el("span", {class: "points"}, String(team.score))))),
    line("phase", null, w.phase_text),
    line("turn", "Turn: ", w.turn_text),
    line("trump" + (w.trump_red ? " red" : ""), "Trump: ", w.trump_text),
    line("dealer", "Dealer: ", w.dealer_text),
    line("clock", null, w.clock_detail),
    d.missing ? el("div", {class: "problem"}, `Waiting for the table's event ${d.missing}`) : null,
    d.problem ? el("div", {class: "problem"}, d.problem) : null);
  $("detail-seats").replaceChildren(...d.seats.map((s) => el("span", {class: "seat", "data-seat": s.seat}, s.text)));
  $("detail-reneges").replaceChildren(...d.reneges.map((rn) => el("div", {class: "renege"},
    el("p", {}, `Renege in hand ${rn.hand}: ${rn.text}`),
    el("div", {class: "evidence"}, ...rn.pictures.map((p) => el("button", {type: "button", class: "thumb", onclick: () => showPicture(p.url, p.caption)},
      el("img", {src: p.url, alt: p.caption}), el("span", {}, p.caption)))))));
  $("detail-rulings-heading").hidden = !d.rulings.length;
  $("detail-rulings").replaceChildren(...d.rulings.map(rulingLine));
  $("history-heading").hidden = !d.history.length;
  $("history").replaceChildren(...d.history.slice().reverse().map((e) => el("li", {"data-seq": e.seq},
    el("span", {class: "what"}, e.text),
    e.then.length ? el("span", {class: "then"}, " → " + e.then.join("; ")) : null,
    e.picture ? el("button", {type: "button", class: "picture secondary", onclick: () => showPicture(e.picture, e.text)}, "picture") : null)));
}
$("detail-close").addEventListener("click", () => { $("detail-section").hidden = true; openTable = null;
  if ($("detail-ruling").contains($("ruling-form"))) closeRuling(); });
$("detail-rule").addEventListener("click", () => {
  if (openTable) rulingForm($("detail-ruling"), {table: openTable, title: titleOf(openTable), alert: null});
});

// --- rulings ---------------------------------------------------------------------------
// A ruling and where it is: pending (kept, sent again when the table is back),
// delivered (the table has it), applied, or refused with the table's reason.
const RULING_STATES = {
  pending: (r) => `pending: not yet at the table (sent ${r.sends || 1}×; sent again when the table is online)`,
  delivered: () => "delivered: the table has it, applying it",
  applied: () => "applied by the table",
  refused: (r) => `refused by the table: ${r.ack_problem}`,
};
function rulingLine(r) {
  const where = r.game ? ` (game ${r.game}, hand ${r.hand ?? "–"})` : "";
  const state = (RULING_STATES[r.state] || RULING_STATES.pending)(r);
  return el("li", {class: "ruling", "data-state": r.state || "pending", "data-ruling": r.ruling_id},
    `${r.text}${where} by ${r.director}: ${r.reason} — `, el("b", {class: "state"}, state));
}

// The form exists only once a director chose an alert or a table. Its words come from
// the server (/api/alerts/ID/defaults, /api/tables/NAME/ruling): what each choice does,
// the teams by their players, and, from an alert, the team and points a dismissal
// moves, filled in. The ruling itself is the director's choice; a field the director
// changed is never filled again when another ruling is chosen.
function closeRuling() { const f = $("ruling-form"); if (f) f.remove(); }
function rulingForm(box, target) {
  closeRuling();
  const form = el("form", {id: "ruling-form", "data-table": target.table},
    el("h3", {}, `Ruling at ${target.title}`),
    el("p", {id: "ruling-loading", class: "quiet"}, "Reading what the dashboard knows…"));
  box.replaceChildren(form);
  const url = target.alert !== null ? `/api/alerts/${target.alert}/defaults` :
    `/api/tables/${encodeURIComponent(target.table)}/ruling`;
  getJSON(url).then(({ok, data}) => {
    if (!form.isConnected) return; // closed, or another form opened meanwhile
    if (!ok) { fill($("ruling-loading"), words(data)); return; }
    rulingFields(form, target, data);
  });
}

function rulingFields(form, target, d) {
  // The choices as a list, each saying what it does: nothing chosen for the director.
  const kind = el("fieldset", {id: "ruling-kind", class: "choices"}, el("legend", {}, "Choose a ruling"),
    ...d.kinds.map((k) => el("label", {class: "choice"},
      el("input", {type: "radio", name: "ruling-kind", value: k.kind, required: true}), k.text)));
  const chosen = () => { const c = kind.querySelector("input:checked"); return c ? c.value : ""; };
  const team = el("select", {id: "ruling-team"}, el("option", {value: "", selected: true, disabled: true}, "Choose the team…"),
    ...d.teams.map((t) => el("option", {value: t.team}, t.text)));
  const points = el("input", {id: "ruling-points", type: "number", step: "1"});
  const reason = el("textarea", {id: "ruling-reason", rows: "2", placeholder: "why, in a few words"});
  const pointsBox = el("label", {class: "field points", hidden: true}, "Points for that team (negative takes points away) ", points);
  const teamBox = el("label", {class: "field points", hidden: true}, "Team ", team);
  const reasonBox = el("label", {class: "field", hidden: true}, "Reason (required: it is kept with the ruling) ", reason);
  const send = el("button", {id: "ruling-send", type: "submit", hidden: true}, "Sign and send the ruling");
  for (const f of [team, points, reason]) f.addEventListener("input", () => { f.dataset.touched = "1"; });
  fill(form, form.firstChild,
    d.where_text ? el("p", {id: "ruling-where", class: "quiet"}, d.where_text) : null,
    kind, teamBox, pointsBox, reasonBox, send,
    el("div", {id: "ruling-result", role: "status"}));
  kind.addEventListener("change", () => {
    const k = chosen(), scored = k === "dismiss_renege" || k === "adjust_score";
    const given = d.fill[k] || {};
    teamBox.hidden = pointsBox.hidden = !scored;
    reasonBox.hidden = send.hidden = !k;
    if (!team.dataset.touched) team.value = given.team || "";
    if (!points.dataset.touched) points.value = given.points ?? "";
    if (!reason.dataset.touched) reason.value = given.reason || "";
    reason.placeholder = given.placeholder || "why, in a few words";
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const k = chosen();
    const body = {table: target.table, kind: k, reason: reason.value};
    if (k === "dismiss_renege" || k === "adjust_score") { body.team = team.value; body.points = points.value; }
    if (target.alert !== null) body.alert = target.alert;
    const r = await post("/api/rulings", body);
    const out = $("ruling-result");
    out.className = r.ok ? "ok" : "bad";
    if (!r.ok) { out.textContent = words(r); return; }
    out.textContent = `Sent to ${target.title}, signed by ${r.ruling.director}: waiting for the table to apply it…`;
    watching = {id: r.ruling.ruling_id, table: target.table, title: target.title};
    checkRuling();
  });
  kind.querySelector("input").focus();
}

// The ruling sent is followed until the table answers (applied or refused).
async function checkRuling() {
  const w = watching;
  if (!w) return;
  const {ok, data} = await getJSON(`/api/tables/${encodeURIComponent(w.table)}`);
  // Answers may come back out of order: once the table's answer is shown, an older
  // reading (still pending) must not replace it.
  if (watching !== w) return;
  const r = ok && data.rulings.find((x) => x.ruling_id === w.id);
  const out = $("ruling-result");
  if (!r || !out) return;
  if (r.state === "applied" || r.state === "refused") watching = null;
  out.className = r.state === "refused" ? "bad" : "ok";
  out.textContent = r.state === "applied" ? `Ruling applied at ${w.title}.` :
    r.state === "refused" ? `${w.title} refused the ruling: ${r.ack_problem}` : `Sent to ${w.title}: ${RULING_STATES[r.state || "pending"](r)}`;
  if (openTable === w.table) showTable(openTable);
}
setInterval(() => { if (watching) checkRuling(); }, 2000);

// --- the stream ----------------------------------------------------------------------
let source = null;
function connect() {
  if (source) return;
  source = new EventSource("/events");
  source.onopen = () => { $("conn").textContent = "live"; $("conn").className = "conn live"; };
  source.onerror = () => {
    $("conn").textContent = "reconnecting…"; $("conn").className = "conn waiting";
    // Refused (the session ended): back to the login form.
    if (source.readyState === EventSource.CLOSED) { source = null; refreshMe(); }
  };
  source.onmessage = (m) => {
    const snap = merged(JSON.parse(m.data));
    if (snap) draw(snap); else { disconnect(); connect(); }  // out of step: start again whole
  };
}
// A snapshot comes whole ("full") when the page connects or fell behind, else as what
// changed since the one before ("base"): the changed tables' lines, and the other parts
// only when they changed (dashboard/stream.py).
function merged(msg) {
  if (msg.full) return msg;
  if (!overview || msg.base !== overview.version) return null;
  const lines = Object.fromEntries(overview.tables.map((t) => [t.table, t]));
  Object.assign(lines, msg.tables || {});
  const order = msg.order !== undefined ? msg.order : overview.tables.map((t) => t.table);
  const snap = {...overview, ...msg, tables: order.map((t) => lines[t]).filter(Boolean)};
  delete snap.base; delete snap.order;
  return snap;
}
function disconnect() {
  if (source) { source.close(); source = null; }
  $("conn").textContent = "log in to see the tables"; $("conn").className = "conn waiting";
}
refreshMe();
