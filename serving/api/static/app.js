"use strict";
// The analysts' page: every value from the API is inserted as text (never as HTML).
const $ = (id) => document.getElementById(id);
const STATUS = { answered: "respondida", not_found: "não encontrada", partial: "parcial" };
const BANNER = {
  partial: "Resposta parcial: as fontes encontradas cobrem só parte da pergunta.",
  not_found: "Nenhum documento disponível responde a esta pergunta.",
};
const GRADE = { correct: "correta", ambiguous: "ambígua", incorrect: "incorreta" };
const CITED = "citada";  // a cited passage graded incorrect for the question: the answer used it all the same
const SEARCH_DELAY_MS = 300;  // the catalog search waits for a pause in typing
const REVIEW = { ok: "em dia", due_soon: "vence em breve", overdue: "vencida", unknown: "sem data" };
let evidenceByN = new Map();
let conversation = { id: null, last: null };  // the server keeps the turns; the page shows the earlier ones

function headers() {
  const h = { "content-type": "application/json" };
  const key = $("api-key").value.trim();
  if (key) h["x-api-key"] = key;
  return h;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.detail || `HTTP ${response.status}`);
  return body;
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function citeLink(n) {
  const a = el("a", `[${n}]`, "cite");
  a.href = "#";
  a.dataset.n = String(n);
  a.addEventListener("click", (event) => { event.preventDefault(); openCitation(n); });
  return a;
}

function renderAnswer(text) {
  const box = $("answer");
  box.replaceChildren();
  const parts = text.split(/(\[\d+\])/);
  for (const part of parts) {
    const m = /^\[(\d+)\]$/.exec(part);
    if (m && evidenceByN.has(Number(m[1]))) box.appendChild(citeLink(Number(m[1])));
    else box.appendChild(document.createTextNode(part));
  }
}

// Only cited passages are shown, so a chip never calls one "incorreta": the answer relies on it (an agentic
// comparison cites the policy's requirement, which need not mention the contract the question names).
function gradeBadge(item) {
  if (!item || !item.grade) return null;
  const grade = item.grade === "incorrect" ? "cited" : item.grade;
  const badge = el("span", grade === "cited" ? CITED : GRADE[grade] || grade, `grade ${grade}`);
  badge.title = grade === "cited" ? "usada pela resposta" : item.grade_reason || "";
  return badge;
}

function version(item) {
  const v = item.metadata && item.metadata.version;
  if (!v) return null;
  return /^\d/.test(v) ? `versão ${v}` : v;
}

function describe(item) {
  const bits = [item.title || item.id];
  if (version(item)) bits.push(version(item));
  if (item.section) bits.push(item.section);
  if (item.pages && item.pages.length) bits.push(`p. ${item.pages.join(", ")}`);
  const meta = item.metadata || {};
  if (meta.responsible) bits.push(`responsável: ${meta.responsible}`);
  if (meta.department) bits.push(meta.department);
  return bits.join(" — ");
}

function renderResult(data) {
  window.lastAnswer = data;
  evidenceByN = new Map(data.evidence.filter((e) => e.n !== null && e.n !== undefined).map((e) => [e.n, e]));
  $("result").hidden = false;
  $("answer-status").textContent = STATUS[data.status] || data.status;
  $("answer-status").dataset.status = data.status;
  $("result").dataset.status = data.status;
  $("answer-banner").hidden = !BANNER[data.status];
  $("answer-banner").textContent = BANNER[data.status] || "";
  $("answer-banner").className = `banner ${data.status}`;
  $("answer-mode").textContent = data.mode_used;
  $("answer-snapshot").textContent = data.snapshot_id;
  renderAnswer(data.answer);
  $("answer-rewritten").hidden = !data.rewritten_question;
  $("answer-rewritten").textContent = data.rewritten_question ? `pergunta entendida: ${data.rewritten_question}` : "";
  const list = $("citations");
  list.replaceChildren();
  for (const c of [...data.citations].sort((a, b) => a.n - b.n)) {  // [1], [2], ... as the answer numbers them
    const li = el("li");
    li.dataset.n = String(c.n);
    li.appendChild(citeLink(c.n));
    li.appendChild(el("span", " " + describe(c), "source"));
    const badge = gradeBadge(evidenceByN.get(c.n));
    if (badge) li.appendChild(badge);
    if (c.path) li.appendChild(el("span", c.path, "path"));  // two versions of a document differ here
    list.appendChild(li);
  }
  $("citations-title").hidden = data.citations.length === 0;
  const warnings = $("warnings");
  warnings.replaceChildren(...(data.warnings || []).map((w) => el("li", w, "meta")));
  const sug = $("suggestions");
  sug.replaceChildren();
  if (data.suggestions && data.suggestions.length) {
    sug.appendChild(el("p", "Documentos mais próximos e seus responsáveis:"));
    const ul = el("ul");
    for (const s of data.suggestions) {
      ul.appendChild(el("li", [s.title, s.department, s.responsible].filter(Boolean).join(" — ")));
    }
    sug.appendChild(ul);
  }
}

// The drawer sits outside both views, so it shows over either; focus moves into it and back to the opener.
let passageOpener = null;
function showPassage() {
  if ($("passage").hidden) passageOpener = document.activeElement;
  $("passage").hidden = false;
  $("passage-close").focus();
}

function closePassage(restoreFocus = true) {
  if ($("passage").hidden) return;
  $("passage").hidden = true;
  if (restoreFocus && passageOpener && passageOpener.isConnected) passageOpener.focus();
  passageOpener = null;
}

async function openCitation(n) {
  const item = evidenceByN.get(n);
  if (!item) return;
  showPassage();
  $("passage-title").textContent = `[${n}] ${item.title || item.id}`;
  $("passage-meta").textContent = [version(item), item.path, item.section].filter(Boolean).join(" — ");
  $("passage-image").hidden = true;
  $("passage-grade").replaceChildren();
  const badge = gradeBadge(item);
  if (badge) $("passage-grade").append(badge, document.createTextNode(" " + badge.title));
  if (item.kind === "page" && item.document_id && item.pages && item.pages.length) {
    $("passage-text").textContent = item.text;
    await showPageImage(item.document_id, item.pages[0]);
  } else if (item.kind === "chunk" && item.document_id) {
    $("passage-text").textContent = "…";
    try {
      const s = await api(`/v1/documents/${encodeURIComponent(item.document_id)}/sections/${encodeURIComponent(item.id)}`);
      $("passage-text").replaceChildren(renderMarkdown(s.text));
    } catch (err) { $("passage-text").textContent = String(err.message); }
  } else if (item.kind === "document") {
    await openDocument(item.document_id);
  } else {
    $("passage-text").replaceChildren(renderMarkdown(item.text));
  }
}

// A cited page's image: fetched with the caller's key (the endpoint checks it), shown from a blob URL.
async function showPageImage(documentId, page) {
  const img = $("passage-image");
  try {
    const h = headers();
    delete h["content-type"];
    const response = await fetch(`/v1/documents/${encodeURIComponent(documentId)}/pages/${page}/image`, { headers: h });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(await response.blob());
    img.hidden = false;
  } catch (err) { img.hidden = true; }
}

async function openDocument(documentId) {
  showPassage();
  $("passage-title").textContent = "…";
  $("passage-meta").textContent = "";
  $("passage-grade").replaceChildren();
  $("passage-text").textContent = "…";
  try {
    const doc = await api(`/v1/documents/${encodeURIComponent(documentId)}/sections`);
    const head = await api(`/v1/documents/${encodeURIComponent(documentId)}`);
    $("passage-title").textContent = head.title;
    $("passage-meta").textContent = [version(head), head.path].filter(Boolean).join(" — ");
    $("passage-text").replaceChildren(...doc.sections.map((s) => renderMarkdown(s.text)));
  } catch (err) { $("passage-text").textContent = String(err.message); }
}

$("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("ask-status").textContent = "consultando…";
  $("ask-status").className = "";
  try {
    const body = { question: $("question").value, mode: $("mode").value };
    if (conversation.id) body.conversation_id = conversation.id;
    const data = await api("/v1/query", { method: "POST", body: JSON.stringify(body) });
    if (conversation.last) {  // the previous turn joins the thread above
      const li = el("li", null, "turn");
      li.append(el("p", conversation.last.question, "turn-question"), el("p", conversation.last.answer, "meta"));
      $("thread").appendChild(li);
    }
    conversation = { id: data.conversation_id, last: { question: body.question, answer: data.answer } };
    renderResult(data);
    $("question").value = "";
    $("ask-status").textContent = "";
  } catch (err) {
    $("ask-status").textContent = err.message;
    $("ask-status").className = "error";
  }
});

let catalogSeq = 0;  // only the latest listing is shown (an earlier, slower answer is dropped)
let searchTimer = null;

async function listCatalog() {
  clearTimeout(searchTimer);
  const seq = ++catalogSeq;
  const params = new URLSearchParams();
  const q = $("cat-q").value.trim();
  if (q) params.set("q", q);
  if ($("cat-due").value !== "") params.set("due_within_days", $("cat-due").value);
  if ($("cat-outdated").checked) params.set("outdated", "true");
  if ($("cat-department").value.trim()) params.append("department", $("cat-department").value.trim());
  if ($("cat-type").value.trim()) params.append("doc_type", $("cat-type").value.trim());
  if ($("cat-asof").value) params.set("as_of", $("cat-asof").value);
  try {
    const page = await api(`/v1/catalog?${params}`);
    if (seq !== catalogSeq) return;
    $("catalog-total").textContent = `${page.total} documento(s)${q ? ` para “${q}”` : ""} em ${page.as_of}`;
    const body = $("catalog-table").querySelector("tbody");
    body.replaceChildren();
    for (const item of page.items) {
      const tr = el("tr", null, item.review_status);
      const link = el("a", item.title);
      link.href = "#";
      link.addEventListener("click", (e) => { e.preventDefault(); openDocument(item.document_id); });
      const first = el("td");
      first.appendChild(link);
      tr.appendChild(first);
      for (const v of [item.doc_type, item.department, item.responsible, item.approver, item.next_review_date,
                       REVIEW[item.review_status] || item.review_status]) tr.appendChild(el("td", v || "-"));
      body.appendChild(tr);
    }
  } catch (err) { if (seq === catalogSeq) $("catalog-total").textContent = err.message; }
}

$("catalog-form").addEventListener("submit", (event) => { event.preventDefault(); listCatalog(); });
$("cat-q").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(listCatalog, SEARCH_DELAY_MS);
});

for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
    $("view-ask").hidden = tab.dataset.view !== "ask";
    $("view-catalog").hidden = tab.dataset.view !== "catalog";
    closePassage(false);
  });
}
$("passage-close").addEventListener("click", () => closePassage());
document.addEventListener("keydown", (event) => { if (event.key === "Escape") closePassage(); });
function newConversation() {
  conversation = { id: null, last: null };
  $("thread").replaceChildren();
  $("result").hidden = true;
}
$("new-conversation").addEventListener("click", newConversation);
$("api-key").addEventListener("change", newConversation);  // a conversation belongs to one key
$("api-key").value = sessionStorage.getItem("lakerag-key") || "";
$("api-key").addEventListener("change", () => sessionStorage.setItem("lakerag-key", $("api-key").value));
