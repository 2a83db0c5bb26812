// The replay: any stored game, step by step (slider, previous/next/play, the step in the address), with the
// board and its rulings, the scores, the forced spaces, what was announced, and the moves to jump to.
"use strict";
const slider = document.getElementById("slider");
const choice = document.getElementById("game-choice");
const holder = document.getElementById("replay-board");
const play = document.getElementById("play");
let game = null;
let steps = [];
let moves = [];
let asked = 0;
let playing = null;

function address(step) {
  const url = new URL(location.href);
  url.searchParams.set("game", game);
  url.searchParams.set("step", step);
  url.searchParams.delete("move");
  history.replaceState(null, "", url);
}

async function showStep(i) {
  i = Math.max(0, Math.min(steps.length - 1, i));
  slider.value = i;
  address(i);
  const ticket = ++asked;
  const step = await (await fetch(`/api/games/${game}/steps/${i}`)).json();
  if (ticket !== asked) return;  // moved on meanwhile
  drawBoard(holder, step, null);
  showRuling(document.getElementById("replay-board-ruling"), step);
  document.getElementById("step-line").textContent = say("step", {
    step: i, steps: steps.length - 1, move: step.move, moves: step.moves, tiles: step.board.tiles.length});
  showScores(document.getElementById("scores"), step);  // the player to move marked
  showForced(document.getElementById("forced"), step.forced);
  document.getElementById("step-events").replaceChildren(...step.events.map((e) => {
    const item = el("li", {class: "event kind-" + e.kind, "data-kind": e.kind}, e.text);
    pointAt(item, holder, cellsOf(e.data));
    return item;
  }));
  for (const item of document.querySelectorAll("#moves li")) {
    item.classList.toggle("current", Number(item.dataset.step) === i);
  }
}

function stop() {
  clearInterval(playing);
  playing = null;
  play.textContent = play.dataset.play;
}

async function openGame(n, wanted) {
  game = n;
  stop();
  document.getElementById("record-link").href = `/api/games/${n}`;
  const answer = await (await fetch(`/api/games/${n}/steps`)).json();
  steps = answer.steps || [];
  moves = answer.moves || [];
  slider.max = Math.max(0, steps.length - 1);
  const list = document.getElementById("moves");
  list.replaceChildren();
  showMoves(list, moves, holder, (m) => `/replay?game=${n}&step=${m.step}`);
  for (const [i, item] of [...list.children].entries()) {
    item.dataset.step = moves[i].step;
    item.querySelector("a").addEventListener("click", (e) => { e.preventDefault(); stop(); showStep(moves[i].step); });
  }
  await showStep(wanted === undefined ? steps.length - 1 : wanted);
}

follow(() => {});
slider.addEventListener("input", () => { stop(); showStep(Number(slider.value)); });
choice.addEventListener("change", () => openGame(Number(choice.value)));
document.getElementById("previous").addEventListener("click", () => { stop(); showStep(Number(slider.value) - 1); });
document.getElementById("next").addEventListener("click", () => { stop(); showStep(Number(slider.value) + 1); });
play.addEventListener("click", () => {
  if (playing) { stop(); return; }
  if (Number(slider.value) >= steps.length - 1) showStep(0);
  play.textContent = play.dataset.pause;
  playing = setInterval(() => {
    if (Number(slider.value) >= steps.length - 1) stop(); else showStep(Number(slider.value) + 1);
  }, 1200);
});

function gameLine(g) {
  const players = g.setup.players.map(playerName).join(", ");
  const date = day(g.started);
  if (g.winners.length === 1) return say("game_winner", {game: g.game, date, players, winner: playerName(g.winners[0])});
  if (g.winners.length > 1) return say("game_tie", {game: g.game, date, players});
  return say("game_choice", {game: g.game, date, mode: TEXT.mode[g.setup.mode] || g.setup.mode, players, tiles: g.tiles});
}

(async () => {
  const answer = await (await fetch("/api/games")).json();
  const games = answer.games || [];
  if (!games.length) {
    document.getElementById("step-line").textContent = say("no_games");
    return;
  }
  choice.replaceChildren(...games.map((g) => el("option", {value: g.game}, gameLine(g))));
  const query = new URLSearchParams(location.search);
  const wanted = Number(query.get("game"));
  if (games.some((g) => g.game === wanted)) choice.value = wanted;
  const n = Number(choice.value);
  game = n;
  const move = query.get("move");
  if (move !== null) {  // a move of the live page's list: the step it was made at
    const known = await (await fetch(`/api/games/${n}/steps`)).json();
    const m = (known.moves || []).find((x) => x.n === Number(move));
    await openGame(n, m ? m.step : undefined);
  } else {
    await openGame(n, query.get("step") !== null ? Number(query.get("step")) : undefined);
  }
})();
