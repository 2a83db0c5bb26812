// The live page: draws each state the referee publishes.
"use strict";
let seenShown = -1;

function render(state) {
  document.getElementById("board").innerHTML = state.svg;
  const line = [say("game", {game: state.game}), TEXT.mode[state.mode] || ""].filter(Boolean).join(" · ");
  document.getElementById("game-line").textContent = line;

  const scores = document.getElementById("scores");
  scores.replaceChildren(...state.players.filter((c) => c in state.scores).map((c) => {
    const item = el("li", {class: "score colour-" + c + (c === state.turn && !state.over ? " to-move" : "")});
    item.append(el("span", {class: "name"}, playerName(c)), el("span", {"data-score-colour": c}, String(state.scores[c])));
    return item;
  }));

  let status = "";
  if (state.over) {
    const names = state.winners.map(playerName);
    status = names.length === 1 ? say("wins", {player: names[0]}) : say("tie", {players: names.join(TEXT.and)});
  } else if (state.turn) {
    status = say("turn", {player: playerName(state.turn)});
  }
  if (state.bag_empty && !state.over) status += " " + say("bag_empty");
  document.getElementById("status").textContent = status;

  const puzzle = document.getElementById("puzzle");
  puzzle.hidden = !state.puzzle;
  if (state.puzzle) {
    document.getElementById("puzzle-name").textContent = state.puzzle.title;
    document.getElementById("puzzle-progress").textContent = say("progress", state.puzzle);
    const v = state.puzzle.verdict;
    document.getElementById("puzzle-verdict").textContent = v ? (v.solved ? say("solved") : say("not_solved")) : "";
    document.getElementById("puzzle-reasons").replaceChildren(...(v ? v.reasons : []).map((r) => el("li", {}, r)));
  }

  const forced = document.getElementById("forced");
  forced.replaceChildren(...state.forced.map((f) => el("li", {"data-letter": f.letter},
    say(f.fits.length ? "forced" : "forced_none_fits", {
      letter: f.letter, q: f.cell[0], r: f.cell[1], needs: f.needs.filter(Boolean).map(colourName).join("/"),
      fits: f.fits.join(", "),
    }))));
  if (!state.forced.length) forced.append(el("li", {class: "none"}, say("no_forced")));

  const events = document.getElementById("events");
  const newestFirst = state.events.slice().reverse();
  events.replaceChildren(...newestFirst.map((e) => {
    const item = el("li", {class: "event kind-" + e.kind, "data-kind": e.kind});
    item.append(el("time", {datetime: new Date(e.t * 1000).toISOString()}, new Date(e.t * 1000).toLocaleTimeString()),
                document.createTextNode(" " + e.text));
    return item;
  }));
  if (!state.events.length) events.append(el("li", {class: "none"}, say("no_events")));

  const lost = document.getElementById("camera-lost");
  lost.hidden = state.camera.up;
  lost.textContent = state.camera.text;

  const img = document.getElementById("seen-img");
  if (state.seen && state.seen !== seenShown) {
    seenShown = state.seen;
    img.src = "/api/seen.jpg?n=" + state.seen;
    img.hidden = false;
  }
  document.getElementById("seen-none").textContent = state.seen ? "" : say("camera_none");
}

function showCheck(result, status, answer) {
  result.replaceChildren();
  if (answer.error) {
    result.append(el("p", {class: "refused", "data-exit-code": answer.exit_code}, answer.error));
  } else if ("puzzle" in answer) {
    result.append(el("p", {class: answer.solved ? "solved" : "not-solved", "data-solved": answer.solved},
                      say(answer.solved ? "check_solved" : "check_not_solved", {puzzle: answer.puzzle})));
    const reasons = el("ul");
    reasons.append(...answer.reasons.map((r) => el("li", {}, r)));
    result.append(reasons);
  } else {
    const list = el("ul");
    for (const [colour, s] of Object.entries(answer.scores)) {
      list.append(el("li", {"data-check-colour": colour},
                     say("check_scores", {...s, colour: TEXT.colour_name[colour] || colour})));
    }
    const key = answer.winners.length === 1 ? "check_winner" : "check_tie";
    const winners = answer.winners.map((w) => TEXT.colour_name[w] || w);
    result.append(list, el("p", {class: "winner"}, say(key, {players: winners.join(TEXT.and)})));
  }
  if (answer.overlay) result.append(el("img", {class: "picture", src: answer.overlay, alt: ""}));
}

document.getElementById("check-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const result = document.getElementById("check-result");
  result.replaceChildren(el("p", {}, say("checking")));
  const data = new FormData();
  data.append("image", form.image.files[0]);
  const what = form.what.value;
  let url = "/api/score";
  if (what === "score") data.append("players", form.players.value);
  else { url = "/api/check"; data.append("puzzle", what); }
  try {
    const response = await fetch(url, {method: "POST", body: data});
    showCheck(result, response.status, await response.json());
  } catch (e) {
    result.replaceChildren(el("p", {class: "refused"}, say("check_failed", {error: String(e)})));
  }
});

function controlAnswer({status, answer}) {
  const out = document.getElementById("control-result");
  out.textContent = status < 300 ? say("sent") : status === 403 ? say("pair_first") : answer.error;
  out.dataset.status = status;
}

document.getElementById("pair-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const {status, answer} = await postJSON("/api/pair", {code: event.target.code.value});
  const out = document.getElementById("control-result");
  out.dataset.status = status;
  if (answer.token) { pairing.token = answer.token; out.textContent = say("paired"); }
  else out.textContent = answer.error;
});

document.getElementById("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = event.target;
  const body = {kind: f.kind.value};
  if (f.kind.value === "game") body.players = f.players.value.split(",").map((s) => s.trim()).filter(Boolean);
  if (f.kind.value === "discovery") body.discovery = Number(f.discovery.value);
  if (f.kind.value === "rainbow") body.rainbow = f.rainbow.value;
  controlAnswer(await postJSON("/api/control/new-game", body));
});

for (const button of document.querySelectorAll(".buttons button")) {
  button.addEventListener("click", async () => {
    const body = button.dataset.action === "voice" ? {on: button.dataset.on === "true"} : {};
    controlAnswer(await postJSON("/api/control/" + button.dataset.action, body));
  });
}

document.getElementById("check-what").addEventListener("change", (e) => {
  document.getElementById("check-players-label").hidden = e.target.value !== "score";
});

render(JSON.parse(document.getElementById("initial").textContent));
follow(render);
