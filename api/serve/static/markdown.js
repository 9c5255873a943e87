// Markdown for Quorum's web page, safely: the renderer builds elements itself and fills them with
// textContent; it never parses HTML. Paragraphs, line breaks, fenced and inline code, bold, italic
// and links (http and https only); everything else stays text. Loaded before app.js.
"use strict";

const INLINE = /`([^`\n]+)`|\*\*([^*\n]+)\*\*|\*([^*\n]+)\*|_([^_\n]+)_|\[([^\]\n]+)\]\(([^)\s]+)\)/g;

function safeUrl(raw) {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch (e) { return null; }
}

function inline(parent, text) {
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    parent.append(document.createTextNode(text.slice(at, m.index)));
    at = m.index + m[0].length;
    let node;
    if (m[1] !== undefined) { node = document.createElement("code"); node.textContent = m[1]; }
    else if (m[2] !== undefined) { node = document.createElement("strong"); node.textContent = m[2]; }
    else if (m[3] !== undefined || m[4] !== undefined) { node = document.createElement("em"); node.textContent = m[3] ?? m[4]; }
    else {
      const href = safeUrl(m[6]);
      if (href === null) { node = document.createTextNode(m[0]); }
      else {
        node = document.createElement("a");
        node.href = href;
        node.rel = "noopener noreferrer";
        node.target = "_blank";
        node.textContent = m[5];
      }
    }
    parent.append(node);
  }
  parent.append(document.createTextNode(text.slice(at)));
}

function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const parts = text.split(/^```[^\n]*\n?/m);  // even parts are prose, odd parts code (an open fence too)
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = part;
      pre.append(code);
      out.append(pre);
      return;
    }
    for (const para of part.split(/\n\s*\n/)) {
      if (!para.trim()) continue;
      const p = document.createElement("p");
      para.split("\n").forEach((line, n) => {
        if (n) p.append(document.createElement("br"));
        inline(p, line);
      });
      out.append(p);
    }
  });
  return out;
}
