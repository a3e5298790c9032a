// The playground: edit a rule, its options and a situation, and see the decision as you type;
// run an exam table; load and save task files. Every answer comes from this server's routes
// (relative URLs, so the page works behind a proxy under any path).
"use strict";

const $ = (id) => document.getElementById(id);
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

const page = {
  options: [
    { letter: "A", text: "stop" },
    { letter: "B", text: "go" },
  ],
  exam: [
    { status: "the light is red", expect: "A" },
    { status: "the light is green", expect: "B" },
  ],
  file: null, // { name, text } of the loaded task file: its perceiver and judge are kept on save
  taskName: "playground",
  seq: 0, // the newest decision asked for; older answers are dropped
  timer: null,
};

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new Error(`the server did not answer (${e.message})`);
  }
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  }
  if (!res.ok) throw new Error((json.error && json.error.message) || `HTTP ${res.status}`);
  return json;
}

function showError(message) {
  const el = $("error");
  el.textContent = message || "";
  el.hidden = !message;
}

function optionsObject() {
  const out = {};
  for (const o of page.options) out[o.letter] = o.text;
  return out;
}

function table() {
  return { rule: $("rule").value, options: optionsObject(), model: $("model").value || undefined };
}

// ---- options ---------------------------------------------------------------------------------
function renderOptions() {
  const box = $("options");
  box.textContent = "";
  page.options.forEach((o, i) => {
    const row = document.createElement("div");
    row.className = "option";
    const letter = document.createElement("input");
    letter.type = "text";
    letter.className = "letter";
    letter.maxLength = 1;
    letter.value = o.letter;
    letter.setAttribute("aria-label", `letter of option ${i + 1}`);
    letter.addEventListener("input", () => {
      o.letter = letter.value.toUpperCase();
      schedule();
    });
    const text = document.createElement("input");
    text.type = "text";
    text.className = "text";
    text.value = o.text;
    text.setAttribute("aria-label", `text of option ${o.letter}`);
    text.addEventListener("input", () => {
      o.text = text.value;
      schedule();
    });
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "remove";
    remove.setAttribute("aria-label", `remove option ${o.letter}`);
    remove.addEventListener("click", () => {
      page.options.splice(i, 1);
      renderOptions();
      schedule();
    });
    row.append(letter, text, remove);
    box.append(row);
  });
}

function addOption() {
  const used = new Set(page.options.map((o) => o.letter));
  const letter = [...LETTERS].find((l) => !used.has(l)) || "Z";
  page.options.push({ letter, text: "" });
  renderOptions();
  const inputs = $("options").querySelectorAll("input.text");
  inputs[inputs.length - 1].focus();
}

// ---- the decision as you type ----------------------------------------------------------------
function schedule() {
  clearTimeout(page.timer);
  page.timer = setTimeout(decideNow, 150);
}

function renderDecision(d) {
  $("letter").textContent = d.letter;
  const sigma = d.coherence === null || d.coherence === undefined ? "–" : d.coherence.toFixed(3);
  $("stats").textContent = `margin ${d.margin.toFixed(3)} · Σ ${sigma} · ${d.lat_ms.toFixed(2)} ms`;
  const bars = $("bars");
  bars.textContent = "";
  for (const o of page.options) {
    const p = d.probs[o.letter] ?? 0;
    const row = document.createElement("div");
    row.className = "barrow" + (o.letter === d.letter ? " chosen" : "");
    row.dataset.letter = o.letter;
    const name = document.createElement("span");
    name.textContent = o.letter;
    const track = document.createElement("div");
    track.className = "track";
    track.setAttribute("role", "meter");
    track.setAttribute("aria-label", `P(${o.letter}) ${o.text}`);
    track.setAttribute("aria-valuemin", "0");
    track.setAttribute("aria-valuemax", "1");
    track.setAttribute("aria-valuenow", p.toFixed(4));
    const fill = document.createElement("div");
    fill.className = "fill";
    fill.style.width = `${(100 * p).toFixed(1)}%`;
    track.append(fill);
    const num = document.createElement("span");
    num.className = "p";
    num.textContent = p.toFixed(3);
    row.append(name, track, num);
    bars.append(row);
  }
  const conds = $("conditions");
  conds.textContent = "";
  for (const c of d.conditions || []) {
    const li = document.createElement("li");
    li.textContent = `${c.letter}: "${c.text}" holds with p ${c.p.toFixed(3)}`;
    conds.append(li);
  }
}

async function decideNow() {
  const seq = ++page.seq;
  try {
    const d = await api("v1/decide", { ...table(), state: $("state").value });
    if (seq !== page.seq) return;
    renderDecision(d);
    showError("");
  } catch (e) {
    if (seq !== page.seq) return;
    $("letter").textContent = "–";
    $("stats").textContent = "";
    $("bars").textContent = "";
    showError(e.message);
  }
}

// ---- the exam --------------------------------------------------------------------------------
function renderExam() {
  const body = $("exam").querySelector("tbody");
  body.textContent = "";
  page.exam.forEach((item, i) => {
    const tr = document.createElement("tr");
    const status = document.createElement("input");
    status.type = "text";
    status.value = item.status;
    status.setAttribute("aria-label", `situation ${i + 1}`);
    status.addEventListener("input", () => (item.status = status.value));
    const expect = document.createElement("input");
    expect.type = "text";
    expect.maxLength = 1;
    expect.value = item.expect;
    expect.setAttribute("aria-label", `expected letter of situation ${i + 1}`);
    expect.addEventListener("input", () => (item.expect = expect.value.toUpperCase()));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "remove";
    remove.setAttribute("aria-label", `remove situation ${i + 1}`);
    remove.addEventListener("click", () => {
      page.exam.splice(i, 1);
      renderExam();
    });
    const cells = [status, expect, null, null, remove].map((el, k) => {
      const td = document.createElement("td");
      td.className = ["status", "expect", "got", "p", "act"][k];
      if (el) td.append(el);
      return td;
    });
    tr.append(...cells);
    body.append(tr);
  });
}

async function runExam() {
  const rows = [...$("exam").querySelectorAll("tbody tr")];
  const base = table();
  $("exam-summary").textContent = "running…";
  let right = 0;
  try {
    const answers = await Promise.all(page.exam.map((item) => api("v1/decide", { ...base, state: item.status })));
    answers.forEach((d, i) => {
      const item = page.exam[i];
      const ok = d.letter === item.expect;
      right += ok;
      rows[i].className = ok ? "right" : "miss";
      rows[i].querySelector("td.got").textContent = ok ? d.letter : `${d.letter}!`;
      rows[i].querySelector("td.p").textContent = (d.probs[item.expect] ?? 0).toFixed(3);
    });
    $("exam-summary").textContent = `${right}/${page.exam.length} right, ${page.exam.length - right} missed`;
    showError("");
  } catch (e) {
    $("exam-summary").textContent = "";
    showError(e.message);
  }
}

// ---- task files ------------------------------------------------------------------------------
async function loadFile(file) {
  try {
    const text = await file.text();
    const t = await api("v1/task_file/parse", { text, file: file.name });
    page.file = { name: file.name, text };
    page.taskName = t.name;
    $("rule").value = t.rule;
    page.options = t.options.map((o) => ({ letter: o.letter, text: o.text, act: o.act }));
    page.exam = t.exam.map((e) => ({ status: e.status, expect: e.expect }));
    if (page.exam.length) $("state").value = page.exam[0].status;
    renderOptions();
    renderExam();
    showError("");
    schedule();
  } catch (e) {
    showError(e.message);
  }
}

async function saveFile() {
  try {
    const r = await api("v1/task_file/write", {
      text: page.file ? page.file.text : "",
      name: page.taskName,
      rule: $("rule").value,
      options: page.options.map((o) => ({ letter: o.letter, text: o.text, act: o.act || "" })),
      exam: page.exam,
    });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([r.toml], { type: "application/toml" }));
    a.download = page.file ? page.file.name : `${page.taskName}.toml`;
    document.body.append(a);
    a.click();
    a.remove();
    showError("");
  } catch (e) {
    showError(e.message);
  }
}

async function loadModels() {
  try {
    const r = await api("v1/models");
    for (const m of r.data) {
      const opt = document.createElement("option");
      opt.value = m.id;
      opt.textContent = m.id;
      $("model").append(opt);
    }
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  renderOptions();
  renderExam();
  $("rule").addEventListener("input", schedule);
  $("state").addEventListener("input", schedule);
  $("model").addEventListener("change", schedule);
  $("add-option").addEventListener("click", () => {
    addOption();
    schedule();
  });
  $("add-item").addEventListener("click", () => {
    page.exam.push({ status: $("state").value, expect: $("letter").textContent.replace("–", "A") });
    renderExam();
  });
  $("run-exam").addEventListener("click", runExam);
  $("load").addEventListener("change", (ev) => ev.target.files[0] && loadFile(ev.target.files[0]));
  $("save").addEventListener("click", saveFile);
  loadModels().then(decideNow);
});
