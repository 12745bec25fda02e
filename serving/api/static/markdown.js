"use strict";
// Document passages as Markdown: headings, lists, tables, paragraphs and **bold**. Every node is built with
// createElement and textContent (never innerHTML), so nothing a document holds can become markup or script.
// The chunk's leading "[Title — Section]" line is the index's context for retrieval and is not shown.
const MD_CONTEXT = /^\[[^\]\n]*\]\s*$/;
const MD_RULE = /^\|?\s*:?-{2,}/;
const MD_ITEM = /^([-*+•]|\d{1,3}[.)])\s+(.*)$/;

function mdInline(parent, text) {
  for (const part of text.split(/(\*\*[^*]+\*\*)/)) {
    const m = /^\*\*([^*]+)\*\*$/.exec(part);
    if (m) {
      const strong = document.createElement("strong");
      strong.textContent = m[1];
      parent.appendChild(strong);
    } else if (part) {
      parent.appendChild(document.createTextNode(part));
    }
  }
  return parent;
}

function mdCells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = String(text || "").split(/\r?\n/);
  if (lines.length && MD_CONTEXT.test(lines[0].trim())) lines.shift();
  let paragraph = [];
  let list = null;
  let table = null;
  const flush = () => {
    if (paragraph.length) out.appendChild(mdInline(document.createElement("p"), paragraph.join(" ")));
    paragraph = [];
    list = null;
    table = null;
  };
  lines.forEach((raw, i) => {
    const line = raw.trim();
    let m;
    if (!line) { flush(); return; }
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      flush();
      out.appendChild(mdInline(document.createElement(`h${Math.min(m[1].length + 2, 6)}`), m[2]));
    } else if (line.startsWith("|")) {
      if (MD_RULE.test(line)) return;
      if (!table) {
        flush();
        table = document.createElement("table");
        out.appendChild(table);
        const next = (lines[i + 1] || "").trim();
        if (MD_RULE.test(next)) {
          const head = table.appendChild(document.createElement("thead")).appendChild(document.createElement("tr"));
          for (const cell of mdCells(line)) head.appendChild(mdInline(document.createElement("th"), cell));
          table.appendChild(document.createElement("tbody"));
          return;
        }
        table.appendChild(document.createElement("tbody"));
      }
      const row = table.tBodies[0].appendChild(document.createElement("tr"));
      for (const cell of mdCells(line)) row.appendChild(mdInline(document.createElement("td"), cell));
    } else if ((m = MD_ITEM.exec(line))) {
      const tag = /\d/.test(m[1]) ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) {
        flush();
        list = out.appendChild(document.createElement(tag));
      }
      list.appendChild(mdInline(document.createElement("li"), m[2]));
    } else {
      if (list || table) flush();
      paragraph.push(line);
    }
  });
  flush();
  return out;
}
