// The fleet view: every table's machine (release, devices, disk, clock, feed, config,
// calibration and its pictures), the tables asking to join, and the director's buttons.
// Every sentence comes from the server (/api/fleet): this script places them.
"use strict";
const $ = (id) => document.getElementById(id);
const POLL = 2000;
let lastTables = "";
let lastRequests = "";
let tableNames = [];

function words(reply) {
  if (!reply || !reply.problem) return "no answer from the director: check that it still runs, then try again";
  return reply.problem + (reply.fix ? ": " + reply.fix : "");
}

async function call(method, url, body) {
  let r;
  try {
    r = await fetch(url, {method, credentials: "same-origin",
                          headers: body ? {"Content-Type": "application/json"} : {},
                          body: body ? JSON.stringify(body) : undefined});
  } catch (e) {
    return {status: 0, ok: false, data: {problem: "the director cannot be reached", fix: "check the network, then try again"}};
  }
  let data = {};
  try { data = await r.json(); } catch (e) { data = {}; }
  return {status: r.status, ok: r.ok, data};
}

// --- the tables --------------------------------------------------------------------
function row(label, text, good) {
  return [el("dt", {}, label), el("dd", {class: good === true ? "good" : good === false ? "bad" : null}, text)];
}

function picture(t, kind, state, caption) {
  if (!state.text && !state.picture) return null;
  const failed = kind === "recalibrate" && state.ok === false;
  const url = `/fleet/camera/${encodeURIComponent(t.table)}.jpg?kind=${kind}&at=${state.at || 0}`;
  const img = state.picture ? el("img", {src: url, alt: `${caption}, ${t.title}`,
                                          onclick: () => showPicture(url, `${t.title}: ${state.text}`)}) : null;
  return el("figure", {class: (kind === "recalibrate" ? "recalibration" : "camera-view") + (failed ? " failed" : "")
                              + (state.waiting ? " waiting" : ""), "data-kind": kind},
    img, el("figcaption", {class: state.waiting ? "waiting-note" : null}, state.text));
}

function card(t, commandsOk) {
  const devices = t.devices.flatMap((d) => row(d.label, d.text, d.ok));
  const troubled = t.devices.some((d) => d.ok === false) || !t.clock_ok || !t.lag_ok || !!t.copied_text;
  const problem = el("p", {class: "problem card-problem", role: "alert", hidden: true});
  const ask = (kind) => async () => {
    problem.hidden = true;
    const r = await call("POST", `/api/fleet/${encodeURIComponent(t.table)}/${kind}`, {});
    if (!r.ok) { problem.textContent = words(r.data); problem.hidden = false; }
    refresh();
  };
  const remove = async () => {
    if (!window.confirm(`Remove ${t.title} from the event? Its broker password stops working at once; it must join again to play.`)) return;
    problem.hidden = true;
    const r = await call("POST", "/api/fleet/remove", {table: t.table});
    if (!r.ok) { problem.textContent = words(r.data); problem.hidden = false; }
    refresh();
  };
  return el("article", {class: "fleet-card" + (t.online ? "" : " offline") + (troubled ? " troubled" : ""),
                        "data-fleet-table": t.table, "aria-label": t.title},
    el("div", {class: "card-head"}, el("span", {class: "title"}, t.title),
       el("span", {class: "online" + (t.online ? "" : " is-offline")}, t.online_text)),
    el("div", {class: "version"}, t.version_text),
    t.copied_text ? el("p", {class: "copied-card", role: "alert"}, t.copied_text) : null,
    el("dl", {}, ...devices,
       ...row("Disk", t.disk_text, null),
       ...row("At the director", t.store_text, null),
       ...row("Clock", t.clock_text, t.clock_ok),
       ...row("Feed", t.lag_text, t.lag_ok),
       ...row("Config", t.config_text, null),
       ...row("Machine", t.machine_text, t.copied_text ? false : null),
       ...row("Calibration", t.calibration_text, null)),
    t.faults.length ? el("ul", {class: "faults"}, ...t.faults.map((f) => el("li", {}, f))) : null,
    el("div", {class: "pictures"},
       picture(t, "camera-view", t.camera_view, "The camera's view"),
       picture(t, "recalibrate", t.recalibration, "The last recalibration")),
    el("div", {class: "buttons"},
       el("button", {type: "button", class: "show-camera", disabled: !commandsOk, onclick: ask("camera-view")}, "Show the camera"),
       el("button", {type: "button", class: "recalibrate secondary", disabled: !commandsOk, onclick: ask("recalibrate")}, "Recalibrate"),
       el("button", {type: "button", class: "remove-table", onclick: remove}, "Remove…")),
    problem);
}

function drawTables(data) {
  const text = JSON.stringify([data.tables, data.commands_problem]);
  if (text === lastTables) return;
  lastTables = text;
  tableNames = data.tables.map((t) => t.title);
  $("commands-problem").textContent = data.commands_problem || "";
  $("commands-problem").hidden = !data.commands_problem;
  $("fleet-tables").replaceChildren(...data.tables.map((t) => card(t, !data.commands_problem)));
  const online = data.tables.filter((t) => t.online).length;
  $("fleet-count").textContent = data.tables.length ? `(${data.tables.length})` : "";
  $("fleet-summary").textContent = data.tables.length ? `${online} of ${data.tables.length} online` : "";
  $("no-fleet").hidden = data.tables.length > 0;
}

// --- the tables asking to join -------------------------------------------------------
function freeNames(count) {
  const used = new Set(tableNames.map((n) => n.trim().toLowerCase()));
  const out = [];
  for (let n = 1; out.length < count; n++) if (!used.has(`table ${n}`)) out.push(`Table ${n}`);
  return out;
}

function seenAt(seconds) {
  const at = new Date(seconds * 1000);
  const minutes = Math.max(0, Math.round((Date.now() - at.getTime()) / 60000));
  return `${at.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"})} (${minutes ? minutes + " min ago" : "just now"})`;
}

function requestForm(q, name) {
  const problem = el("span", {class: "problem request-problem", role: "alert"});
  const input = el("input", {name: "name", value: name, "aria-label": `name for the table showing ${q.code}`, required: true, maxlength: "60"});
  const form = el("form", {class: "join-request", id: `approve-${q.request}`, "data-request": q.request},
    el("span", {class: "code", title: "the code the table shows"}, q.code),
    el("span", {class: "from"}, `from ${q.host || "a table"} at ${q.address || "an unknown address"}, first seen ${seenAt(q.asked_at)}`),
    el("span", {class: "check", title: "the table's page shows the same: read it aloud together before approving"}, `check ${q.check}`),
    q.version ? el("span", {class: "quiet"}, `release ${q.version}`) : null,
    q.same_code ? el("span", {class: "same-code"}, "Two tables show this code: check which one you are approving, or refuse both and let them ask again.") : null,
    q.copied ? el("span", {class: "copied-code", role: "alert"}, q.copied) : null,
    el("label", {}, "Name ", input),
    el("button", {type: "submit", class: "approve"}, "Approve"),
    el("button", {type: "button", class: "refuse secondary", onclick: async () => {
      if (!window.confirm(`Refuse the table showing ${q.code}? It is told it was refused and may ask again.`)) return;
      problem.textContent = "";
      const r = await call("POST", "/api/fleet/refuse", {request: q.request, reason: "refused by the director"});
      if (!r.ok) { problem.textContent = words(r.data); return; }
      lastRequests = "";
      refresh();
    }}, "Refuse"),
    problem);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    problem.textContent = "";
    const r = await call("POST", "/api/fleet/approve", {request: q.request, code: q.code, name: input.value.trim()});
    if (!r.ok) { problem.textContent = words(r.data); return; }
    lastRequests = "";
    refresh();
  });
  return form;
}

function drawRequests(requests) {
  // A table's polls move its last_seen: not a reason to redraw the form being filled in.
  const text = JSON.stringify(requests.map(({last_seen, ...q}) => q));
  if (text === lastRequests) return;
  lastRequests = text;
  const typed = {};
  for (const f of $("requests").querySelectorAll("form")) typed[f.dataset.request] = f.elements.name.value;
  const names = freeNames(requests.length);
  $("requests").replaceChildren(...requests.map((q, i) => requestForm(q, typed[q.request] ?? names[i])));
  $("request-count").textContent = requests.length ? `(${requests.length})` : "";
  $("no-requests").hidden = requests.length > 0;
}

// --- reading -----------------------------------------------------------------------
async function refresh() {
  const r = await call("GET", "/api/fleet");
  if (r.status === 401) { location.href = "/"; return; }
  $("fleet-conn").className = "conn " + (r.ok ? "live" : "waiting");
  $("fleet-conn").textContent = r.ok ? "up to date" : "trying again…";
  $("fleet-problem").hidden = r.ok;
  if (!r.ok) { $("fleet-problem").textContent = words(r.data); return; }
  drawTables(r.data);
  $("fleet-rules-text").textContent = r.data.rules_text || "";
  $("fleet-rules").hidden = !r.data.rules_text;
  $("fleet-limits").textContent = r.data.limits_text || "";
  $("fleet-limits").hidden = !r.data.limits_text;
  if (!r.data.joining) {
    $("requests-problem").textContent = "Tables cannot join at this dashboard: start the director with `table-controller director start` to let them ask.";
    $("requests-problem").hidden = false;
    $("no-requests").hidden = true;
    return;
  }
  const q = await call("GET", "/api/fleet/requests");
  $("requests-problem").hidden = q.ok;
  if (!q.ok) { $("requests-problem").textContent = words(q.data); return; }
  $("director-key").textContent = q.data.key_fingerprint || "";
  $("director-key-line").hidden = !q.data.key_fingerprint;
  drawRequests(q.data.requests || []);
}

document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !$("lightbox").hidden) closePicture(); });

refresh();
setInterval(refresh, POLL);
