// The club's page: each part the server sends again (a table's card, the standings) takes the place of the old one.
"use strict";

function part(html) {
  const box = document.createElement("div");
  box.innerHTML = html;
  return box.firstElementChild;
}

function placeCard(name, html) {
  const tables = document.getElementById("tables");
  const card = part(html);
  const old = [...tables.querySelectorAll("[data-table]")].find((c) => c.dataset.table === name);
  if (old) {
    old.replaceWith(card);
    return;
  }
  tables.querySelector(".none")?.remove();
  const after = [...tables.querySelectorAll("[data-table]")].find((c) => c.dataset.table > name);
  tables.insertBefore(card, after || null);
}

const link = document.getElementById("link");
const source = new EventSource("/api/events");
source.addEventListener("card", (e) => {
  const m = JSON.parse(e.data);
  placeCard(m.table, m.html);
});
source.addEventListener("standings", (e) => {
  document.getElementById("standings").replaceWith(part(JSON.parse(e.data).html));
});
source.addEventListener("link", (e) => {
  const up = JSON.parse(e.data).connected;
  link.textContent = up ? link.dataset.live : link.dataset.lost;
  link.classList.toggle("lost", !up);
});
source.onerror = () => {
  link.textContent = link.dataset.lost;
  link.classList.add("lost");
};
