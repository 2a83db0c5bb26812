// The board and what the referee rules on it: drawn from the server's SVG (whole, or the parts that changed),
// with the ruling banner, the labels and arc letters on demand, the cells an announcement names highlighted,
// a label saying the position in words; the scores, forced spaces and moves beside it.
"use strict";

const options = {
  get labels() { return localStorage.getItem("tantrix-labels") === "1"; },
  get letters() { return localStorage.getItem("tantrix-letters") === "1"; },
};

function grid(svg) {
  // The grid's basis from the SVG's data attributes: a cell's middle and its hexagon, as the server draws them.
  const [qx, qy] = svg.dataset.qAxis.split(",").map(Number);
  const [rx, ry] = svg.dataset.rAxis.split(",").map(Number);
  const hex = svg.dataset.hex.split(" ").map((p) => p.split(",").map(Number));
  const middle = (q, r) => [q * qx + r * rx, q * qy + r * ry];
  const outline = (q, r, k) => {
    const [x, y] = middle(q, r);
    return hex.map(([hx, hy]) => `${(x + k * hx).toFixed(2)},${(y + k * hy).toFixed(2)}`).join(" ");
  };
  const turn = svg.querySelector("g.turn").getAttribute("transform").match(/-?[\d.]+/g).map(Number)[0];
  return {middle, outline, turn};
}

const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function layer(svg, name) {
  let g = svg.querySelector("g.turn > g." + name);
  if (!g) { g = svgEl("g", {class: name}); svg.querySelector("g.turn").append(g); }
  g.replaceChildren();
  return g;
}

function upright(g, text, x, y, size, cls, turn) {
  g.append(svgEl("text", {x: x.toFixed(2), y: y.toFixed(2), class: cls, "font-size": size, "text-anchor": "middle",
    "dominant-baseline": "central", stroke: "none", transform: `rotate(${-turn} ${x} ${y})`}, text));
}

function drawOverlays(svg) {
  const g = grid(svg);
  const labels = layer(svg, "labels");
  if (options.labels) {
    for (const tile of svg.querySelectorAll("g.tile")) {
      const [x, y] = g.middle(Number(tile.dataset.q), Number(tile.dataset.r));
      upright(labels, tile.dataset.tile, x, y - 2, 4.5, "label tile-number", g.turn);
      upright(labels, `(${tile.dataset.q},${tile.dataset.r})`, x, y + 3, 2.6, "label cell", g.turn);
    }
  }
  const letters = layer(svg, "letters");
  if (options.letters) {
    for (const arc of svg.querySelectorAll("g.tile path[data-colour]")) {
      const p = arc.getPointAtLength(arc.getTotalLength() / 2);
      upright(letters, TEXT.arc_letter[arc.dataset.colour], p.x, p.y, 3.2, "arc-letter", g.turn);
    }
  }
}

function drawBoard(holder, state, delta) {
  // The whole SVG for a whole state; else only the parts that changed.
  const change = delta && delta.svg;
  let svg = holder.querySelector("svg");
  if (!delta || !svg) {
    holder.innerHTML = state.svg;
    svg = holder.querySelector("svg");
  } else if (change) {
    if (change.box) svg.setAttribute("viewBox", change.box);
    if (change.turn) svg.querySelector("g.turn").setAttribute("transform", change.turn);
    const tiles = svg.querySelector("g.tiles");
    for (const n of change.remove || []) tiles.querySelector(`g.tile[data-tile="${n}"]`)?.remove();
    if (change.add) tiles.insertAdjacentHTML("beforeend", change.add.join(""));
    if (change.marks !== undefined) svg.querySelector("g.marks").innerHTML = change.marks;
    svg.dataset.tiles = tiles.children.length;
  }
  svg.setAttribute("aria-label", position(state, svg.querySelectorAll("g.tile").length));
  drawOwed(svg, state.must_fill || []);
  drawOverlays(svg);
}

function drawOwed(svg, owed) {
  // The forced spaces a player must fill before going on, outlined until they are filled.
  const g = grid(svg);
  const marks = layer(svg, "owed");
  for (const m of owed) {
    marks.append(svgEl("polygon", {class: "owed", "data-q": m.cell[0], "data-r": m.cell[1], "data-player": m.player,
                                   points: g.outline(m.cell[0], m.cell[1], 0.92), fill: "none", stroke: "#ff8c00",
                                   "stroke-width": 1.4, "stroke-dasharray": "3 1.5"}));
  }
}

function position(state, tiles) {
  // The position in words, for a screen reader.
  const parts = [say("board_label", {tiles})];
  const turn = state.to_move || state.turn;
  if (turn && !state.over) parts.push(say("turn", {player: playerName(turn)}));
  if (state.forced && state.forced.length) {
    parts.push(say("board_forced", {spaces: state.forced.map((f) => `${f.letter} (${f.cell[0]},${f.cell[1]})`).join(", ")}));
  }
  for (const i of state.illegal || []) parts.push(say("board_illegal", {tile: i.tile, q: i.cell[0], r: i.cell[1]}));
  for (const m of state.must_fill || []) parts.push(say("must_fill", {player: playerName(m.player), letter: m.letter}));
  return parts.join(" ");
}

function ruling(state) {
  // The ruling in one short line, until it is resolved: the first tile the game does not accept, else a fill owed.
  const i = (state.illegal || [])[0];
  if (i) {
    const rule = (i.violations[0] || {}).rule;
    return fill(TEXT.ruling[rule in TEXT.ruling ? rule : "other"], {tile: i.tile});
  }
  const m = (state.must_fill || [])[0];
  return m ? say("must_fill", {player: playerName(m.player), letter: m.letter}) : "";
}

function showRuling(banner, state) {
  const line = ruling(state);
  if (banner.textContent !== line) banner.textContent = line;
  banner.hidden = !line;
}

function cellsOf(data) {
  // Every cell an announcement's data names: its cell, cells, the cells of its rules, its forced spaces.
  const out = [];
  const add = (c) => { if (Array.isArray(c) && c.length === 2) out.push(c); };
  if (!data) return out;
  add(data.cell);
  (data.cells || []).forEach(add);
  (data.violations || []).forEach((v) => (v.cells || []).forEach(add));
  (data.spaces || []).forEach((s) => add(Array.isArray(s) ? s : s.cell));  // forced spaces, or the cells owed
  if (data.was) add([data.was.q, data.was.r]);
  return out.filter((c, i) => out.findIndex((d) => d[0] === c[0] && d[1] === c[1]) === i);
}

function highlight(holder, cells) {
  const svg = holder.querySelector("svg");
  if (!svg) return;
  const g = grid(svg);
  const marks = layer(svg, "highlight");
  for (const [q, r] of cells) {
    marks.append(svgEl("polygon", {class: "named", "data-q": q, "data-r": r, points: g.outline(q, r, 1.05),
                                   stroke: "#00e5ff", "stroke-width": 1.6, fill: "none"}));
  }
}

function pointAt(item, holder, cells) {
  // An announcement or a move shows its cells on the board while pointed at, focused or tapped.
  item.tabIndex = 0;
  if (cells.length) item.dataset.cells = cells.map((c) => c.join(",")).join(" ");
  const on = () => highlight(holder, cells);
  const off = () => highlight(holder, []);
  item.addEventListener("mouseenter", on);
  item.addEventListener("focus", on);
  item.addEventListener("mouseleave", off);
  item.addEventListener("blur", off);
}

function showScores(list, state) {
  const players = state.players.length ? state.players : Object.keys(state.scores);
  const turn = state.to_move || state.turn;
  list.replaceChildren(...players.filter((c) => c in state.scores).map((c) => {
    const item = el("li", {class: "score colour-" + c + (c === turn && !state.over ? " to-move" : "")});
    item.append(el("span", {class: "name"}, playerName(c)),
                el("span", {"data-score-colour": c}, String(state.scores[c])));
    const b = (state.breakdown || {})[c];
    if (b) item.append(el("span", {class: "breakdown", "data-breakdown": c}, say("breakdown", b)));
    return item;
  }));
}

function showForced(list, forced) {
  list.replaceChildren(...forced.map((f) => el("li", {"data-letter": f.letter},
    say(f.fits.length ? "forced" : "forced_none_fits", {
      letter: f.letter, q: f.cell[0], r: f.cell[1], needs: f.needs.filter(Boolean).map(colourName).join("/"),
      fits: f.fits.join(", "),
    }))));
  if (!forced.length) list.append(el("li", {class: "none"}, say("no_forced")));
}

function moveItem(m, holder, href) {
  const item = el("li", {"data-move": m.n, "data-tile": m.tile, "data-q": m.q, "data-r": m.r,
                         "data-player": m.player || "", "data-forced": String(m.forced)});
  const what = say("move", {player: m.player ? playerName(m.player) : "", tile: m.tile, q: m.q, r: m.r})
    .replace(/^: /, "");
  const how = m.legal ? say(m.forced ? "move_forced" : "move_free") : say("move_illegal");
  const link = el("a", {href}, `${what} (${how})`);
  if (!m.legal) item.classList.add("illegal");
  item.append(link);
  pointAt(link, holder, [[m.q, m.r]]);
  return item;
}

function showMoves(list, moves, holder, hrefOf) {
  // Rebuilt only from the first move that changed.
  while (list.children.length > moves.length) list.lastElementChild.remove();
  moves.forEach((m, i) => {
    const old = list.children[i];
    const key = [m.n, m.tile, m.q, m.r, m.rot, m.player, m.forced, m.legal, hrefOf(m)].join(" ");
    if (old && old.dataset.key === key) return;
    const item = moveItem(m, holder, hrefOf(m));
    item.dataset.key = key;
    if (old) old.replaceWith(item); else list.append(item);
  });
}

for (const [cls, key] of [["show-labels", "tantrix-labels"], ["show-letters", "tantrix-letters"]]) {
  for (const box of document.querySelectorAll("input." + cls)) {
    box.checked = localStorage.getItem(key) === "1";
    box.addEventListener("change", () => {
      localStorage.setItem(key, box.checked ? "1" : "0");
      for (const svg of document.querySelectorAll(".board-holder svg")) drawOverlays(svg);
    });
  }
}
