// Beam Harmony console: the page's script. Plain JavaScript, no library;
// every call goes to the console's own API (api/...), relative to the page.
"use strict";

const $ = (id) => document.getElementById(id);

// el builds an element: el("span", {class: "mk", "data-i": 3}, "text", child).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

// ---- API calls, with the gateway's key when one is set ----

let keyWaiters = [];

async function api(path, opts) {
  opts = opts || {};
  const headers = Object.assign({}, opts.headers || {});
  const key = sessionStorage.getItem("beamharmony-key");
  if (key) headers["Authorization"] = "Bearer " + key;
  let res;
  try {
    res = await fetch("api/" + path, Object.assign({}, opts, { headers }));
  } catch (err) {
    return { ok: false, status: 0, data: { error: "the console did not answer: " + err.message } };
  }
  let data;
  const text = await res.text();
  try { data = JSON.parse(text); } catch (_) { data = { error: text.trim() || res.statusText }; }
  if (res.status === 401) {
    $("key-panel").hidden = false;
    if (data && data.error && typeof data.error === "object") data = { error: data.error.message || JSON.stringify(data.error) };
  }
  if (data && data.error && typeof data.error === "object") data = { error: data.error.message || JSON.stringify(data.error) };
  return { ok: res.ok, status: res.status, data };
}

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function showError(id, msg) {
  const e = $(id);
  if (msg) { e.textContent = msg; e.hidden = false; } else { e.textContent = ""; e.hidden = true; }
}

// ---- Tabs ----

function selectTab(name) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t.id === "tab-" + name;
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  if (name === "inspector") loadRequests();
}

function setupTabs() {
  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
  for (const t of tabs) {
    t.addEventListener("click", () => selectTab(t.id.slice(4)));
    t.addEventListener("keydown", (ev) => {
      const shown = tabs.filter((x) => !x.hidden);
      const i = shown.indexOf(t);
      let j = -1;
      if (ev.key === "ArrowRight") j = (i + 1) % shown.length;
      if (ev.key === "ArrowLeft") j = (i - 1 + shown.length) % shown.length;
      if (ev.key === "Home") j = 0;
      if (ev.key === "End") j = shown.length - 1;
      if (j >= 0) { ev.preventDefault(); shown[j].focus(); selectTab(shown[j].id.slice(4)); }
    });
  }
}

// ---- The prompt, styled: markers, roles, channels, trained spans ----

// promptPieces cuts a prompt (an array of code points) into styled pieces
// {start, end, cls}: markers, the role after <|start|>, the channel after
// <|channel|>, and text.
function promptPieces(chars) {
  const text = chars.join("");
  const out = [];
  const re = /<\|[a-z_]+\|>/g;
  // Positions are in code points: map UTF-16 indexes as we go.
  let cp = 0, u16 = 0, last = "";
  const toCP = (idx) => { while (u16 < idx) { u16 += chars[cp].length; cp++; } return cp; };
  let m, prevEnd = 0;
  while ((m = re.exec(text)) !== null) {
    const s = toCP(m.index);
    if (s > prevEnd) out.push({ start: prevEnd, end: s, cls: last === "<|start|>" ? "role" : last === "<|channel|>" ? "chan" : "txt" });
    const e = s + m[0].length;
    out.push({ start: s, end: e, cls: "mk" });
    last = m[0];
    prevEnd = e;
  }
  if (chars.length > prevEnd) out.push({ start: prevEnd, end: chars.length, cls: last === "<|start|>" ? "role" : last === "<|channel|>" ? "chan" : "txt" });
  return out;
}

// showPrompt writes prompt into the element target: every trained span
// (spans: [start, end) in characters) a <mark class="trained"> holding the
// styled pieces.
function showPrompt(target, prompt, spans) {
  const chars = Array.from(prompt);
  const pieces = promptPieces(chars);
  const frag = document.createDocumentFragment();
  const bounds = [];
  let at = 0;
  for (const [s, e] of spans || []) {
    if (s > at) bounds.push({ start: at, end: s, trained: false });
    bounds.push({ start: s, end: e, trained: true });
    at = e;
  }
  if (chars.length > at) bounds.push({ start: at, end: chars.length, trained: false });
  let pi = 0;
  for (const b of bounds) {
    const holder = b.trained ? el("mark", { class: "trained", "data-start": b.start, "data-end": b.end, title: "trained: characters " + b.start + "–" + b.end }) : frag;
    while (pi < pieces.length && pieces[pi].start < b.end) {
      const p = pieces[pi];
      const s = Math.max(p.start, b.start), e = Math.min(p.end, b.end);
      const t = chars.slice(s, e).join("");
      holder.append(p.cls === "txt" ? document.createTextNode(t) : el("span", { class: p.cls, text: t }));
      if (p.end <= b.end) pi++; else break;
    }
    if (b.trained) frag.append(holder);
  }
  target.replaceChildren(frag);
}

// ---- The request's JSON, located and edited in place ----

// jsonScan finds the value that starts at or after i in text (valid JSON)
// and returns {start, end, members} where members, for an object, are
// [{key, keyStart, start, end}] and, for an array, [{start, end}].
function jsonScan(text, i) {
  const ws = (j) => { while (j < text.length && " \t\r\n".includes(text[j])) j++; return j; };
  const str = (j) => { j++; while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1; return j + 1; };
  i = ws(i);
  const start = i;
  const c = text[i];
  if (c === '"') return { start, end: str(i) };
  if (c !== "{" && c !== "[") {
    while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
    return { start, end: i };
  }
  const members = [];
  i = ws(i + 1);
  const close = c === "{" ? "}" : "]";
  while (text[i] !== close) {
    let key, keyStart;
    if (c === "{") {
      keyStart = i;
      const ke = str(i);
      key = JSON.parse(text.slice(i, ke));
      i = ws(ke) + 1; // past the colon
    }
    const v = jsonScan(text, i);
    members.push(Object.assign(v, { key, keyStart: keyStart === undefined ? v.start : keyStart }));
    i = ws(v.end);
    if (text[i] === ",") i = ws(i + 1);
  }
  return { start, end: i + 1, members };
}

// jsonPathSpan returns the [start, end) of the value at path (as the
// renderer writes it: messages[1].content) in text, or null.
function jsonPathSpan(text, path) {
  let v;
  try { JSON.parse(text); v = jsonScan(text, 0); } catch (_) { return null; }
  for (const seg of path.match(/[^.[\]]+|\[\d+\]/g) || []) {
    if (!v.members) return null;
    const idx = seg.startsWith("[") ? Number(seg.slice(1, -1)) : -1;
    const next = idx >= 0 ? (v.members[idx] && v.members[idx].key === undefined ? v.members[idx] : null) : v.members.find((m) => m.key === seg);
    if (!next) return null;
    v = next;
  }
  return [v.start, v.end];
}

// setKey returns text with the top-level key set to the JSON text value, or
// removed when value is null; the rest of the text is kept byte for byte.
function setKey(text, key, value) {
  const top = jsonScan(text, 0);
  const ms = top.members;
  const at = ms.findIndex((m) => m.key === key);
  if (at >= 0 && value !== null) return text.slice(0, ms[at].start) + value + text.slice(ms[at].end);
  if (at >= 0) {
    if (at > 0) return text.slice(0, ms[at - 1].end) + text.slice(ms[at].end);
    if (ms.length > 1) return text.slice(0, ms[0].keyStart) + text.slice(ms[1].keyStart);
    return text.slice(0, top.start + 1) + text.slice(top.end - 1);
  }
  if (value === null) return text;
  const entry = JSON.stringify(key) + ": " + value;
  if (!ms.length) return text.slice(0, top.start + 1) + entry + text.slice(top.end - 1);
  const last = ms[ms.length - 1];
  // As the members before it are indented.
  const lead = text.slice(0, last.keyStart).match(/(\n[ \t]*)$/);
  return text.slice(0, last.end) + "," + (lead ? lead[1] : " ") + entry + text.slice(last.end);
}

// editArray returns text with the array value arr (as jsonScan gives it)
// given one more element (add, JSON text) or one fewer (drop, an
// index), the rest of the text kept.
function editArray(text, arr, add, drop) {
  const ms = arr.members;
  if (add !== undefined) {
    if (!ms.length) return text.slice(0, arr.start + 1) + add + text.slice(arr.end - 1);
    return text.slice(0, ms[ms.length - 1].end) + ", " + add + text.slice(ms[ms.length - 1].end);
  }
  if (drop > 0) return text.slice(0, ms[drop - 1].end) + text.slice(ms[drop].end);
  if (ms.length > 1) return text.slice(0, ms[0].start) + text.slice(ms[1].start);
  return text.slice(0, arr.start + 1) + text.slice(arr.end - 1);
}

// setBuiltin adds the trained definition of built-in tool name to the
// request's tools (unless a tool of that name is declared) or removes it
// (only when it is that definition, as the control added it).
function setBuiltin(text, name, on) {
  const def = state.builtins[name];
  if (!def) return text;
  const req = JSON.parse(text);
  const tools = Array.isArray(req.tools) ? req.tools : null;
  const declared = (tools || []).findIndex((t) => t && t.function && t.function.name === name);
  if (on && declared >= 0) return text;
  if (on && !tools) return setKey(text, "tools", "[" + def + "]");
  const top = jsonScan(text, 0);
  const arr = top.members.find((m) => m.key === "tools");
  if (on) return editArray(text, arr, def);
  if (declared < 0 || JSON.stringify(tools[declared]) !== JSON.stringify(JSON.parse(def))) return text;
  if (tools.length === 1) return setKey(text, "tools", null);
  return editArray(text, arr, undefined, declared);
}

const efforts = ["minimal", "low", "medium", "high", "xhigh", "max"];

// syncControls shows the request's reasoning_effort, builtin_tools and
// add_generation_prompt in their controls; a request that is not a JSON
// object disables them.
function syncControls() {
  let req = null;
  try { req = JSON.parse($("request").value); } catch (_) { /* not JSON */ }
  const ok = req !== null && typeof req === "object" && !Array.isArray(req);
  $("request-controls").disabled = !ok;
  $("request-controls").title = ok ? "" : "the request is not a JSON object: fix it to use these";
  if (!ok) return;
  const sel = $("effort");
  const e = req.reasoning_effort;
  for (const o of Array.from(sel.options)) if (o.dataset.asWritten) o.remove();
  if (e === undefined || e === null) sel.value = "";
  else if (efforts.includes(e)) sel.value = e;
  else {
    const text = JSON.stringify(e);
    sel.append(el("option", { value: "=" + text, "data-as-written": "true", text: text + " (as written)" }));
    sel.value = "=" + text;
  }
  const tools = Array.isArray(req.builtin_tools) ? req.builtin_tools : [];
  $("builtin-search").checked = tools.includes("search");
  $("builtin-browse").checked = tools.includes("browse");
  $("gen-prompt").checked = req.add_generation_prompt !== false;
}

// editRequest applies a control's change to the request's JSON text and
// renders it.
function editRequest(key) {
  const ta = $("request");
  let req;
  try { req = JSON.parse(ta.value); } catch (_) { syncControls(); return; }
  let value = null;
  if (key === "reasoning_effort") {
    const v = $("effort").value;
    if (v.startsWith("=")) return;
    value = v ? JSON.stringify(v) : null;
  } else if (key === "builtin_tools") {
    let tools = Array.isArray(req.builtin_tools) ? req.builtin_tools.slice() : [];
    for (const name of ["search", "browse"]) {
      const on = $("builtin-" + name).checked;
      if (on && !tools.includes(name)) tools.push(name);
      if (!on) tools = tools.filter((t) => t !== name);
    }
    value = tools.length ? "[" + tools.map((t) => JSON.stringify(t)).join(", ") + "]" : null;
    let text = setKey(ta.value, key, value);
    for (const name of ["search", "browse"]) text = setBuiltin(text, name, $("builtin-" + name).checked);
    ta.value = text;
    refresh();
    return;
  } else if (key === "add_generation_prompt") {
    const on = $("gen-prompt").checked;
    value = on ? null : "false"; // checked is the default, true

  }
  ta.value = setKey(ta.value, key, value);
  refresh();
}

// gotoRequestError selects, in the request, where the last render error is:
// the character at its byte offset, or the value at its path.
function gotoRequestError() {
  const ta = $("request");
  const where = state.errorAt;
  if (!where) return;
  ta.focus();
  ta.setSelectionRange(where[0], where[1]);
}

// errorSpan finds the UTF-16 range of a render error in the request text.
function errorSpan(text, err) {
  if (err.offset !== undefined) {
    const bytes = new TextEncoder().encode(text);
    const off = Math.min(err.offset, bytes.length);
    const s = new TextDecoder().decode(bytes.slice(0, off)).length;
    const e = s < text.length ? s + (text.codePointAt(s) > 0xffff ? 2 : 1) : s;
    return [s, e];
  }
  if (err.path) return jsonPathSpan(text, err.path);
  return null;
}

// lineColumn says where UTF-16 index i is in text, from 1.
function lineColumn(text, i) {
  const before = text.slice(0, i).split("\n");
  return "line " + before.length + ", column " + (Array.from(before[before.length - 1]).length + 1);
}

// ---- Playground ----

const state = { examples: [], timer: 0, parseTimer: 0, tokens: null, chars: [], sel: -1, seq: 0 };

function call() {
  return {
    request: $("request").value,
    strict: $("strict").checked,
    drop_late_instructions: $("drop-late").checked,
  };
}

async function refresh() {
  const seq = ++state.seq;
  const body = call();
  const r = await post("render", body);
  if (seq !== state.seq) return;
  syncControls();
  if (!r.ok) {
    showError("render-error", r.data.error + (r.data.path ? "\n(at " + r.data.path + ")" : r.data.offset !== undefined ? "\n(at byte " + r.data.offset + " of the request)" : ""));
    $("prompt").classList.add("stale");
    state.errorAt = errorSpan(body.request, r.data);
    const go = $("request-goto");
    go.hidden = !state.errorAt;
    if (state.errorAt) go.textContent = "Select the error in the request (" + lineColumn(body.request, state.errorAt[0]) + ")";
  } else {
    showError("render-error", "");
    state.errorAt = null;
    $("request-goto").hidden = true;
    const p = r.data;
    state.prompt = p.prompt;
    showPrompt($("prompt"), p.prompt, p.assistant_spans);
    $("prompt").classList.remove("stale");
    $("counts").textContent = p.characters + " characters, " + p.trained_characters + " trained in " + p.assistant_spans.length + " span" + (p.assistant_spans.length === 1 ? "" : "s");
    $("warnings").replaceChildren(...p.warnings.map((w) => el("li", { text: w })));
  }
  const jobs = [refreshGrammar(body, seq)];
  if (!$("tokens-panel").hidden) jobs.push(refreshTokens(body, seq, r.ok));
  jobs.push(refreshParse());
  await Promise.all(jobs);
  document.body.dataset.rendered = String(seq);
}

async function refreshTokens(body, seq, rendered) {
  if (!rendered) {
    showError("tokens-error", "");
    $("tokens").replaceChildren();
    $("token-counts").textContent = "";
    return;
  }
  const r = await post("tokens", body);
  if (seq !== state.seq) return;
  if (!r.ok) {
    showError("tokens-error", r.data.error);
    $("tokens").replaceChildren();
    return;
  }
  showError("tokens-error", "");
  showTokens(r.data);
}

function showTokens(t) {
  state.tokens = t;
  state.chars = Array.from(state.prompt || "");
  state.sel = -1;
  const frag = document.createDocumentFragment();
  let prevEnd = 0;
  for (let i = 0; i < t.input_ids.length; i++) {
    const [s, e] = t.offsets[i] || [prevEnd, prevEnd];
    const from = Math.max(s, Math.min(prevEnd, e));
    const text = state.chars.slice(from, e).join("");
    prevEnd = Math.max(prevEnd, e);
    const m = t.assistant_masks[i];
    const cls = "tok" + (m ? " m1" : " m0") + (t.markers[i] ? " mkt" : "");
    frag.append(el("span", {
      class: cls, "data-i": i, "data-id": t.input_ids[i], "data-start": s, "data-end": e, "data-mask": m,
      title: "id " + t.input_ids[i] + " · characters " + s + "–" + e + (m ? " · trained (mask 1)" : " · mask 0"),
      role: "option", "aria-selected": "false",
    }, text));
  }
  $("tokens").replaceChildren(frag);
  $("token-counts").textContent = t.count + " tokens, " + t.trained + " trained (" + (t.count ? (100 * t.trained / t.count).toFixed(1) : "0") + "%)";
  $("token-info").textContent = "";
}

function selectToken(i) {
  const box = $("tokens");
  const t = state.tokens;
  if (!t || !t.input_ids.length) return;
  i = Math.max(0, Math.min(t.input_ids.length - 1, i));
  const old = box.querySelector(".tok.sel");
  if (old) { old.classList.remove("sel"); old.setAttribute("aria-selected", "false"); }
  const span = box.children[i];
  span.classList.add("sel");
  span.setAttribute("aria-selected", "true");
  span.scrollIntoView({ block: "nearest" });
  state.sel = i;
  $("token-info").textContent = "token " + (i + 1) + " of " + t.count + ": " + span.title + ": " + JSON.stringify(span.textContent);
}

async function refreshGrammar(body, seq) {
  const constraints = $("constraints").value.trim();
  let k = null;
  if (constraints) {
    try { k = JSON.parse(constraints); } catch (err) {
      showError("grammar-error", "constraints: not JSON: " + err.message);
      $("grammar").textContent = "";
      return;
    }
  }
  const r = await post("grammar", Object.assign({}, body, { constraints: k }));
  if (seq !== state.seq) return;
  if (!r.ok) {
    showError("grammar-error", r.data.error);
    $("grammar").textContent = "";
    $("grammar-note").textContent = "";
    return;
  }
  showError("grammar-error", "");
  if (!r.data.constrained) {
    $("grammar-note").textContent = "No grammar: free generation (set a tool_choice of required or a function, a response_format, or a strict tool).";
    $("grammar").textContent = "";
    return;
  }
  const more = r.data.ebnf_dropped.filter((p) => !r.data.dropped.includes(p));
  $("grammar-note").textContent = "GBNF (llama.cpp); vLLM and SGLang get the same rules as EBNF" +
    (more.length ? ", except that for them these are not enforced either (xgrammar pays about 0.1 s a token for them): " + more.join(", ") + "." : ".") +
    (r.data.dropped.length ? " Not enforced: " + r.data.dropped.join(", ") : "");
  $("grammar").textContent = r.data.gbnf;
}

async function refreshParse() {
  const gen = $("generation").value;
  if (!gen) {
    showError("parse-error", "");
    $("parse-source").hidden = true;
    $("parse-message").textContent = "";
    $("parse-events").replaceChildren();
    return;
  }
  const r = await post("parse", { request: $("request").value, generation: gen });
  if (!r.ok) { showError("parse-error", r.data.error); return; }
  const p = r.data;
  $("parse-message").textContent = p.message ? JSON.stringify(p.message, null, 2) : "";
  $("parse-events").replaceChildren(...p.events.map((e) => el("li", { text: JSON.stringify(e) })));
  const warn = p.warnings.length ? "\nwarnings: " + p.warnings.join("; ") : "";
  if (p.error) {
    showError("parse-error", p.error + warn);
    // Show where: the byte offset in the generation.
    const bytes = new TextEncoder().encode(gen);
    const off = Math.min(p.offset || 0, bytes.length);
    const dec = new TextDecoder();
    const before = dec.decode(bytes.slice(0, off)), after = dec.decode(bytes.slice(off));
    const first = Array.from(after)[0] || "";
    $("parse-source").replaceChildren(before, el("span", { class: "errpos", title: "byte " + off, text: first || " " }), after.slice(first.length));
    $("parse-source").hidden = false;
  } else {
    showError("parse-error", "");
    $("parse-source").hidden = true;
    $("parse-message").textContent += warn;
  }
}

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, 250);
}

function setupPlayground() {
  for (const id of ["request", "constraints"]) $(id).addEventListener("input", schedule);
  for (const id of ["strict", "drop-late"]) $(id).addEventListener("change", schedule);
  $("effort").addEventListener("change", () => editRequest("reasoning_effort"));
  for (const id of ["builtin-search", "builtin-browse"]) $(id).addEventListener("change", () => editRequest("builtin_tools"));
  $("gen-prompt").addEventListener("change", () => editRequest("add_generation_prompt"));
  $("request-goto").addEventListener("click", gotoRequestError);
  $("generation").addEventListener("input", () => { clearTimeout(state.parseTimer); state.parseTimer = setTimeout(refreshParse, 250); });
  $("example").addEventListener("change", () => {
    const ex = state.examples.find((x) => x.name === $("example").value);
    if (ex) { $("request").value = ex.request; refresh(); }
  });
  const box = $("tokens");
  box.addEventListener("keydown", (ev) => {
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (ev.key in moves) { ev.preventDefault(); selectToken(state.sel < 0 ? 0 : state.sel + moves[ev.key]); }
    if (ev.key === "Home") { ev.preventDefault(); selectToken(0); }
    if (ev.key === "End") { ev.preventDefault(); selectToken(Infinity); }
  });
  box.addEventListener("mouseover", (ev) => {
    const t = ev.target.closest(".tok");
    if (t) $("token-info").textContent = t.title + ": " + JSON.stringify(t.textContent);
  });
}

// ---- Dataset preview ----

function histogram(values, bins, lo, hi, label) {
  const W = 420, H = 180, L = 40, B = 30, T = 10, R = 10;
  const counts = new Array(bins).fill(0);
  const width = (hi - lo) / bins || 1;
  for (const v of values) counts[Math.min(bins - 1, Math.max(0, Math.floor((v - lo) / width)))]++;
  const top = Math.max(1, ...counts);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("class", "hist");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label + ": " + values.length + " rows in " + bins + " bins from " + lo + " to " + hi);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  const bw = (W - L - R) / bins;
  counts.forEach((c, i) => {
    const h = (H - B - T) * c / top;
    const r = add("rect", { class: "bar", x: L + i * bw + 1, y: H - B - h, width: Math.max(1, bw - 2), height: h });
    const t = document.createElementNS(ns, "title");
    t.textContent = c + " rows from " + fmt(lo + i * width) + " to " + fmt(lo + (i + 1) * width);
    r.append(t);
  });
  add("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#555" });
  add("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#555" });
  add("text", { x: L, y: H - B + 14 }, fmt(lo));
  add("text", { x: W - R, y: H - B + 14, "text-anchor": "end" }, fmt(hi));
  add("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, label);
  add("text", { x: L - 4, y: T + 8, "text-anchor": "end" }, String(top));
  add("text", { x: L - 4, y: H - B, "text-anchor": "end" }, "0");
  return svg;
}

function fmt(x) { return Math.abs(x) >= 10 || x === 0 ? String(Math.round(x)) : x.toFixed(2); }

async function uploadDataset(file) {
  showError("dataset-error", "");
  $("dataset-summary").textContent = "Reading " + file.name + " (" + file.size + " bytes)…";
  const r = await api("dataset", { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file });
  if (!r.ok) {
    showError("dataset-error", r.data.error);
    $("dataset-summary").textContent = "";
    return;
  }
  showDataset(r.data, file.name);
}

function showDataset(d, name) {
  $("dataset-summary").textContent = name + ": " + d.kind + (d.format === "parquet" ? " Parquet" : "") + " file, " + d.rows_read + " rows read, " + d.rejected + " rejected" +
    (d.lengths.length ? ", " + (100 * d.trained_total).toFixed(1) + "% of " + d.unit + " trained" : "") +
    (d.rows.length < d.rows_read ? "; the first " + d.rows.length + " rows shown" : "") + (d.truncated ? "; stopped at the time limit" : "");
  if (d.lengths.length) {
    $("dataset-plots").hidden = false;
    $("length-caption").textContent = "Length in " + d.unit + " per row";
    $("length-plot").replaceChildren(histogram(d.lengths, 20, 0, Math.max(...d.lengths), d.unit));
    $("share-plot").replaceChildren(histogram(d.trained, 20, 0, 1, "trained share"));
  } else {
    $("dataset-plots").hidden = true;
  }
  const rows = d.rows.map((row) => {
    const meta = el("div", { class: "meta", text: (d.format === "parquet" ? "row " : "line ") + row.line + (row.source ? " · " + row.source : "") + (row.id !== undefined ? " · id " + JSON.stringify(row.id) : "") +
      (row.error ? "" : " · " + row.length + " " + d.unit + ", " + row.trained + " trained") });
    if (row.error) {
      let shown = row.row || "";
      try { shown = JSON.stringify(JSON.parse(shown), null, 2); } catch (_) { /* kept as it is */ }
      return el("article", { class: "drow reject", "data-line": row.line }, meta, el("pre", { text: shown, tabindex: 0 }), el("div", { class: "reason", text: row.error }));
    }
    const pre = el("pre", { class: "prompt", tabindex: 0 });
    if (row.pieces) {
      row.pieces.forEach((p, i) => pre.append(row.mask[i] ? el("mark", { class: "trained", text: p }) : document.createTextNode(p)));
    } else if (row.input_ids) {
      row.input_ids.forEach((id, i) => pre.append(row.mask[i] ? el("mark", { class: "trained", text: id + " " }) : document.createTextNode(id + " ")));
    }
    return el("article", { class: "drow plain", "data-line": row.line }, meta, pre);
  });
  $("dataset-rows").replaceChildren(...rows);
}

async function openLocal() {
  const sel = $("local-file");
  const name = sel.options[sel.selectedIndex] ? sel.options[sel.selectedIndex].text : "";
  showError("dataset-error", "");
  $("dataset-summary").textContent = "Reading " + name + "…";
  const r = await post("open", { file: Number(sel.value) });
  if (!r.ok) {
    showError("dataset-error", r.data.error);
    $("dataset-summary").textContent = "";
    return;
  }
  showDataset(r.data, name);
}

function setupDataset() {
  $("local-open").addEventListener("click", openLocal);
  $("dataset-file").addEventListener("change", () => {
    const f = $("dataset-file").files[0];
    if (f) uploadDataset(f);
  });
}

// ---- Inspector ----

let autoTimer = 0;

async function loadRequests() {
  const r = await api("requests");
  if (!r.ok) { showError("inspector-error", r.data.error); return; }
  showError("inspector-error", "");
  const d = r.data;
  $("inspector-summary").textContent = d.requests.length + " kept (at most " + d.max + ", " + d.bytes + " of " + d.max_bytes + " bytes)" + (d.redacted ? "; message text redacted" : "");
  const rows = d.requests.map((s) => {
    const open = el("button", { "data-seq": s.seq, "aria-label": "Show request " + s.seq, text: String(s.seq), tabindex: -1 });
    open.addEventListener("click", () => showRequest(s.seq));
    return el("tr", { class: s.error ? "failed" : "", "data-seq": s.seq },
      el("td", {}, open), el("td", { text: new Date(s.time).toLocaleTimeString() }), el("td", { text: s.api + (s.stream ? " (stream)" : "") }),
      el("td", { text: String(s.status) }), el("td", { text: s.total.toFixed(3) }),
      el("td", { text: (s.prompt_tokens || 0) + " + " + (s.completion_tokens || 0) }), el("td", { text: s.replica || "" }), el("td", { text: s.error || "" }));
  });
  const body = $("inspector-list").tBodies[0];
  const had = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.seq : null;
  body.replaceChildren(...rows);
  // One stop in the tab order: the focused, the current or the first
  // request; the arrow keys move between them (setupInspector).
  const buttons = Array.from(body.querySelectorAll("button"));
  const keep = buttons.find((b) => b.dataset.seq === had) || buttons.find((b) => b.dataset.seq === String(state.current)) || buttons[0];
  if (keep) {
    keep.tabIndex = 0;
    if (had) keep.focus();
  }
}

// moveInList moves the focus in the inspector's list by the arrow keys,
// Home and End; Enter (or Space) on a request opens it, as a button does.
function moveInList(ev) {
  const buttons = Array.from($("inspector-list").tBodies[0].querySelectorAll("button"));
  const i = buttons.indexOf(document.activeElement);
  if (i < 0) return;
  let j = -1;
  if (ev.key === "ArrowDown") j = Math.min(buttons.length - 1, i + 1);
  if (ev.key === "ArrowUp") j = Math.max(0, i - 1);
  if (ev.key === "Home") j = 0;
  if (ev.key === "End") j = buttons.length - 1;
  if (j < 0) return;
  ev.preventDefault();
  buttons[i].tabIndex = -1;
  buttons[j].tabIndex = 0;
  buttons[j].focus();
}

async function showRequest(seq) {
  const r = await api("requests/" + seq);
  if (!r.ok) { showError("inspector-error", r.data.error); return; }
  const d = r.data;
  state.current = seq;
  for (const tr of $("inspector-list").tBodies[0].rows) tr.classList.toggle("current", tr.dataset.seq === String(seq));
  $("inspector-detail").hidden = false;
  $("detail-title").textContent = "Request " + d.seq + ": " + d.api + " " + d.id;
  const t = d.timings;
  const facts = [
    ["Status", d.status + (d.error ? " — " + d.error : "")],
    ["Model", d.model || ""], ["Stream", d.stream ? "yes" : "no"], ["Finish", d.finish || ""],
    ["Timings (s)", "queue " + t.queue.toFixed(3) + ", prepare " + t.prepare.toFixed(3) + ", first token " + (t.first_token || 0).toFixed(3) + ", total " + t.total.toFixed(3) + (t.tokens_per_second ? ", " + t.tokens_per_second.toFixed(1) + " tokens/s" : "")],
    ["Tokens", (d.prompt_tokens || 0) + " prompt, " + (d.completion_tokens || 0) + " completion"],
    ["Replica", (d.replica || "") + (d.route ? " (" + d.route + ")" : "")],
    ["Redacted", d.redacted ? "yes: message text replaced" : "no"],
  ];
  if (d.error_detail) facts.push(["Detail", d.error_detail]);
  if (d.warnings && d.warnings.length) facts.push(["Warnings", d.warnings.join("; ")]);
  if (d.cut && d.cut.length) facts.push(["Cut to fit", d.cut.join(", ")]);
  $("detail-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
  showPrompt($("detail-prompt"), d.prompt || "", d.assistant_spans || []);
  $("detail-generation").textContent = d.generation || "";
  $("detail-reply").textContent = pretty(d.reply);
  $("detail-grammar").textContent = d.grammar || "(free generation)";
  $("detail-engine").textContent = pretty(d.engine_request);
  $("detail-body").textContent = pretty(d.body);
  $("detail-title").focus();
}

function pretty(s) {
  if (!s) return "";
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch (_) { return s; }
}

function setupInspector() {
  $("inspector-refresh").addEventListener("click", loadRequests);
  $("inspector-auto").addEventListener("change", () => {
    clearInterval(autoTimer);
    if ($("inspector-auto").checked) autoTimer = setInterval(loadRequests, 2000);
  });
  $("detail-title").tabIndex = -1;
  $("inspector-list").addEventListener("keydown", moveInList);
}

// ---- Start ----

async function start() {
  setupTabs();
  setupPlayground();
  setupDataset();
  setupInspector();
  $("key-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem("beamharmony-key", $("api-key").value.trim());
    $("key-panel").hidden = true;
    start2();
  });
  await start2();
}

async function start2() {
  const info = await api("info");
  if (!info.ok) { showError("render-error", info.data.error); return; }
  $("tokens-panel").hidden = !info.data.tokenizer;
  $("tokenizer-name").textContent = info.data.tokenizer ? "tokenizer: " + info.data.tokenizer : "no tokenizer (start with --tokenizer PATH for the token view)";
  $("tab-inspector").hidden = !info.data.inspector;
  state.builtins = info.data.builtin_tools || {};
  const files = info.data.local_files || [];
  $("local-row").hidden = !files.length;
  $("local-file").replaceChildren(...files.map((f, i) => el("option", { value: i, text: f })));
  const ex = await api("examples");
  if (ex.ok) {
    state.examples = ex.data;
    $("example").replaceChildren(el("option", { value: "", text: "(paste your own)" }), ...ex.data.map((x) => el("option", { value: x.name, text: x.name })));
  }
  if (!$("request").value && state.examples.length) {
    const first = state.examples.find((x) => x.name === "weather_tool_loop") || state.examples[0];
    $("example").value = first.name;
    $("request").value = first.request;
  }
  const hash = location.hash.slice(1);
  if (hash === "dataset" || hash === "inspector" && info.data.inspector) selectTab(hash);
  await refresh();
  document.body.dataset.ready = "true";
}

start();
