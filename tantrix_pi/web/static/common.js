// Shared by the pages: the sentences of the "text" block, the pairing token, JSON requests.
"use strict";
const TEXT = JSON.parse(document.getElementById("text").textContent);

function say(key, values) {
  return TEXT[key].replace(/\{(\w+)\}/g, (_, name) => (values && name in values ? values[name] : ""));
}

function colourName(letter) {
  return TEXT.colour[letter] || letter;
}

function playerName(letter) {
  return TEXT.player[letter] || letter;
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
  // The live stream: a "state" message now and after every change; the browser reconnects by itself.
  const link = document.getElementById("link");
  const source = new EventSource("/api/events");
  source.addEventListener("state", (e) => {
    link.textContent = link.dataset.live;
    link.classList.remove("lost");
    onState(JSON.parse(e.data));
  });
  source.onerror = () => {
    link.textContent = link.dataset.lost;
    link.classList.add("lost");
  };
  return source;
}
