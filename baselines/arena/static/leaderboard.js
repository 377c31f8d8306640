// The leaderboard page: ratings of the chosen world from /api/leaderboard, pictures from /api/plots.
"use strict";
const fixed = (x, digits = 1) => Number(x).toFixed(digits);

function table(node, caption, columns, rows) {
  node.replaceChildren();
  node.createCaption().textContent = caption;
  const head = node.createTHead().insertRow();
  for (const [title] of columns) { const th = document.createElement("th"); th.scope = "col"; th.textContent = title; head.append(th); }
  const body = node.createTBody();
  if (!rows.length) {
    const cell = body.insertRow().insertCell();
    Object.assign(cell, {colSpan: columns.length, className: "none", textContent: "No answers yet (other than N/A)."});
  }
  for (const row of rows) {
    const tr = body.insertRow();
    columns.forEach(([, value], i) => {
      const cell = i === 0 ? document.createElement("th") : document.createElement("td");
      if (i === 0) cell.scope = "row";
      cell.textContent = value(row);
      if (isNaN(Number(cell.textContent))) cell.classList.add("text");
      tr.append(cell);
    });
  }
}

const RATING_COLUMNS = [
  ["Agent", r => r.agent], ["Rank", r => r.rank ?? "too few"], ["TrueSkill mu", r => fixed(r.mu, 2)], ["sigma", r => fixed(r.sigma, 2)],
  ["mu - 3 sigma", r => fixed(r.conservative, 2)], ["BT score", r => fixed(r.bt)], ["BT 95% interval", r => r.rank === null ? "-" : `${fixed(r.bt_low)} to ${fixed(r.bt_high)}`],
  ["Judgements", r => r.judgements], ["W / D / L", r => `${r.wins} / ${r.draws} / ${r.losses}`],
];

async function show(world) {
  const board = await api("/api/leaderboard" + (world ? `?world=${encodeURIComponent(world)}` : ""));
  const select = document.getElementById("world-select");
  select.replaceChildren(...board.worlds.map(w => new Option(w, w, false, w === board.world)));
  const skipped = board.skipped.length ? `; ${board.skipped.length} stored judgements skipped as unreadable (ids ${board.skipped.map(s => s.judgement).join(", ")})` : "";
  document.getElementById("summary").textContent = (board.world ? `${board.judgements} judgements` : "no judgements yet") + skipped;
  document.getElementById("study").textContent = board.study === "closed" ? "The study is closed: these are its final results." : "The study is collecting judgements: only admins see this page.";
  table(document.getElementById("overall"), `Overall verdict${board.world ? ": " + board.world : ""}`, RATING_COLUMNS, board.overall);
  const questions = document.getElementById("questions");
  questions.replaceChildren(...Object.entries(board.questions).map(([question, rows]) => {
    const node = document.createElement("table");
    table(node, question, RATING_COLUMNS, rows);
    return node;
  }));
  table(document.getElementById("direct"), "How often raters answered yes", [["Agent", r => r.agent], ["Question", r => r.question],
    ["Yes", r => r.yes], ["No", r => r.no], ["Can't tell", r => r.unsure], ["Yes rate", r => fixed(r.yes_rate, 2)]], board.direct);
  table(document.getElementById("tasks"), "Overall verdict per task", [["Task", r => r.task], ...RATING_COLUMNS], board.tasks);
  for (const kind of ["ratings", "wins"]) {
    const image = document.getElementById(`${kind}-plot`);
    image.closest("figure").classList.toggle("hidden", !board.world);
    if (board.world) image.src = `/api/plots/${kind}.png?world=${encodeURIComponent(board.world)}&v=${board.judgements}`;
  }
  document.body.dataset.judgements = board.judgements;
  document.body.dataset.state = "ready";
}

async function start() {
  let me = null;
  try { me = await whoAmI(); } catch (error) { if (error.status !== 401) throw error; }
  try {
    await show(new URLSearchParams(location.search).get("world"));
  } catch (error) {
    if (error.status === 401) return showSignIn(start);
    const notice = document.getElementById("notice");
    notice.textContent = error.message;  // 403: the leaderboard opens when the study closes
    notice.classList.remove("hidden");
    document.body.dataset.state = "withheld";
    return;
  }
  if (me?.role === "admin") {
    document.getElementById("exports").replaceChildren("Raw judgements: ",
      Object.assign(document.createElement("a"), {href: "/api/admin/export?format=json", textContent: "JSON"}), ", ",
      Object.assign(document.createElement("a"), {href: "/api/admin/export?format=csv", textContent: "CSV"}), ".");
  }
  document.getElementById("board").classList.remove("hidden");
  document.getElementById("world-select").onchange = event => show(event.target.value);
}

document.addEventListener("DOMContentLoaded", start);
