/* Dungeon Arena: small helpers every page may use (no framework, no CDN).
   arena.live(url, {kind: fn}) follows server-sent events; arena.el builds DOM nodes;
   arena.post(url, fields) posts a form (with the page's CSRF token when it has one) and
   returns the parsed JSON answer. */
"use strict";
window.arena = {
  live(url, handlers) {
    const source = new EventSource(url);
    for (const [kind, handle] of Object.entries(handlers)) {
      source.addEventListener(kind, (event) => handle(JSON.parse(event.data)));
    }
    source.onopen = () => document.body.classList.add("connected");
    source.onerror = () => document.body.classList.remove("connected");
    return source;
  },
  el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value; else node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  },
  fill(id, rows) {
    const target = document.getElementById(id);
    if (target) target.replaceChildren(...rows);
  },
  async post(url, fields) {
    const body = new URLSearchParams(fields);
    const csrf = document.querySelector('meta[name="csrf-token"]');
    if (csrf) body.set("csrf", csrf.content);
    const answer = await fetch(url, { method: "POST", body });
    try {
      return await answer.json();
    } catch {
      return { ok: false, error: `${answer.status} ${answer.statusText}` };
    }
  },
};
