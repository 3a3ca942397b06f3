// The director's dashboard: draws the overview pushed over SSE, reads a table's
// detail on demand, and posts logins, alert changes and rulings as JSON.
"use strict";
const $ = (id) => document.getElementById(id);
let overview = null;
let openTable = null;
let counts = {};

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

async function post(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                              body: JSON.stringify(body || {}), credentials: "same-origin"});
  let data = {};
  try { data = await r.json(); } catch (e) { data = {ok: false, problem: "no answer", fix: "try again"}; }
  return data;
}

function words(problemReply) {
  return problemReply.problem + (problemReply.fix ? ": " + problemReply.fix : "");
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
  if (me.director) connect(); else disconnect();
}
$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const r = await post("/api/login", {name: $("login-name").value, password: $("login-password").value});
  $("login-problem").textContent = r.ok ? "" : words(r);
  $("login-password").value = "";
  refreshMe();
});
$("logout").addEventListener("click", async () => { await post("/api/logout"); refreshMe(); });

// --- the overview --------------------------------------------------------------------
function drawTables(tables) {
  const box = $("tables");
  box.replaceChildren(...tables.map((t) => {
    const score = t.scores ? `NS ${t.scores[0]} – EW ${t.scores[1]}` : "";
    const card = el("div", {class: "table-card" + (t.online ? "" : " offline") + (t.alerts ? " alerting" : ""),
                            "data-table": t.table, onclick: () => showTable(t.table)},
      el("div", {class: "name"}, t.table),
      el("div", {class: "online"}, t.online ? "online" : "OFFLINE"),
      el("div", {class: "hand"}, t.hand ? `game ${t.game}, hand ${t.hand}, ${t.phase || ""}` : (t.phase || "")),
      el("div", {class: "score"}, score),
      el("div", {class: "faults"}, (t.faults || []).map((f) => `${f.what}: ${f.problem}`).join("; ")),
      el("div", {class: "alerts-count"}, t.alerts ? `${t.alerts} open alert(s)` : ""),
      t.backlog ? el("div", {class: "backlog"}, `${t.backlog} message(s) not yet sent`) : null);
    return card;
  }));
  $("table-count").textContent = `(${tables.length})`;
  const sel = $("ruling-table");
  const chosen = sel.value;
  sel.replaceChildren(...tables.map((t) => el("option", {value: t.table}, t.table)));
  if (chosen) sel.value = chosen;
}

function drawAlerts(alerts) {
  $("alert-count").textContent = `(${alerts.filter((a) => a.state === "open").length} open)`;
  $("alerts").replaceChildren(...alerts.map((a) => {
    const li = el("li", {class: "alert " + a.state, "data-id": a.id, "data-kind": a.kind, "data-table": a.table},
      el("span", {class: "kind"}, a.kind.replace(/_/g, " ")), " ",
      el("a", {href: "#", onclick: (e) => { e.preventDefault(); showTable(a.table); }}, a.table), ": ",
      el("span", {class: "text"}, a.text), " ",
      el("span", {class: "state"}, a.state + (a.who ? ` (${a.who})` : "")), " ");
    if (a.state === "open") li.append(el("button", {class: "ack", onclick: () => setAlert(a.id, "acknowledged")}, "Acknowledge"), " ");
    li.append(el("button", {class: "close", onclick: () => setAlert(a.id, "closed")}, "Close"));
    if (a.kind === "renege_proven" || a.kind === "renege_claimed") {
      li.append(" ", el("button", {class: "rule", onclick: () => ruleOn(a)}, "Rule…"));
    }
    return li;
  }));
}

async function setAlert(id, state) {
  const r = await post(`/api/alerts/${id}`, {state});
  if (!r.ok) alert(words(r));
}

async function ruleOn(a) {
  $("ruling-table").value = a.table;
  $("ruling-alert").value = a.id;
  $("ruling-kind").value = "confirm_renege";
  const d = await (await fetch(`/api/alerts/${a.id}/defaults`, {credentials: "same-origin"})).json();
  if (d.team) { $("ruling-team").value = d.team; $("ruling-points").value = d.points; }
  $("ruling-reason").focus();
}

function drawStandings(rows) {
  const body = $("standings").querySelector("tbody");
  body.replaceChildren(...rows.map((r) => r.problem ? el("tr", {}, el("td", {colspan: 7, class: "problem"}, r.problem)) :
    el("tr", {}, el("td", {}, r.table), el("td", {}, String(r.game)),
       el("td", {}, ["N", "E", "S", "W"].map((s) => (r.players || {})[s]).filter(Boolean).join(", ")), el("td", {}, String(r.NS)),
       el("td", {}, String(r.EW)), el("td", {}, String(r.hands)), el("td", {}, r.winner || ""))));
}

function draw(snap) {
  // The database is down: say so, and keep showing what was last known.
  $("store-problem").hidden = !snap.store_problem;
  $("store-problem").textContent = snap.store_problem ?
    "The director's store cannot be read: " + snap.store_problem + ". What is shown may be out of date; it updates again by itself." : "";
  if (snap.store_problem) return;
  overview = snap;
  drawTables(snap.tables);
  drawAlerts(snap.alerts);
  drawStandings(snap.standings);
  const b = snap.broker;
  $("broker").textContent = b === null ? "not connected to the tables" :
    (b.connected ? "broker connected" : ("broker: " + (b.problem || "connecting…")));
  let reload = false;
  for (const t of snap.tables) {
    if (t.table === openTable && counts[t.table] !== t.events) reload = true;
    counts[t.table] = t.events;
  }
  if (reload || (openTable && snap.changed.includes(openTable))) showTable(openTable);
  if (window.tcEvent) window.tcEvent.draw(snap.event);
  document.body.dataset.version = snap.version;
}

// --- a table -------------------------------------------------------------------------
async function showTable(name) {
  openTable = name;
  const r = await fetch(`/api/tables/${encodeURIComponent(name)}`, {credentials: "same-origin"});
  const d = await r.json();
  if (!r.ok) { $("detail-summary").textContent = words(d); return; }
  $("detail-section").hidden = false;
  $("detail-name").textContent = name;
  $("detail-game").textContent = d.game ? `game ${d.game}` : "";
  $("ruling-table").value = name;
  const v = d.view;
  if (v) {
    const trump = v.trump ? ` trump ${v.trump.name || v.trump.suit || ""}` : "";
    $("detail-summary").textContent = `NS ${v.score.NS} – EW ${v.score.EW}; hand ${v.hand ?? "–"}; ${v.expecting}${trump}` +
      (d.missing ? ` (waiting for event ${d.missing})` : "") + (d.problem ? ` (${d.problem})` : "");
    $("detail-seats").replaceChildren(...v.seats.map((s) => el("span", {class: "seat", "data-seat": s.seat},
      `${s.words}: ${s.name}${s.dealer ? " (dealer)" : ""}${s.card ? " plays " + s.card.text : ""}`)));
    $("detail-reneges").replaceChildren(...v.reneges.map((rn) => el("div", {class: "renege"},
      el("div", {}, `Renege ${rn.status}: ${rn.text}`),
      el("div", {class: "evidence"}, ...rn.evidence.map((e) => el("img", {src: e.url, alt: e.card, title: e.card}))))));
    $("detail-irregularities").replaceChildren(...v.irregularities.map((i) => el("div", {class: "irregularity"}, `${i.title}: ${i.text}`)));
  }
  $("detail-rulings").replaceChildren(...d.rulings.map(rulingLine));
  $("history").replaceChildren(...d.history.slice().reverse().map((e) => {
    const outs = e.outputs.map((o) => o.event).join(", ");
    const li = el("li", {"data-seq": e.seq}, `${e.seq}. ${e.input.event}` +
      (e.input.seat ? ` ${e.input.seat}` : "") + (e.input.card ? ` ${e.input.card}` : "") + (outs ? ` → ${outs}` : ""));
    if (e.evidence) li.append(" ", el("a", {href: `/evidence/${encodeURIComponent(name)}/${e.game}/${e.seq}.png`, target: "_blank"}, "picture"));
    return li;
  }));
}

// --- rulings -------------------------------------------------------------------------
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
    `${r.kind.replace(/_/g, " ")}${where} by ${r.director}: ${r.reason} — `, el("b", {class: "state"}, state));
}

function kindChanged() {
  const k = $("ruling-kind").value;
  for (const l of document.querySelectorAll("#ruling-form .points")) l.hidden = !(k === "dismiss_renege" || k === "adjust_score");
}
$("ruling-kind").addEventListener("change", kindChanged);
kindChanged();
$("ruling-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const k = $("ruling-kind").value;
  const body = {table: $("ruling-table").value, kind: k, reason: $("ruling-reason").value};
  if (k === "dismiss_renege" || k === "adjust_score") { body.team = $("ruling-team").value; body.points = $("ruling-points").value; }
  if ($("ruling-alert").value) body.alert = Number($("ruling-alert").value);
  const r = await post("/api/rulings", body);
  const out = $("ruling-result");
  out.className = r.ok ? "ok" : "bad";
  out.textContent = r.ok ? `Ruling sent to ${r.ruling.table} (${r.ruling.kind.replace(/_/g, " ")}), signed by ${r.ruling.director}` : words(r);
  if (r.ok) { $("ruling-reason").value = ""; $("ruling-alert").value = ""; if (openTable) showTable(openTable); }
});

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
  source.onmessage = (m) => draw(JSON.parse(m.data));
}
function disconnect() {
  if (source) { source.close(); source = null; }
  $("conn").textContent = "log in to see the tables"; $("conn").className = "conn waiting";
}
refreshMe();
