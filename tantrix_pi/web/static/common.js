// Shared by the pages: the sentences of the "text" block, the pairing token, JSON requests, the live stream.
"use strict";
const TEXT = JSON.parse(document.getElementById("text").textContent);
const LANG = document.documentElement.lang;
const KEEP_EVENTS = Number(document.body.dataset.keepEvents);
const COLOUR_NAMES = {R: "red", Y: "yellow", G: "green", B: "blue"};  // the API's words, never shown

function fill(sentence, values) {
  return sentence.replace(/\{(\w+)\}/g, (_, name) => (values && name in values ? values[name] : ""));
}

function say(key, values) {
  return fill(TEXT[key], values);
}

function colourName(letter) {
  return TEXT.colour[letter] || letter;
}

function playerName(letter) {
  return TEXT.player[letter] || letter;
}

function clock(seconds) {
  // A time of day in the page's language (its own order, 24-hour or not).
  return new Date(seconds * 1000).toLocaleTimeString(LANG);
}

function day(seconds) {
  return new Date(seconds * 1000).toLocaleString(LANG, {dateStyle: "medium", timeStyle: "short"});
}

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const pairing = {
  get token() { return localStorage.getItem("tantrix-token"); },
  set token(t) { localStorage.setItem("tantrix-token", t); },
};

async function postJSON(url, body) {
  const headers = {"Content-Type": "application/json"};
  if (pairing.token) headers.Authorization = "Bearer " + pairing.token;
  const response = await fetch(url, {method: "POST", headers, body: JSON.stringify(body || {})});
  let answer = {};
  try { answer = await response.json(); } catch (e) { answer = {error: response.statusText}; }
  return {status: response.status, answer};
}

function follow(onState) {
  // The live stream: the whole state first ("state"), then what changed ("delta"); onState(state, delta) with
  // delta null for a whole state. A delta that does not follow the state held starts the stream afresh.
  const link = document.getElementById("link");
  let state = null;
  let source = null;
  const open = () => {
    source = new EventSource("/api/events");
    source.addEventListener("state", (e) => {
      link.textContent = link.dataset.live;
      link.classList.remove("lost");
      state = JSON.parse(e.data);
      onState(state, null);
    });
    source.addEventListener("delta", (e) => {
      const d = JSON.parse(e.data);
      if (!state || d.from !== state.version) { source.close(); open(); return; }
      Object.assign(state, d.set || {});
      state.version = d.version;
      if (d.events) state.events = state.events.concat(d.events).slice(-KEEP_EVENTS);
      if (d.moves) state.moves = state.moves.slice(0, d.moves.from).concat(d.moves.tail);
      onState(state, d);
    });
    source.onerror = () => {
      link.textContent = link.dataset.lost;
      link.classList.add("lost");
    };
  };
  open();
}
