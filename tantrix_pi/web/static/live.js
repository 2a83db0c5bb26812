// The live page and the big screen: draw each state the referee publishes, and what changed since.
"use strict";
const holder = document.getElementById("board");
let seenShown = -1;

function on(id, work) {
  const node = document.getElementById(id);
  if (node) work(node);
}

function text(node, line) {
  if (node.textContent !== line) node.textContent = line;  // a live region speaks only what changed
}

function eventItem(e) {
  const item = el("li", {class: "event kind-" + e.kind, "data-kind": e.kind});
  item.append(el("time", {datetime: new Date(e.t * 1000).toISOString()}, clock(e.t)),
              document.createTextNode(" " + e.text));
  pointAt(item, holder, cellsOf(e.data));
  return item;
}

function showEvents(list, events, delta) {
  // Newest first; after a whole state only the new announcements are added, so a screen reader says each once.
  if (!delta) list.replaceChildren(...events.slice().reverse().map(eventItem));
  else for (const e of delta.events || []) list.prepend(eventItem(e));
  list.querySelector(".none")?.remove();
  while (list.children.length > events.length) list.lastElementChild.remove();
  if (!events.length) list.append(el("li", {class: "none"}, say("no_events")));
}

function statusLine(state) {
  let status = "";
  const turn = state.to_move || state.turn;
  if (state.over) {
    const names = state.winners.map(playerName);
    status = names.length === 1 ? say("wins", {player: names[0]}) : say("tie", {players: names.join(TEXT.and)});
  } else if (turn) {
    status = say("turn", {player: playerName(turn)});
  }
  if (state.bag_empty && !state.over) status += " " + say("bag_empty");
  return status;
}

function render(state, delta) {
  drawBoard(holder, state, delta);
  showRuling(document.getElementById("board-ruling"), state);
  on("game-line", (n) => text(n, [say("game", {game: state.game}), TEXT.mode[state.mode] || ""].filter(Boolean)
    .join(" · ")));
  on("scores", (n) => showScores(n, state));
  on("status", (n) => text(n, statusLine(state)));
  on("last-ruling", (n) => {
    const last = state.events.filter((e) => ["illegal", "refused", "taken_back", "removed", "must_fill", "game_over"].includes(e.kind)).pop();
    text(n, last ? last.text : "");
  });
  on("puzzle", (puzzle) => {
    puzzle.hidden = !state.puzzle;
    if (!state.puzzle) return;
    document.getElementById("puzzle-name").textContent = state.puzzle.title;
    document.getElementById("puzzle-progress").textContent = say("progress", state.puzzle);
    const v = state.puzzle.verdict;
    document.getElementById("puzzle-verdict").textContent = v ? (v.solved ? say("solved") : say("not_solved")) : "";
    document.getElementById("puzzle-reasons").replaceChildren(...(v ? v.reasons : []).map((r) => el("li", {}, r)));
  });
  on("forced", (n) => showForced(n, state.forced));
  on("events", (n) => showEvents(n, state.events, delta));
  on("moves", (n) => showMoves(n, state.moves, holder, (m) => `/replay?game=${state.game}&move=${m.n}`));
  on("camera-lost", (lost) => {
    lost.hidden = state.camera.up;
    lost.textContent = state.camera.text;
  });
  on("seen", (seen) => {
    document.getElementById("seen-none").textContent = state.seen ? "" : say("camera_none");
    if (seen.open) showSeen(state.seen);
  });
}

function showSeen(number) {
  // The camera's picture is fetched only while "What the camera sees" is open, and once per frame read.
  const img = document.getElementById("seen-img");
  if (!number || number === seenShown) return;
  seenShown = number;
  img.onload = () => { img.hidden = false; };
  img.src = "/api/seen.jpg?n=" + number;
}

let current = JSON.parse(document.getElementById("initial").textContent);
on("seen", (seen) => seen.addEventListener("toggle", () => { if (seen.open) showSeen(current.seen); }));
render(current, null);
follow((state, delta) => { current = state; render(state, delta); });

function showCheck(result, status, answer, title) {
  result.replaceChildren();
  if (answer.error) {
    result.append(el("p", {class: "refused", "data-exit-code": answer.exit_code}, answer.error));
  } else if ("puzzle" in answer) {
    result.append(el("p", {class: answer.solved ? "solved" : "not-solved", "data-solved": answer.solved},
                      say(answer.solved ? "check_solved" : "check_not_solved", {puzzle: title})));
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

on("check-form", (form) => form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = document.getElementById("check-result");
  result.replaceChildren(el("p", {}, say("checking")));
  const data = new FormData();
  data.append("image", form.image.files[0]);
  const what = form.what.value;
  let url = "/api/score";
  if (what === "score") {
    data.append("players", [...form.querySelectorAll("input[name=player]:checked")].map((b) => b.value).join(","));
  } else { url = "/api/check"; data.append("puzzle", what); }
  try {
    const response = await fetch(url, {method: "POST", body: data});
    showCheck(result, response.status, await response.json(), form.what.selectedOptions[0].textContent);
  } catch (e) {
    result.replaceChildren(el("p", {class: "refused"}, say("check_failed", {error: String(e)})));
  }
}));

on("check-what", (what) => what.addEventListener("change", () => {
  document.getElementById("check-players").hidden = what.value !== "score";
}));

function controlAnswer({status, answer}) {
  const out = document.getElementById("control-result");
  out.textContent = status < 300 ? say("sent") : status === 403 ? say("pair_first") : answer.error;
  out.dataset.status = status;
}

on("pair-form", (form) => form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const {status, answer} = await postJSON("/api/pair", {code: form.code.value});
  const out = document.getElementById("control-result");
  out.dataset.status = status;
  if (answer.token) { pairing.token = answer.token; out.textContent = say("paired"); }
  else out.textContent = answer.error;
}));

on("settings-form", (f) => f.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = {kind: f.kind.value};
  if (f.kind.value === "game") {
    body.players = [...f.querySelectorAll("select[name=seat]")].map((s) => s.value).filter(Boolean)
      .map((c) => COLOUR_NAMES[c]);
  }
  if (f.kind.value === "discovery") body.discovery = Number(f.discovery.value);
  if (f.kind.value === "rainbow") body.rainbow = f.rainbow.value;
  controlAnswer(await postJSON("/api/control/new-game", body));
}));

for (const button of document.querySelectorAll("#control .buttons button")) {
  button.addEventListener("click", async () => {
    const body = button.dataset.action === "voice" ? {on: button.dataset.on === "true"} : {};
    controlAnswer(await postJSON("/api/control/" + button.dataset.action, body));
  });
}
