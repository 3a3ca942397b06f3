// The join page follows the join: each change arrives over Server-Sent Events.
"use strict";

function show(state) {
  const heading = state.event ? `Joining ${state.event}` : "Looking for the director";
  document.getElementById("heading").textContent = heading;
  document.title = heading;
  const code = document.getElementById("code");
  code.replaceChildren(
    ...Array.from(state.code || "", (digit) => {
      const span = document.createElement("span");
      span.textContent = digit;
      return span;
    }),
  );
  code.setAttribute("aria-label", `join code ${Array.from(state.code || "").join(" ")}`);
  document.getElementById("code-box").hidden = !state.code;
  document.getElementById("key").textContent = state.key || "";
  document.getElementById("check").textContent = state.check || "";
  document.getElementById("key-line").hidden = !state.code;
  document.getElementById("words").textContent = state.words || "";
}

new EventSource("/join/events").onmessage = (message) => show(JSON.parse(message.data));
