"use strict";
// The director's pages' one way to build an element: el("p", {class: "x", onclick: f}, "text", child).
// Attributes null, undefined or false are left out; children the same.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

// A picture shown large in the page's #lightbox (a click anywhere, or Escape, closes it).
function showPicture(url, caption) {
  const image = document.getElementById("lightbox-image");
  image.src = url;
  image.alt = caption;
  document.getElementById("lightbox-caption").textContent = caption;
  document.getElementById("lightbox").hidden = false;
  document.getElementById("lightbox-close").focus();
}
function closePicture() {
  document.getElementById("lightbox").hidden = true;
  document.getElementById("lightbox-image").removeAttribute("src");
}
document.getElementById("lightbox").addEventListener("click", closePicture);
