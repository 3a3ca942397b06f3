// The hand review: draws the table after each step from the review's data (the state
// after every step was worked out when the document was made; this script keeps no rules).
// Keys: ← → a step, Home / End the hand's start and end, ↑ ↓ (Page Up / Down) a hand.
"use strict";

const data = JSON.parse(document.getElementById("review-data").textContent);
const SUITS = { S: ["♠", false], H: ["♥", true], C: ["♣", false], D: ["♦", true] };
const SEATS = ["N", "E", "S", "W"];
let hand = 0;
let step = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function byId(id) { return document.getElementById(id); }

function cardNode(code) {
  const [symbol, red] = SUITS[code[1]];
  const rank = code[0] === "T" ? "10" : code[0];
  const node = el("div", "card" + (red ? " red" : ""));
  node.dataset.card = code;
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", rank + symbol);
  node.append(el("span", "rank", rank), el("span", "symbol", symbol));
  return node;
}

function backNode() {
  const node = el("div", "card back");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", "a card the camera never saw");
  return node;
}

function seatWords(seat) {
  const s = data.seats.find((x) => x.seat === seat);
  return s.name ? s.name + " (" + s.words + ")" : s.words;
}

function frame() { return data.hands[hand].frames[step]; }

function drawSeats(f) {
  for (const seat of SEATS) {
    const box = byId("seat-" + seat);
    const info = data.seats.find((x) => x.seat === seat);
    box.className = "seat " + info.team + (f.seat === seat ? " acting" : "") +
      (f.out.includes(seat) ? " out" : "");
    const cards = el("div", "cards");
    for (const code of f.held[seat]) cards.append(cardNode(code));
    for (let i = 0; i < f.unseen[seat]; i++) cards.append(backNode());
    const who = el("div", "who", seatWords(seat));
    const parts = [who, cards];
    if (f.out.includes(seat)) parts.push(el("div", "unseen", "sits this hand out"));
    else if (f.unseen[seat]) parts.push(el("div", "unseen", f.unseen[seat] === 1 ? "1 card not seen" : f.unseen[seat] + " cards not seen"));
    box.replaceChildren(...parts);
  }
}

function drawCentre(f) {
  for (const seat of SEATS) byId("play-" + seat).replaceChildren();
  for (const [seat, code] of f.trick) {
    const card = cardNode(code);
    if (f.winner === seat) card.classList.add("won");
    byId("play-" + seat).replaceChildren(card);
  }
  const up = byId("upcard");
  up.replaceChildren();
  if (f.upcard) {
    const card = cardNode(f.upcard);
    if (f.upcard_down) card.classList.add("down");
    up.append(card, el("div", "label", f.upcard_down ? "upcard turned down" : "upcard"));
  }
  byId("trump").textContent = f.trump;
}

function drawNow(f, h) {
  byId("step-text").textContent = f.text;
  byId("where").textContent = h.label + " · step " + step + " of " + (h.frames.length - 1);
  const v = byId("verdict");
  v.hidden = !f.verdict;
  if (f.verdict) {
    v.className = f.verdict.costly ? "costly" : "";
    v.replaceChildren(
      el("div", "cost", f.verdict.costly ? "This decision " + f.verdict.mark : "The best choice: no cost"),
      ...f.verdict.lines.map((line) => el("div", "view", line)),
    );
    if (f.verdict.unanalysed) v.append(el("div", "how", f.verdict.unanalysed));
  }
  const n = byId("note");
  n.hidden = !f.note;
  if (f.note) {
    n.replaceChildren(el("div", "", f.note.text));
    for (const p of f.note.pictures) {
      const fig = el("figure");
      if (p.src) {
        const img = el("img");
        img.src = p.src;
        img.alt = p.caption;
        fig.append(img);
      }
      fig.append(el("figcaption", "", p.src ? p.caption : p.caption + " (no picture was kept)"));
      n.append(fig);
    }
  }
  const bidding = byId("bidding");
  bidding.hidden = !f.bids.length;
  bidding.replaceChildren(el("span", "label", "Bidding: "), document.createTextNode(f.bids.join(" · ")));
  const score = byId("score");
  score.replaceChildren(
    el("span", "ns", "North–South " + f.score[0]), document.createTextNode(" · "),
    el("span", "ew", "East–West " + f.score[1]),
    document.createTextNode(" · tricks this hand " + f.tricks.NS + "–" + f.tricks.EW),
  );
}

function drawSteps(h) {
  const list = byId("steps");
  if (list.dataset.hand !== String(hand)) {
    list.dataset.hand = String(hand);
    list.replaceChildren(...h.frames.map((f, i) => {
      const b = el("button");
      b.type = "button";
      b.append(el("span", "n", String(i)), el("span", "t", f.text));
      if (f.verdict) b.append(el("span", "mark " + (f.verdict.costly ? "costly" : "fine"), f.verdict.mark));
      else if (f.note) b.append(el("span", "mark note", f.note.kind));
      b.addEventListener("click", () => go(hand, i));
      const li = el("li");
      li.append(b);
      return li;
    }));
  }
  list.querySelectorAll("button").forEach((b, i) => {
    if (i === step) {
      b.setAttribute("aria-current", "step");
      const top = b.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - b.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    } else b.removeAttribute("aria-current");
  });
}

function drawHands() {
  byId("hands").querySelectorAll("button").forEach((b, i) => {
    b.setAttribute("aria-current", i === hand ? "true" : "false");
  });
}

function draw() {
  const h = data.hands[hand];
  const f = frame();
  drawSeats(f);
  drawCentre(f);
  drawNow(f, h);
  drawSteps(h);
  drawHands();
  byId("first").disabled = byId("prev").disabled = hand === 0 && step === 0;
  byId("last").disabled = step === h.frames.length - 1;
  byId("next").disabled = hand === data.hands.length - 1 && step === h.frames.length - 1;
  const where = "#hand-" + h.number + "-step-" + step;
  if (location.hash !== where) history.replaceState(null, "", where);
  document.body.dataset.hand = String(h.number);
  document.body.dataset.step = String(step);
}

function go(h, s) {
  hand = Math.max(0, Math.min(data.hands.length - 1, h));
  step = Math.max(0, Math.min(data.hands[hand].frames.length - 1, s));
  draw();
}

function forward() {
  if (step < data.hands[hand].frames.length - 1) go(hand, step + 1);
  else if (hand < data.hands.length - 1) go(hand + 1, 0);
}

function back() {
  if (step > 0) go(hand, step - 1);
  else if (hand > 0) go(hand - 1, data.hands[hand - 1].frames.length - 1);
}

function fromHash() {
  const m = /^#hand-(\d+)-step-(\d+)$/.exec(location.hash);
  if (!m) return;
  const i = data.hands.findIndex((h) => h.number === Number(m[1]));
  if (i >= 0) { hand = i; step = Number(m[2]); }
}

function drawVerdicts() {
  // Each player's costliest decisions, each a link to its step; or where the verdicts stand.
  const note = byId("verdicts-note");
  if (data.verdicts_state === "working" || data.verdicts_state === "failed") {
    note.hidden = false;
    note.className = data.verdicts_state;
    note.textContent = data.verdicts_status;
  }
  if (!data.costliest.length) return;
  const box = byId("verdicts");
  box.hidden = false;
  box.open = window.matchMedia("(min-width: 900px)").matches;
  byId("verdicts-status").textContent = data.verdicts_status;
  const all = byId("costliest");
  for (const seat of data.costliest) {
    const part = el("section", "seat-costliest");
    part.append(el("h3", "", seat.heading));
    if (!seat.costly.length) part.append(el("p", "none", seat.none));
    const list = el("ol");
    for (const c of seat.costly) {
      const b = el("button", "costly-link", c.text);
      b.type = "button";
      b.addEventListener("click", () => { go(c.hand, c.step); byId("now").scrollIntoView({ block: "nearest" }); });
      const li = el("li");
      li.append(b);
      list.append(li);
    }
    if (seat.costly.length) part.append(list);
    all.append(part);
  }
}

function start() {
  const nav = byId("hands");
  data.hands.forEach((h, i) => {
    const b = el("button");
    b.type = "button";
    b.append(document.createTextNode(h.label), el("span", "res", h.result));
    b.addEventListener("click", () => go(i, 0));
    nav.append(b);
  });
  const endings = byId("endings");
  for (const n of data.notes) endings.append(el("li", "", n.text));
  for (const e of data.endings) endings.append(el("li", "", e));
  byId("final").textContent = data.final;
  for (const p of data.problems) byId("problems").append(el("li", "", p));
  if (!data.hands.length) {
    const empty = byId("empty");
    empty.hidden = false;
    empty.textContent = "No hand of this game has ended yet: a hand is shown here once it is over.";
    return;
  }
  byId("review").hidden = false;
  drawVerdicts();
  byId("first").addEventListener("click", () => go(hand, 0));
  byId("prev").addEventListener("click", back);
  byId("next").addEventListener("click", forward);
  byId("last").addEventListener("click", () => go(hand, data.hands[hand].frames.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: forward,
      ArrowLeft: back,
      Home: () => go(hand, 0),
      End: () => go(hand, data.hands[hand].frames.length - 1),
      ArrowDown: () => go(hand + 1, 0),
      PageDown: () => go(hand + 1, 0),
      ArrowUp: () => go(hand - 1, 0),
      PageUp: () => go(hand - 1, 0),
    };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  });
  fromHash();
  go(hand, step);
}

start();
