// The live table page: draws each snapshot the table sends over /events, and sends
// the touchscreen's choices to /api/input. Every snapshot is the whole picture, so the
// page redraws from it alone; after a dropped stream it reconnects by itself.
"use strict";

const SEATS = ["N", "E", "S", "W"];
let source = null;
let retryTimer = null;
let sending = false;
let latest = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function byId(id) { return document.getElementById(id); }

function cardNode(card, small) {
  const node = el("div", "card" + (card.red ? " red" : "") + (small ? " small" : ""));
  node.dataset.card = card.code;
  node.setAttribute("aria-label", card.text);
  node.append(el("span", "rank", card.rank), el("span", "symbol", card.symbol));
  return node;
}

// --- the connection ------------------------------------------------------------------

function setConn(state, words) {
  const node = byId("conn");
  node.className = "conn " + state;
  node.textContent = words;
}

function connect() {
  retryTimer = null;
  if (source) source.close();
  source = new EventSource("/events");
  source.onopen = () => setConn("live", "live");
  source.onmessage = (msg) => {
    setConn("live", "live");
    render(JSON.parse(msg.data));
  };
  source.onerror = () => {
    setConn("reconnecting", "reconnecting…");
    // The browser retries by itself unless it gave up (a refused or broken answer).
    if (source.readyState === EventSource.CLOSED && retryTimer === null) {
      retryTimer = setTimeout(connect, 1500);
    }
  };
}

// --- drawing a snapshot ------------------------------------------------------------------

function render(snap) {
  latest = snap;
  document.body.dataset.version = String(snap.version);
  document.body.dataset.phase = snap.phase;
  byId("table-name").textContent = snap.table;
  byId("rules").textContent = snap.rules.title;
  renderScore(snap);
  renderSeats(snap);
  renderCentre(snap);
  renderActions(snap);
  renderLastTrick(snap);
  renderResult(snap);
  renderProblems(snap);
  renderNotices(snap);
  renderAcross(snap);
  renderHealth(snap);
  renderKiosk(snap);
  renderGameOver(snap);
  const info = byId("info");
  const result = byId("result");
  info.hidden = byId("trump").hidden && (result.hidden || result.parentElement !== info);
  fitNames();
}

// A player's name wraps only between words; a name too long for its seat (a long
// word, or too many lines) is drawn smaller until it fits.
const LEAST_NAME_PX = 9;

function fitNames() {
  for (const node of document.querySelectorAll(".seat .name")) fitText(node, node.parentElement);
  fitText(byId("expecting"), byId("expecting"));
  const over = byId("game-over");
  if (!over.hidden) fitText(over.querySelector(".over-title"), over);
}

function fitText(node, box) {
  node.style.fontSize = "";
  let size = parseFloat(getComputedStyle(node).fontSize);
  for (let i = 0; i < 60 && size > LEAST_NAME_PX; i++) {
    const wide = node.scrollWidth > node.clientWidth;
    const tall = box.scrollHeight > box.clientHeight + 1;
    if (!wide && !tall) break;
    size = Math.max(LEAST_NAME_PX, size * 0.92);
    node.style.fontSize = size.toFixed(1) + "px";
  }
}

function seatOf(snap, letter) {
  return snap.seats.find((s) => s.seat === letter) || null;
}

// A player as a sentence names them: "Bo (East)".
function nameAndSeat(seat) {
  return seat.name === seat.words ? seat.name : seat.name + " (" + seat.words + ")";
}

const TEAM_SHORT = { NS: "N–S", EW: "E–W" };

function renderScore(snap) {
  const score = snap.score;
  byId("score-NS").textContent = score.NS;
  byId("score-EW").textContent = score.EW;
  const parts = [];
  if (score.to_win !== null) parts.push("to " + score.to_win);
  if (score.hands_per_game !== null) {
    parts.push("hand " + Math.min(score.hands_played + 1, score.hands_per_game) + " of " + score.hands_per_game);
  }
  if (score.games) parts.push("games " + score.games.NS + "–" + score.games.EW);
  byId("to-win").textContent = parts.join(" · ");
  const tricks = byId("tricks-won");
  tricks.textContent = snap.tricks_text || "";
  tricks.hidden = !snap.tricks_text;
}

function renderSeats(snap) {
  for (const seat of snap.seats) {
    const node = byId("seat-" + seat.seat);
    node.className = "seat " + seat.team +
      (seat.to_act ? " to-act" : "") +
      (seat.sitting_out ? " sitting-out" : "") +
      (seat.bot ? " bot" : "") +
      (snap.maker === seat.seat ? " maker" : "");
    node.replaceChildren();
    const where = el("div", "where", seat.words + " · " + TEAM_SHORT[seat.team]);
    if (seat.bot) {
      const tag = el("span", "bot-tag", "BOT");
      tag.title = "a bot plays this seat";
      where.append(tag);
    }
    node.append(el("div", "name", seat.name), where);
    if (seat.dealer) {
      const chip = el("div", "chip", "D");
      chip.title = "dealer";
      node.append(chip);
    }
    if (snap.hand !== null && seat.tricks) {
      node.append(el("div", "tricks", seat.tricks + (seat.tricks === 1 ? " trick" : " tricks")));
    }
    if (snap.score.individual) {
      node.append(el("div", "where", snap.score.individual[seat.seat] + " points"));
    }
    const bot = snap.kiosk && snap.kiosk.bots[seat.seat];
    if (bot && bot.count) node.append(el("div", "bot-hand", "🂠 " + bot.count + " face down"));
    const slot = byId("play-" + seat.seat);
    slot.replaceChildren();
    if (seat.card) {
      const card = cardNode(seat.card, false);
      const play = snap.trick && snap.trick.plays.find((p) => p.seat === seat.seat);
      if (play && play.dead) card.classList.add("dead");
      slot.append(card);
    }
  }
}

function renderCentre(snap) {
  const trump = byId("trump");
  if (snap.trump) {
    trump.hidden = false;
    trump.className = snap.trump.red ? "red" : "";
    trump.replaceChildren();
    const words = el("div", "words");
    words.append(el("span", "word", snap.trump.name + " are trump"));
    const maker = seatOf(snap, snap.maker);
    let by = maker ? "made by " + maker.name : "";
    if (snap.alone) by += " · alone";
    if (snap.bid) by += " · bid " + snap.bid.amount;
    words.append(el("span", "by", by));
    trump.append(el("span", "symbol", snap.trump.symbol), words);
    if (snap.trump.suit === "NT") words.firstChild.textContent = "No trump";
  } else {
    trump.hidden = true;
  }
  const up = byId("upcard");
  if (snap.upcard && snap.upcard.status !== "picked up" && !snap.trump) {  // until trump is made
    up.hidden = false;
    up.replaceChildren(cardNode(snap.upcard.card, false), el("span", "status", snap.upcard.status));
  } else {
    up.hidden = true;
  }
  byId("expecting").textContent = snap.game_over ? "" : snap.expecting;
}

// The end of a game, big, until the next deal (the snapshot holds it until then).
function renderGameOver(snap) {
  const box = byId("game-over");
  const over = snap.game_over;
  box.hidden = !over;
  if (!over) return;
  box.className = over.team || "";
  box.querySelector(".over-title").textContent = over.title;
  box.querySelector(".over-score .ns .n").textContent = over.score.NS;
  box.querySelector(".over-score .ew .n").textContent = over.score.EW;
  box.querySelector(".over-text").textContent = over.text;
  box.querySelector(".over-next").textContent = over.next;
  // The game's hand review: a link, and its QR code to take it home on a phone.
  const review = box.querySelector(".over-review");
  review.hidden = !over.review;
  if (!over.review) return;
  const link = review.querySelector(".over-review-link");
  link.href = over.review.url;
  link.textContent = over.review.text;
  const qr = review.querySelector(".over-qr");
  if (qr.getAttribute("src") !== over.review.qr) qr.src = over.review.qr;
}

function actionClass(action) {
  const name = action.event.event;
  if (name === "passed") return "pass";
  const trump = action.event.trump;
  if (trump === "H" || trump === "D") return "red-suit";
  return "";
}

function renderActions(snap) {
  const box = byId("actions-box");
  const list = byId("actions");
  list.replaceChildren();
  if (!snap.actions.length) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const seats = [...new Set(snap.actions.map((a) => a.seat))];
  const names = seats.map((s) => {
    const seat = seatOf(snap, s);
    return seat ? nameAndSeat(seat) : s;
  });
  byId("actions-for").textContent = "For " + names.join(" or ");
  for (const action of snap.actions) {
    const button = el("button", actionClass(action), action.label);
    button.type = "button";
    button.dataset.seat = action.seat;
    button.dataset.event = action.event.event;
    button.disabled = sending;
    button.addEventListener("click", () => send(action));
    list.append(button);
  }
}

function renderLastTrick(snap) {
  const box = byId("last-trick-box");
  const node = byId("last-trick");
  node.replaceChildren();
  if (!snap.last_trick) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.querySelector("h2").textContent = "Last trick (" + snap.last_trick.number + ")";
  for (const play of snap.last_trick.plays) {
    const winner = play.seat === snap.last_trick.winner;
    const wrap = el("div", "play" + (winner ? " winner" : ""));
    const seat = seatOf(snap, play.seat);
    const who = el("div", "who", seat ? seat.name : play.seat);
    who.title = seat ? nameAndSeat(seat) : play.seat;
    wrap.append(cardNode(play.card, true), who);
    if (winner) wrap.append(el("div", "", "won it"));
    node.append(wrap);
  }
}

function renderResult(snap) {
  const node = byId("result");
  const text = snap.result ? snap.result.text : "";
  node.textContent = text;
  node.hidden = !text;
}

function evidenceThumbs(items, caption) {
  const wrap = el("div", "thumbs");
  for (const item of items) {
    const img = el("img");
    img.src = item.url;
    const face = item.face || "";
    img.alt = "the camera's picture of the " + face;
    img.addEventListener("click", () => enlarge(item.url, "The " + face + ": " + caption));
    wrap.append(img);
  }
  return wrap;
}

function renderProblems(snap) {
  const reneges = byId("reneges");
  const irregular = byId("irregularities");
  reneges.replaceChildren();
  irregular.replaceChildren();
  for (const r of snap.reneges) {
    const li = el("li", "renege " + r.status);
    li.append(el("div", "what", (r.status === "proven" ? "Renege proven: " : "Renege spotted: ") + r.name),
      el("div", "text", r.text));
    if (r.evidence.length) li.append(evidenceThumbs(r.evidence, r.text));
    reneges.append(li);
  }
  for (const i of snap.irregularities) {
    const li = el("li", "irregularity");
    li.append(el("div", "what", i.title + (i.name ? ": " + i.name : "")), el("div", "text", i.text));
    if (i.evidence && i.evidence.length) li.append(evidenceThumbs(i.evidence, i.text));
    irregular.append(li);
  }
  const count = snap.reneges.length + snap.irregularities.length;
  byId("problems-count").textContent = count > 1 ? "(" + count + ", newest first)" : "";
  byId("problems").hidden = !count;
}

function renderNotices(snap) {
  const box = byId("notices");
  box.replaceChildren();
  for (const n of snap.notices.slice(-3)) {
    const node = el("div", "banner notice " + n.kind);
    const seat = n.seat ? seatOf(snap, n.seat) : null;
    const who = seat ? nameAndSeat(seat) + ": " : "";
    node.append(el("div", "problem", who + n.text));
    if (n.fix) node.append(el("div", "fix", n.fix));
    box.append(node);
  }
}

// A card the camera sees across a zone's line counts only once it is pushed in: the
// words say whose and where (made by the table), the seat is marked until then.
function renderAcross(snap) {
  const box = byId("across");
  box.replaceChildren();
  for (const a of snap.across || []) {
    const node = el("div", "banner across");
    node.dataset.card = a.card.code;
    if (a.seat) node.dataset.seat = a.seat;
    node.append(el("div", "problem", a.text), el("div", "fix", a.detail));
    box.append(node);
    const seat = a.seat ? byId("seat-" + a.seat) : null;
    if (seat) {
      seat.classList.add("push");
      const line = el("div", "push-card" + (a.card.red ? " red" : ""), "Push the " + a.card.text + " in");
      line.dataset.card = a.card.code;
      seat.append(line);
    }
  }
}

function renderHealth(snap) {
  const node = byId("health");
  node.replaceChildren();
  if (!snap.faults.length) {
    node.append(el("div", "health-ok", "✓ All devices OK"));
    return;
  }
  for (const f of snap.faults) {
    const item = el("div", "fault");
    item.dataset.device = f.device;
    item.append(el("span", "what", f.what + ": "), el("span", "problem", f.problem),
      el("span", "fix", " — " + f.fix));
    node.append(item);
  }
}

// --- the kiosk ---------------------------------------------------------------------------

let kioskLocked = false;
let pinTyped = "";

function renderKiosk(snap) {
  const k = snap.kiosk;
  const coachBox = byId("coach");
  if (!k) {
    coachBox.hidden = true;
    byId("attract").hidden = true;
    byId("operator").hidden = true;
    byId("kiosk-alert").hidden = true;
    return;
  }
  lockKiosk();
  const side = byId("side");
  for (const id of ["result", "actions-box", "problems"]) {  // beside the coach, not in the felt's corners
    if (byId(id).parentElement !== side) side.append(byId(id));
  }
  byId("problems").hidden = !snap.irregularities.length;
  byId("problems-count").textContent = "";  // the coach explains a renege; the rest are few
  byId("op-open").hidden = true;  // the kiosk's operator has the ⚙ and its PIN pad
  document.body.dataset.kiosk = k.mode;
  byId("operator").hidden = false;
  byId("attract").hidden = k.mode !== "attract";
  byId("kiosk-closed").hidden = k.mode !== "stopped";
  const c = k.coach;
  coachBox.hidden = k.mode === "attract" || !(c.title || c.lines.length || c.renege || c.trick_won || c.review);
  renderLookBack(c.review);
  byId("coach-title").textContent = c.title;
  const lines = byId("coach-lines");
  lines.replaceChildren(...c.lines.map((line) => el("div", "", line)));
  const handBox = byId("coach-hand");
  const cards = handBox.querySelector(".cards");
  cards.replaceChildren();
  const mine = Object.values(k.hands).flat();
  const shown = mine.length ? mine : Object.values(k.collected).flat();
  for (const card of shown) {
    const node = cardNode(card, true);
    if (c.playable.length) node.classList.add(c.playable.includes(card.code) ? "playable" : "not-playable");
    cards.append(node);
  }
  handBox.querySelector(".label").textContent = mine.length ? "Your cards" : "Cards read";
  handBox.hidden = !shown.length;
  byId("coach-again").hidden = !(snap.phase === "dealing" && !mine.length && shown.length);
  const renege = byId("coach-renege");
  renege.textContent = c.renege;
  renege.hidden = !c.renege;
  const trick = byId("coach-trick");
  trick.textContent = c.trick_won;
  trick.hidden = !c.trick_won;
  const alertBox = byId("kiosk-alert");
  const view = snap.faults.find((f) => f.device === "view");
  const alert = view ? { text: "Something is covering the camera.", fix: view.fix } : k.alert;
  if (alert) {
    alertBox.querySelector(".problem").textContent = alert.text;
    alertBox.querySelector(".fix").textContent = alert.fix;
  }
  alertBox.hidden = !alert;
}

// The coach's look back at the game that ended: "Looking over your game...", then each
// visitor's costliest decisions (which hand, what they did, what was better, what it
// cost, from which view), the cards drawn as the page draws cards.
function renderLookBack(review) {
  const box = byId("coach-review");
  box.replaceChildren();
  box.hidden = !review;
  if (!review) return;
  box.dataset.state = review.state;
  if (review.state !== "ready") {
    box.append(el("div", "review-wait", review.text));
    return;
  }
  for (const seat of review.seats) {
    box.append(el("h3", "review-title", seat.title));
    if (seat.none) box.append(el("div", "review-none", seat.none));
    const list = el("ol", "costly");
    for (const c of seat.costly) {
      const item = el("li");
      const head = el("div", "where");
      head.append(el("span", "", c.where), el("span", "view", c.view));
      const words = el("div", "words");
      words.append(el("span", "did", c.did), " ", el("span", "better", c.better), " ", el("span", "cost", c.cost));
      const body = el("div", "costly-body");
      if (c.card) {
        const cards = el("div", "costly-cards");
        cards.append(cardNode(c.card, true));
        if (c.best && c.best.code !== c.card.code) cards.append(el("span", "arrow", "→"), cardNode(c.best, true));
        body.append(cards);
      }
      body.append(words);
      item.append(head, body);
      list.append(item);
    }
    if (seat.costly.length) box.append(list);
  }
  box.append(el("div", "review-note", review.text));
}

function lockKiosk() {
  if (kioskLocked) return;
  kioskLocked = true;
  document.body.classList.add("kiosk");
  // No way out of the page: no menu, no back, no reload keys (the browser runs in
  // kiosk mode too; docs/kiosk.md). The operator leaves with the PIN.
  document.addEventListener("contextmenu", (e) => e.preventDefault());
  history.pushState(null, "", location.href);
  window.addEventListener("popstate", () => history.pushState(null, "", location.href));
  document.addEventListener("keydown", (e) => {
    if (e.key === "F5" || e.key === "Escape" || e.altKey || e.ctrlKey || e.metaKey) e.preventDefault();
  });
  byId("attract").addEventListener("click", () => post({ event: "kiosk_touch" }));
  byId("operator").addEventListener("click", openPin);
  byId("coach-again").addEventListener("click", () => post({ event: "kiosk_touch", do: "again" }));
  const keys = byId("pin-keys");
  for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "✓"]) {
    const b = el("button", "", d);
    b.type = "button";
    b.dataset.key = d;
    b.addEventListener("click", () => pinKey(d));
    keys.append(b);
  }
  byId("pin-reset").addEventListener("click", () => sendPin("reset"));
  byId("pin-exit").addEventListener("click", () => sendPin("exit"));
  byId("pin-cancel").addEventListener("click", closePin);
}

function openPin() {
  pinTyped = "";
  byId("pin-shown").textContent = "";
  byId("pin-problem").textContent = "";
  byId("pin-pad").hidden = false;
}

function closePin() {
  pinTyped = "";
  byId("pin-pad").hidden = true;
}

function pinKey(d) {
  if (d === "⌫") pinTyped = pinTyped.slice(0, -1);
  else if (d === "✓") { sendPin("check"); return; }
  else if (pinTyped.length < 12) pinTyped += d;
  byId("pin-shown").textContent = "•".repeat(pinTyped.length);
}

async function sendPin(what) {
  const reply = await post({ event: "kiosk_pin", pin: pinTyped, do: what });
  if (reply.ok) {
    byId("pin-problem").textContent = what === "check" ? "PIN accepted: choose" : "";
    if (what !== "check") closePin();
  } else {
    pinTyped = "";
    byId("pin-shown").textContent = "";
    byId("pin-problem").textContent = (reply.problem || "refused") + (reply.fix ? ": " + reply.fix : "");
  }
}

async function post(body, path) {
  try {
    const answer = await fetch(path || "/api/input", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    try { return await answer.json(); } catch (e) { return { ok: false, problem: "the table answered " + answer.status }; }
  } catch (e) {
    return { ok: false, problem: "the table did not answer" };
  }
}

// --- the table's operator (docs/table-page.md: the director's events after the PIN) -------

async function operatorState() {
  let state = { pin: false, operator: false };
  try {
    state = await (await fetch("/api/operator", { cache: "no-store" })).json();
  } catch (e) { /* the table is away: the stream says so */ }
  byId("op-open").hidden = !state.pin || document.body.classList.contains("kiosk");
  byId("op-login").hidden = state.operator;
  byId("op-tools").hidden = !state.operator;
  byId("op-logout").hidden = !state.operator;
}

function operatorSays(reply, done) {
  byId("op-problem").classList.toggle("ok", !!reply.ok);
  byId("op-problem").textContent = reply.ok ? done
    : (reply.problem || "refused") + (reply.fix ? ": " + reply.fix : "");
}

async function operatorEvent(event) {
  const reason = byId("op-reason").value.trim();
  const reply = await post(Object.assign({ reason: reason }, event));
  operatorSays(reply, "done: " + reason);
  if (reply.ok) byId("op-reason").value = "";
  operatorState();
}

function setupOperator() {
  byId("op-open").addEventListener("click", () => {
    byId("op-problem").textContent = "";
    byId("op-panel").hidden = false;
    operatorState();
  });
  byId("op-close").addEventListener("click", () => { byId("op-panel").hidden = true; });
  byId("op-login-go").addEventListener("click", async () => {
    const pin = byId("op-pin").value;
    byId("op-pin").value = "";
    operatorSays(await post({ pin: pin }, "/api/operator/login"), "logged in");
    operatorState();
  });
  byId("op-adjust").addEventListener("click", () => operatorEvent({
    event: "score_adjusted", team: byId("op-team").value, points: parseInt(byId("op-points").value, 10),
  }));
  byId("op-void").addEventListener("click", () => operatorEvent({ event: "hand_voided" }));
  byId("op-logout").addEventListener("click", async () => {
    operatorSays(await post({}, "/api/operator/logout"), "logged out");
    operatorState();
  });
  operatorState();
}

// --- the touchscreen ---------------------------------------------------------------------

function showRefusal(problem, fix) {
  const node = byId("refusal");
  node.querySelector(".problem").textContent = problem;
  node.querySelector(".fix").textContent = fix || "";
  node.hidden = false;
}

function setSending(on) {
  sending = on;
  for (const b of byId("actions").querySelectorAll("button")) b.disabled = on;
}

async function send(action) {
  if (sending) return;
  setSending(true);
  byId("refusal").hidden = true;
  const body = Object.assign({}, action.event, { seat: action.seat });
  try {
    const answer = await fetch("/api/input", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let reply = {};
    try { reply = await answer.json(); } catch (e) { reply = {}; }
    if (!answer.ok || !reply.ok) {
      showRefusal(reply.problem || ("the table answered " + answer.status),
        reply.fix || "try again, or call the director");
    }
  } catch (e) {
    showRefusal("the table did not answer", "check the table is on; the page reconnects by itself");
  } finally {
    setSending(false);
  }
}

// The evidence as large as the screen allows, but never over twice its own size (a
// picture blown up further only blurs).
function enlarge(url, caption) {
  const box = byId("lightbox");
  const img = box.querySelector("img");
  const fit = () => {
    const w = img.naturalWidth, h = img.naturalHeight;
    if (!w || !h) return;
    const scale = Math.min(2, (window.innerWidth * 0.96) / w, (window.innerHeight * 0.84) / h);
    img.style.width = Math.round(w * scale) + "px";
  };
  img.style.width = "";
  img.onload = fit;
  img.src = url;
  if (img.complete) fit();
  box.querySelector(".caption").textContent = caption;
  box.hidden = false;
}

byId("lightbox").addEventListener("click", () => { byId("lightbox").hidden = true; });
byId("refusal").addEventListener("click", () => { byId("refusal").hidden = true; });
byId("health").append(el("div", "", "waiting for the table…"));
window.addEventListener("resize", fitNames);
setupOperator();
connect();
