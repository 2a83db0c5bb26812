// The replay view: any stored game, the board and the announcements at every step, by a slider.
"use strict";
const slider = document.getElementById("slider");
const choice = document.getElementById("game-choice");
let steps = [];
let game = null;
let asked = 0;

async function showStep(i) {
  const ticket = ++asked;
  const response = await fetch(`/api/games/${game}/steps/${i}`);
  const step = await response.json();
  if (ticket !== asked) return;  // the slider moved on meanwhile
  document.getElementById("replay-board").innerHTML = step.svg;
  document.getElementById("step-line").textContent =
    say("step", {step: i, steps: steps.length - 1, tiles: step.board.tiles.length});
  document.getElementById("step-events").replaceChildren(
    ...step.events.map((e) => el("li", {class: "event kind-" + e.kind, "data-kind": e.kind}, e.text)));
}

async function openGame(n) {
  game = n;
  document.getElementById("record-link").href = `/api/games/${n}`;
  const answer = await (await fetch(`/api/games/${n}/steps`)).json();
  steps = answer.steps || [];
  slider.max = Math.max(0, steps.length - 1);
  slider.value = slider.max;
  await showStep(Number(slider.value));
}

follow(() => {});
slider.addEventListener("input", () => showStep(Number(slider.value)));
choice.addEventListener("change", () => openGame(Number(choice.value)));

(async () => {
  const answer = await (await fetch("/api/games")).json();
  const games = answer.games || [];
  if (!games.length) {
    document.getElementById("step-line").textContent = say("no_games");
    return;
  }
  choice.replaceChildren(...games.map((g) => el("option", {value: g.game}, say("game_choice", {
    game: g.game, mode: TEXT.mode[g.setup.mode] || g.setup.mode, tiles: g.tiles}))));
  const wanted = Number(new URLSearchParams(location.search).get("game"));
  if (games.some((g) => g.game === wanted)) choice.value = wanted;
  await openGame(Number(choice.value));
})();
