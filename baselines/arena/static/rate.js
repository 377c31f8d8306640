// The rater page: load a match, show both videos, collect the answers, submit, load the next one.
// The server enforces the minimum watch time and justification length; the lock here only saves
// a rater from a refused submission.
"use strict";
// Characters a reader sees, counted as the server counts them: no spaces, format characters or combining marks.
const visibleLength = text => [...text].filter(c => !/[\s\p{C}\p{M}]/u.test(c)).length;
const SIDES = ["left", "right"];
const LABELS = {left: "Left", draw: "Draw", right: "Right", na: "N/A", yes: "Yes", no: "No", unsure: "Can't tell"};
let match = null, events = [], openedAt = 0, clockOffset = 0, timer = null;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function radios(name, values, legend, {required = false, checked = null} = {}) {
  const set = el("fieldset", {}, el("legend", {}, legend));
  const choices = el("div", {class: "choices"});
  values.forEach((value, i) => {
    const input = el("input", {type: "radio", name, value});
    if (required && i === 0) input.required = true;
    if (value === checked) input.checked = true;
    choices.append(el("label", {}, input, " " + LABELS[value]));
  });
  set.append(choices);
  return set;
}

function buildQuestions(questions) {
  const direct = document.getElementById("direct");
  direct.replaceChildren();
  for (const q of questions.direct) {
    const grid = el("div", {class: "direct-grid"});
    for (const side of SIDES) {
      grid.append(radios(`direct.${q.id}.${side}`, questions.direct_answers, `${LABELS[side]} player: ${q.text} (required)`, {required: true}));
    }
    direct.append(grid);
  }
  const comparisons = document.getElementById("comparisons");
  comparisons.replaceChildren(...questions.comparative.map(q => radios(`comparisons.${q.id}`, questions.comparative_answers, q.text, {checked: "na"})));
}

function track(side, video) {
  let quarter = 0;
  const log = type => events.push({side, type, t: Math.round(video.currentTime * 1000) / 1000, at: Math.round(performance.now() - openedAt)});
  for (const type of ["play", "pause", "seeked", "ended", "ratechange", "error"]) video.addEventListener(type, () => log(type));
  video.addEventListener("timeupdate", () => {
    const reached = video.duration ? Math.floor(4 * video.currentTime / video.duration) : 0;
    if (reached > quarter) { quarter = reached; log(`progress${25 * reached}`); }
  });
}

function showVideos() {
  for (const side of SIDES) {
    const video = document.getElementById(`video-${side}`);
    video.replaceChildren(...match.videos[side].map(v => el("source", {src: v.src, type: v.type})));
    video.load();
  }
}

function lock() {
  const button = document.getElementById("submit"), wait = document.getElementById("wait");
  clearInterval(timer);
  const tick = () => {
    const left = match.served_at + match.min_watch_s - (Date.now() / 1000 + clockOffset);
    button.disabled = left > 0;
    wait.textContent = left > 0 ? `You can submit in ${Math.ceil(left)} s: watch both videos first.` : "";
    if (left <= 0) clearInterval(timer);
  };
  tick();
  timer = setInterval(tick, 500);
}

function countCharacters() {
  const n = visibleLength(document.getElementById("justification").value);
  document.getElementById("count").textContent = `${n} / ${match.min_justification} characters at least`;
}

async function loadMatch() {
  document.body.dataset.state = "loading";
  try {
    match = await api("/api/match" + location.search);
  } catch (error) {
    if (error.status === 401) { document.body.dataset.state = "signin"; return showSignIn(start); }
    document.getElementById("judge").classList.add("hidden");
    document.getElementById("empty").classList.remove("hidden");
    document.getElementById("empty-text").textContent = error.message;
    document.body.dataset.state = "empty";
    return;
  }
  clockOffset = match.server_time - Date.now() / 1000;
  events = [];
  openedAt = performance.now();
  const form = document.getElementById("judge");
  form.reset();
  for (const key of ["world", "task", "seed", "instruction"]) document.getElementById(key).textContent = match[key];
  const several = match.instructions.length > 1, list = document.getElementById("instructions");
  list.replaceChildren(...match.instructions.map(text => Object.assign(document.createElement("li"), {textContent: text})));
  list.classList.toggle("hidden", !several);
  document.getElementById("instruction").classList.toggle("hidden", several);
  buildQuestions(match.questions);
  showVideos();
  form.classList.remove("hidden");
  document.getElementById("empty").classList.add("hidden");
  countCharacters();
  lock();
  document.body.dataset.match = match.uuid;
  document.body.dataset.state = "ready";
  if (document.getElementById("saved").textContent) document.getElementById("task-title").focus();  // after a submit: back to the top
}

function answers(form) {
  const data = new FormData(form), direct = {}, comparisons = {};
  for (const q of match.questions.direct) direct[q.id] = Object.fromEntries(SIDES.map(s => [s, data.get(`direct.${q.id}.${s}`)]));
  for (const q of match.questions.comparative) comparisons[q.id] = data.get(`comparisons.${q.id}`) || "na";
  return {match: match.uuid, verdict: data.get("verdict"), direct, comparisons,
          justification: data.get("justification").trim(), video_events: events};
}

async function submit(event) {
  event.preventDefault();
  const form = event.target, status = document.getElementById("status");
  const justification = document.getElementById("justification");
  justification.setCustomValidity(visibleLength(justification.value) < match.min_justification
    ? `Write at least ${match.min_justification} characters.` : "");
  for (const input of form.querySelectorAll("input[required]")) input.setCustomValidity("");
  if (!form.reportValidity()) return;
  status.className = "status";
  status.textContent = "Submitting...";
  try {
    await api("/api/judgement", {method: "POST", body: JSON.stringify(answers(form))});
  } catch (error) {
    status.className = "status error";
    status.textContent = `Not accepted: ${error.message}`;
    document.getElementById("saved").textContent = "";
    if (error.status === 409 || error.status === 410) await loadMatch();  // judged already, or expired: the next pair
    return;
  }
  status.textContent = "";
  document.getElementById("saved").textContent = "Thank you: your judgement is saved. Here is the next pair.";
  await loadMatch();
}

async function start() {
  try { await whoAmI(); } catch (error) { document.body.dataset.state = "signin"; return showSignIn(start); }
  await loadMatch();
}

document.addEventListener("DOMContentLoaded", () => {
  for (const side of SIDES) track(side, document.getElementById(`video-${side}`));
  document.getElementById("play-both").onclick = () => SIDES.forEach(s => document.getElementById(`video-${s}`).play());
  document.getElementById("speed").onchange = event => SIDES.forEach(s => { document.getElementById(`video-${s}`).playbackRate = Number(event.target.value); });
  document.getElementById("justification").addEventListener("input", countCharacters);
  document.getElementById("judge").addEventListener("submit", submit);
  start();
});
