// The guided calibration: the live picture with the sheet's corners, the map of views, the steps.
"use strict";
const result = document.getElementById("calibration-result");

function drawMap(status) {
  const map = document.getElementById("views-map");
  const [w, h] = status.size || [4, 3];
  const height = 100 * h / w;
  map.setAttribute("viewBox", `0 0 100 ${height.toFixed(1)}`);
  const parts = [`<rect x="0" y="0" width="100" height="${height.toFixed(1)}" fill="#f4f0e6" stroke="#999"/>`];
  for (const p of status.poses) {
    const x = 100 * p.centre[0], y = height * p.centre[1];
    const length = Math.min(p.tilt_deg, 45) / 45 * 18;
    const a = p.towards_deg * Math.PI / 180;
    const colour = p.tilt_deg >= status.tilt_min_deg ? "#14a046" : "#888";
    parts.push(`<g class="view" data-tilt="${p.tilt_deg}"><line x1="${x}" y1="${y}" x2="${x + length * Math.cos(a)}" ` +
               `y2="${y + length * Math.sin(a)}" stroke="${colour}" stroke-width="1.2"/>` +
               `<circle cx="${x}" cy="${y}" r="2" fill="${colour}"/></g>`);
  }
  map.innerHTML = parts.join("");
}

function show(status) {
  document.getElementById("views-line").textContent = say("views", status) + " " +
    say(status.active ? "paused" : "not_paused");
  drawMap(status);
  const warning = document.getElementById("coverage");
  warning.hidden = !status.warning && !status.ready;
  warning.className = status.warning ? "warning" : "ok";
  warning.textContent = status.warning || (status.ready ? say("lens_ready") : "");
}

async function refresh() {
  try { show(await (await fetch("/api/calibration")).json()); } catch (e) { /* the next round tries again */ }
  const img = document.getElementById("preview");
  const next = new Image();
  next.onload = () => { img.src = next.src; document.getElementById("preview-none").textContent = ""; };
  next.onerror = () => { document.getElementById("preview-none").textContent = say("no_picture"); };
  next.src = "/api/calibration/preview.jpg?t=" + Date.now();
}

for (const button of document.querySelectorAll("button[data-step]")) {
  button.addEventListener("click", async () => {
    const step = button.dataset.step;
    const body = step === "seats" ? {first: document.getElementById("first-seat").value} : {};
    const {status, answer} = await postJSON("/api/control/calibration/" + step, body);
    result.dataset.status = status;
    result.textContent = status < 300 ? (answer.note || "") : status === 403 ? say("pair_first") : answer.error;
    if (status < 300) show(answer);
  });
}

follow(() => {});
refresh();
setInterval(refresh, 1000);
