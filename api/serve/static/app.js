// Quorum's web page. It uses only the /v1 API of the server that served it, with the token as a
// Bearer header. Everything that came from a model, a tool or a file is put in the page as text
// (textContent) or through renderMarkdown (markdown.js), which builds elements and never parses HTML.
// What a call will do (its card, its box in the log) passes through visible() first, as the terminal's
// printable() does: control and invisible formatting characters are shown as their escapes.
"use strict";

const TOKEN_KEY = "quorum-token";
const RUN_KEY = "quorum-run";
const MODEL_KEY = "quorum-model";
const $ = (id) => document.getElementById(id);
const state = { token: null, parent: null, run: null, stream: null, busy: false };

// ---- the token: taken from the URL once, then kept in this tab's session storage only ----
function takeToken() {
  const url = new URL(location.href);
  const given = new URLSearchParams(url.hash.slice(1)).get("token") || url.searchParams.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

// ---- the API ----
class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function apiError(response) {
  let message = `HTTP ${response.status}`;
  let files = [];
  try {
    const error = (await response.json()).error;
    message = error.message || message;
    files = Array.isArray(error.files) ? error.files : [];  // an undo's conflicts
  } catch (e) { /* not JSON */ }
  const failure = new ApiError(response.status, message);
  failure.files = files;
  return failure;
}

async function api(path, body) {
  const init = { headers: { Authorization: "Bearer " + state.token }, cache: "no-store" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 401) { askToken("The server refused the token: enter it again."); }
  if (!response.ok) throw await apiError(response);
  return response.json();
}

const runPath = (id, rest = "") => "/v1/runs/" + encodeURIComponent(id) + rest;

// ---- page-wide messages ----
function setStatus(text) { $("status").textContent = text; }

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

function askToken(why) {
  sessionStorage.removeItem(TOKEN_KEY);
  $("login").hidden = false;
  showError(why);
}

// ---- one run's view: messages, tool calls, the end line ----
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The terminal's rule (quorum.infrastructure.terminal_text.printable): controls (C0 but newline and
// tab, DEL, C1), format characters (bidi embeddings, overrides and isolates, LRM/RLM, ALM, zero-width
// marks), line/paragraph separators and lone surrogates are shown as their escape (\x1b, \u202e), so a
// bidi override cannot make "txt.exe" read as "exe.txt". Backslashes are left alone, as there.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
function visible(text) {
  return String(text).replace(HIDDEN, (char) => {
    if (char === "\n" || char === "\t") return char;
    const code = char.codePointAt(0);
    if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
    if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
    return "\\U" + code.toString(16).padStart(8, "0");
  });
}

// Money reads as everywhere in Quorum (quorum.domain.amounts): four decimals below a dollar,
// cents from a dollar on, thousands separated.
function usd(amount) {
  const digits = Math.abs(amount) < 1 ? 4 : 2;
  return "$" + amount.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function firstLines(text, n) {
  const lines = text.split("\n");
  return lines.slice(0, n).join("\n") + (lines.length > n ? "\n…" : "");
}

class RunView {
  constructor(runId) {
    this.runId = runId;
    this.text = null;       // the assistant block being streamed into, and its source text
    this.source = "";
    this.tools = new Map(); // call id → its element
    this.finished = false;
  }

  handle(type, e) {
    if (e.run_id && e.run_id !== this.runId) { this.delegated(type, e); return; }
    const log = $("log");
    switch (type) {
      case "run_started":
        if (!e.resumed) log.append(el("div", "msg user", e.task));
        setStatus(e.resumed ? "Continuing after the decision…" : "Starting…");
        break;
      case "turn_started": setStatus("The model is working…"); break;
      case "text":
        if (this.text === null) { this.text = el("div", "msg assistant"); this.source = ""; log.append(this.text); }
        this.source += e.text;
        this.text.replaceChildren(renderMarkdown(this.source));
        break;
      case "reasoning": this.reasoning(e); break;
      case "tool_call": this.toolCall(e); break;
      case "progress": if (e.message) setStatus(e.message); break;
      case "model_fallback": setStatus(`${e.from} could not answer (${e.reason}): ${e.to} answers from now on`); break;
      case "approval_requested": this.waiting(e); break;
      case "review": if (!e.approved) this.mark(e.call_id, "rejected", "rejected: " + e.reason); break;
      case "tool_result": this.toolResult(e); break;
      case "plan_proposed": this.plan(e); break;
      case "plan_reviewed": setStatus(e.approved ? "Plan approved: carrying it out…" : "Plan rejected: " + e.reason); break;
      case "run_finished": this.end(e); break;
      default: break;
    }
  }

  delegated(type, e) {  // a subagent's event: a line of progress under its delegate call (as text)
    this.children = this.children || new Map();
    if (!this.children.has(e.run_id)) {
      const taken = new Set(this.children.values());
      const box = [...this.tools.values()].find((b) => b.dataset.tool === "delegate" && !taken.has(b));
      this.children.set(e.run_id, box || null);
    }
    const box = this.children.get(e.run_id);
    const words = {
      run_started: () => `subagent run ${e.run_id} · ${e.model}`,
      tool_call: () => `↳ ${e.name} (${e.risk} risk)`,
      review: () => (e.approved ? null : `↳ rejected: ${e.reason}`),
      tool_result: () => `↳ ${e.name} ${e.is_rejected ? "rejected" : e.is_error ? "failed" : "done"}`,
      run_finished: () => `subagent finished: ${e.stop_reason}`,
    }[type];
    const line = words ? words() : null;
    if (!line) return;
    if (box) box.insertBefore(el("div", "label", visible(line)), box.querySelector(".head"));
    setStatus("Subagent: " + line);
  }

  reasoning(e) {  // the model's reasoning: not the answer, so folded (as text, never as markup)
    this.text = null;
    const box = el("details", "reasoning");
    box.append(el("summary", "", "Reasoning"), el("pre", "", e.text || "(not shown by the provider)"));
    $("log").append(box);
  }

  toolCall(e) {
    this.text = null;
    const box = el("details", "tool running");
    const summary = el("summary");
    summary.append(el("strong", "", visible(e.name)), el("span", "risk " + e.risk, e.risk + " risk"), el("span", "state", " running…"));
    const args = el("pre", "args", visible(JSON.stringify(e.arguments, null, 2)));
    const output = el("pre", "output");
    output.hidden = true;
    box.append(summary, el("div", "label", "Arguments"), args, el("pre", "head"), output);
    box.querySelector(".head").hidden = true;
    box.dataset.callId = e.id;
    box.dataset.tool = e.name;
    this.tools.set(e.id, box);
    $("log").append(box);
    setStatus(`Running ${e.name}…`);
  }

  plan(e) {  // plan mode: the proposed plan as a numbered list
    this.text = null;
    const box = el("div", "msg plan");
    box.append(el("p", "", "Plan: " + e.plan.summary));
    const steps = el("ol");
    for (const step of e.plan.steps) {
      const item = el("li", "", step.description);
      for (const file of step.files || []) item.append(el("div", "detail", "file: " + file));
      for (const command of step.commands || []) item.append(el("div", "detail", "command: " + command));
      steps.append(item);
    }
    box.append(steps);
    $("log").append(box);
  }

  mark(callId, cls, text) {
    const box = this.tools.get(callId);
    if (!box) return;
    box.className = "tool " + cls;
    box.querySelector(".state").textContent = " " + visible(text);
  }

  waiting(e) {
    this.mark(e.call_id, "waiting", "waiting for a decision");
    setStatus(`Waiting for your decision on ${visible(e.name)}`);
  }

  toolResult(e) {
    removeCard(e.call_id);
    const cls = e.is_rejected ? "rejected" : e.is_error ? "failed" : "ok";
    const word = e.is_rejected ? "rejected" : e.is_error ? "failed" : "done";
    this.mark(e.call_id, cls, `${word} in ${(e.duration_ms / 1000).toFixed(2)} s`);
    const box = this.tools.get(e.call_id);
    if (!box) return;
    const head = box.querySelector(".head");
    head.textContent = visible(firstLines(e.output, 4));
    head.hidden = false;
    box.querySelector("summary").append(el("span", "preview", " — " + visible(firstLines(e.output, 1).slice(0, 80))));
    const output = box.querySelector(".output");
    output.textContent = visible(e.output);
    output.hidden = false;
    setStatus("The model is working…");
  }

  end(e) {
    this.text = null;
    if (e.stop_reason === "awaiting_approval") { showPending(this.runId); return; }
    this.finished = true;
    const u = e.usage || {};
    const cost = e.cost == null ? "cost unknown" : usd(e.cost);
    const line = el("p", "end", `${e.stop_reason} · ${u.input_tokens ?? 0} in / ${u.output_tokens ?? 0} out tokens · ${cost}`);
    $("log").append(line);
    if (e.stop_reason === "error" || e.stop_reason === "cancelled") {
      showError(`The run ended ${e.stop_reason}${e.detail ? ": " + e.detail : ""}`);
    }
    setStatus(`Finished (${e.stop_reason})`);
    clearCards();
    idle(this.runId);
    $("log").append(undoBox(this.runId));
  }
}

// ---- undo of a finished run: the plan first, a confirmation, then the undo (file names are text) ----
const UNDO_WORDS = { remove: "remove (the run created it)", restore: "restore (the run changed it)", recreate: "recreate (the run deleted it)" };

function undoBox(runId) {
  const box = el("div", "undo");
  const start = el("button", "", "Undo");
  start.type = "button";
  start.addEventListener("click", () => undoPlan(runId, box));
  box.append(start);
  return box;
}

function undoConflicts(box, error) {
  const list = el("ul", "undo-conflicts");
  for (const path of error.files || []) list.append(el("li", "", visible(path)));
  box.replaceChildren(el("p", "error", "Nothing was undone: these files changed since the run."), list);
}

async function undoPlan(runId, box) {
  let answer;
  try { answer = await api(runPath(runId, "/undo"), { dry_run: true }); } catch (error) {
    if (error.files && error.files.length) { undoConflicts(box, error); return; }
    box.replaceChildren(el("p", "error", error.message));
    return;
  }
  const plan = answer.plan;
  if (plan.conflicts.length) { undoConflicts(box, { files: plan.conflicts }); return; }
  if (!plan.steps.length) { box.replaceChildren(el("p", "", "Nothing to undo: the files are as they were.")); return; }
  const list = el("ul", "undo-plan");
  for (const step of plan.steps) {
    const item = el("li", "", `${UNDO_WORDS[step.action] || step.action}: `);
    item.append(el("code", "", visible(step.path)));
    if (step.diff) item.append(el("pre", "diff", visible(step.diff)));
    list.append(item);
  }
  const apply = el("button", "", "Apply undo");
  apply.type = "button";
  const keep = el("button", "", "Cancel");
  keep.type = "button";
  keep.addEventListener("click", () => box.replaceChildren(undoBox(runId)));
  apply.addEventListener("click", () => undoApply(runId, box));
  box.replaceChildren(el("p", "", "Undo will:"), list, apply, keep);
}

async function undoApply(runId, box) {
  try {
    const result = await api(runPath(runId, "/undo"), {});
    box.replaceChildren(el("p", "undone", `Undone: ${result.plan.steps.length} file(s) as before the run.`));
  } catch (error) {
    if (error.files && error.files.length) { undoConflicts(box, error); return; }
    box.replaceChildren(el("p", "error", error.message));
  }
}

// ---- following a run's events (fetch, so the token travels as a header; Last-Event-ID on reconnect) ----
function parseMessage(block) {
  const fields = {};
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, "");
  }
  if (fields.id === undefined || fields.data === undefined) return null;
  return { id: Number(fields.id), type: fields.event, data: JSON.parse(fields.data) };
}

async function follow(view) {
  if (state.stream) state.stream.abort();
  const control = new AbortController();
  state.stream = control;
  let last = -1;
  let failures = 0;
  while (!control.signal.aborted && !view.finished) {
    try {
      const headers = { Authorization: "Bearer " + state.token };
      if (last >= 0) headers["Last-Event-ID"] = String(last);
      const response = await fetch(runPath(view.runId, "/events"), { headers, signal: control.signal, cache: "no-store" });
      if (!response.ok) {
        const error = await apiError(response);
        if (response.status < 500) { showError(error.message); idle(null); return; }
        throw error;
      }
      if (failures) { showError(""); failures = 0; }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = parseMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message === null || (last >= 0 && message.id <= last)) continue;  // never an event twice
          last = message.id;
          view.handle(message.type, message.data);
        }
      }
      if (view.finished) return;
      throw new Error("the stream ended before the run");
    } catch (error) {
      if (control.signal.aborted) return;
      failures += 1;
      showError(`Connection lost (${error.message}): reconnecting…`);
      setStatus("Reconnecting…");
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** failures, 5000)));
    }
  }
}

// ---- review cards ----
function removeCard(callId) {
  const card = document.querySelector(`.card[data-call-id="${CSS.escape(callId)}"]`);
  if (card) card.remove();
}

function clearCards() { $("reviews").replaceChildren(); }

async function showPending(runId) {
  let items;
  try { items = (await api(runPath(runId, "/pending"))).items; } catch (error) { showError(error.message); return; }
  if (state.run !== runId) return;
  let first = null;
  for (const call of items) {
    if (document.querySelector(`.card[data-call-id="${CSS.escape(call.call_id)}"]`)) continue;
    const card = card_for(runId, call);
    $("reviews").append(card);
    first = first || card;
  }
  if (first) first.focus();
}

function card_for(runId, call) {
  const card = el("section", "card");
  const titleId = "card-" + call.call_id.replace(/[^A-Za-z0-9_-]/g, "_");
  card.dataset.callId = call.call_id;
  card.tabIndex = -1;
  card.setAttribute("aria-labelledby", titleId);
  const title = el("h3", "", call.name === "propose_plan" ? "Approve this plan?" : `Allow ${visible(call.name)}? (${call.risk} risk)`);
  title.id = titleId;
  card.append(title, el("p", "why", visible(call.reason || "")));
  const diff = el("pre", "diff");
  for (const line of call.view || []) {
    const kind = line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
    diff.append(el("span", kind, visible(line)));  // the line as the terminal shows it, marker included
  }
  const args = el("details");
  args.append(el("summary", "", "Arguments"), el("pre", "args", visible(JSON.stringify(call.arguments, null, 2))));
  const label = el("label", "", "Reason (optional)");
  const reason = el("input");
  reason.type = "text";
  label.append(reason);
  const buttons = el("div", "buttons");
  const approve = el("button", "", "Approve");
  const reject = el("button", "", "Reject");
  approve.type = reject.type = "button";
  buttons.append(approve, reject);
  const controls = [approve, reject];
  if (call.always) {  // offered only when the terminal would offer it: its scope, stated in the button itself
    const always = el("button", "always", `Always approve ${visible(call.always)} for the rest of this run`);
    always.type = "button";
    buttons.append(always);
    controls.push(always);
    always.addEventListener("click", () => decide(true, true));
  }
  card.append(diff, args, label, buttons);
  const decide = async (yes, forRun = false) => {
    controls.forEach((button) => { button.disabled = true; });
    const why = reason.value.trim() || (yes ? "" : "rejected in the web page");
    const body = { call_id: call.call_id, approve: yes, reason: why, by: "web" };
    if (forRun) body.always = true;
    try {
      await api(runPath(runId, "/decisions"), body);
      card.remove();
      setStatus(yes ? "Approved: continuing…" : "Rejected: continuing…");
    } catch (error) {
      if (error.status === 409) { card.remove(); return; }  // decided elsewhere
      controls.forEach((button) => { button.disabled = false; });
      showError(error.message);
    }
  };
  approve.addEventListener("click", () => decide(true));
  reject.addEventListener("click", () => decide(false));
  return card;
}

// ---- chat, history ----
function busy(runId) {
  state.busy = true;
  state.run = runId;
  sessionStorage.setItem(RUN_KEY, runId);
  $("send").disabled = true;
}

function idle(runId) {
  state.busy = false;
  if (runId) state.parent = runId;
  $("send").disabled = false;
  loadHistory();
}

async function send() {
  const box = $("message");
  const task = box.value;
  if (!task.trim() || state.busy) return;
  showError("");
  const body = { task };
  if (state.parent) body.parent = state.parent;
  if ($("model").value) body.model = $("model").value;  // none chosen: the server's default, or its advice
  $("send").disabled = true;
  try {
    const { run_id } = await api("/v1/runs", body);
    box.value = "";
    open(run_id);
    loadHistory();
  } catch (error) {
    $("send").disabled = false;
    showError(error.message);
  }
}

function open(runId, clear = false) {
  if (clear) { $("log").replaceChildren(); clearCards(); }
  busy(runId);
  follow(new RunView(runId));
}

// ---- the model list: GET /v1/models, the server's default preselected (a choice kept for the tab) ----
async function loadModels() {
  let listing;
  try { listing = await api("/v1/models"); } catch (error) { showError(error.message); return; }
  const select = $("model");
  select.replaceChildren();
  if (!listing.default) select.append(option("", "Choose a model"));
  for (const item of listing.items) {
    if (item.alias) select.append(option(item.alias, `${item.alias} (${item.model})`));
    else select.append(option(item.model, item.source === "offline" ? `${item.model} (offline)` : item.model));
  }
  const kept = sessionStorage.getItem(MODEL_KEY);
  const values = Array.from(select.options, (o) => o.value);
  select.value = kept !== null && values.includes(kept) ? kept : listing.default || "";
}

function option(value, text) {
  const node = el("option", "", text);
  node.value = value;
  return node;
}

async function loadHistory() {
  let items;
  try { items = (await api("/v1/runs?limit=50")).items; } catch (error) { showError(error.message); return; }
  const list = $("runs");
  list.replaceChildren();
  for (const run of items) {
    const item = el("li");
    const button = el("button", "", run.task);
    button.type = "button";
    button.title = `${run.run_id} · ${run.status}`;
    button.setAttribute("aria-label", `Open run: ${run.task} (${run.status})`);
    button.addEventListener("click", () => { showError(""); open(run.run_id, true); });
    item.append(button);
    list.append(item);
  }
}

function start() {
  $("chat").addEventListener("submit", (event) => { event.preventDefault(); send(); });
  $("message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); }
  });
  $("new-chat").addEventListener("click", () => {
    if (state.stream) state.stream.abort();
    state.parent = state.run = null;
    state.busy = false;
    sessionStorage.removeItem(RUN_KEY);
    $("log").replaceChildren();
    clearCards();
    showError("");
    $("send").disabled = false;
    setStatus("Ready");
    $("message").focus();
  });
  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
    location.reload();
  });
  $("model").addEventListener("change", () => sessionStorage.setItem(MODEL_KEY, $("model").value));
  state.token = takeToken();
  if (!state.token) { askToken("Open the address quorum serve printed (it carries the token), or enter the token."); return; }
  loadModels();
  loadHistory();
  const current = sessionStorage.getItem(RUN_KEY);
  if (current) open(current);  // a reload mid-run: the run is replayed from its first event and followed
}

start();
