/**
 * The pages' one style sheet, one script and icon, served from the service
 * itself (`/sourcegraph/-/static/…`) so the Content-Security-Policy can
 * allow `'self'` only. The script is a convenience: copy buttons (a
 * configuration, a file's path, the citation of a selected range), and
 * highlighting a `#L2-L4` range (without it, `#L2` still scrolls to and
 * marks its line through `:target`).
 *
 * @module
 */

/** The style sheet. */
export const STYLE_SHEET = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #fff; --line: #d1d9e0;
  --accent: #0969da; --mark: #fff8c5; --hit: #ffdf5d; --code-bg: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117;
  --line: #3d444d; --accent: #4493f8; --mark: #3b2e00; --hit: #6e5a00; --code-bg: #151b23; } }
/* Syntax colours (highlight.js scopes), light then dark, after GitHub's. */
:root { --hl-keyword: #cf222e; --hl-string: #0a3069; --hl-comment: #59636e; --hl-title: #8250df;
  --hl-number: #0550ae; --hl-type: #953800; --hl-meta: #1f6feb; --hl-tag: #116329;
  --hl-added: #116329; --hl-added-bg: #dafbe1; --hl-removed: #82071e; --hl-removed-bg: #ffebe9; }
@media (prefers-color-scheme: dark) { :root { --hl-keyword: #ff7b72; --hl-string: #a5d6ff;
  --hl-comment: #9198a1; --hl-title: #d2a8ff; --hl-number: #79c0ff; --hl-type: #ffa657;
  --hl-meta: #79c0ff; --hl-tag: #7ee787; --hl-added: #aff5b4; --hl-added-bg: #033a16;
  --hl-removed: #ffdcd7; --hl-removed-bg: #67060c; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
header.site { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.5rem;
  border-bottom: 1px solid var(--line); }
header.site .brand { font-weight: 600; color: var(--fg); }
header.site nav { display: flex; gap: 1rem; margin-left: auto; align-items: center; }
header.site form { margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
/* Long names wrap where they must; words are never cut while a line can hold them. */
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; }
table { border-collapse: collapse; width: 100%; }
/* On a phone a wide table scrolls inside its box, never the page. */
@media (max-width: 640px) { table { display: block; overflow-x: auto; } }
/* The repositories table on a phone: one block per repository, each fact on its own labelled line. */
@media (max-width: 640px) {
  table.repositories, table.repositories tbody, table.repositories tr, table.repositories td
    { display: block; width: 100%; overflow: visible; }
  table.repositories thead { display: none; }
  table.repositories tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.repositories td { border: 0; padding: .1rem 0; overflow-wrap: anywhere; }
  table.repositories td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
}
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .45rem; border: 1px solid var(--line); border-radius: 1rem;
  font-size: .8rem; color: var(--muted); }
.notice { padding: .7rem 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--code-bg);
  margin: 1rem 0; }
.error { border-color: #cf222e; }
nav.tabs { display: flex; flex-wrap: wrap; gap: .2rem; border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
nav.tabs a { padding: .5rem .9rem; color: var(--fg); border-bottom: 2px solid transparent; }
nav.tabs a[aria-current="page"] { border-bottom-color: var(--accent); font-weight: 600; }
form.inline { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin: .5rem 0 1rem; }
input[type=text], input[type=search], input[type=password], select { padding: .35rem .5rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); font: inherit;
  max-width: 100%; box-sizing: border-box; }
input[type=search], input[type=text] { min-width: 18rem; }
button { padding: .35rem .8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--code-bg);
  color: var(--fg); font: inherit; cursor: pointer; }
code, pre, .code { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: var(--code-bg); padding: .8rem 1rem; border-radius: 6px; overflow-x: auto; }
/* Snippets to copy wrap inside their box: a long command is read whole, not scrolled to. */
pre[data-copy] { white-space: pre-wrap; overflow-wrap: anywhere; }
table.code { display: block; max-width: 100%; overflow-x: auto; border: 1px solid var(--line);
  border-radius: 6px; }
table.code td { border: 0; padding: 0 .8rem; white-space: pre; }
table.code td.num { text-align: right; user-select: none; width: 1%; padding-right: 1rem; }
table.code td.num a { color: var(--muted); }
table.code tr:target, table.code tr.selected { background: var(--mark); }
table.code mark { background: var(--hit); color: inherit; border-radius: 2px; }
table.code.wrap td { white-space: pre-wrap; overflow-wrap: anywhere; }
table.code td.blame { white-space: nowrap; width: 1%; font: 12px/1.45 system-ui, sans-serif;
  color: var(--muted); border-right: 1px solid var(--line); }
table.code td.blame div { width: 22rem; max-width: 45vw; overflow: hidden; text-overflow: ellipsis; }
table.code td.blame .blame-subject { color: var(--fg); }
table.code td.blame .blame-author { font-weight: 600; }
table.code tr.run td { border-top: 1px solid var(--line); }
table.code tr.context td { opacity: .6; }
table.code tr.gap td { background: var(--line); color: var(--muted); line-height: 1; padding-top: .1rem; padding-bottom: .1rem; }
table.code.diff { margin-bottom: 1rem; }
table.code.diff tr.add { background: var(--hl-added-bg); }
table.code.diff tr.del { background: var(--hl-removed-bg); }
table.code.diff tr.hunk td, table.code.diff tr.note td { color: var(--muted); background: var(--code-bg); }
table.code.diff .sign { user-select: none; display: inline-block; width: 1ch; margin-right: .5ch; }
.commit-subject { overflow-wrap: anywhere; }
.commit-message { white-space: pre-wrap; overflow-wrap: anywhere; }
code.sha { overflow-wrap: anywhere; }
.diff-file { margin-top: 1.2rem; }
.diff-header { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; padding: .4rem 0;
  overflow-wrap: anywhere; }
.diff-header code { overflow-wrap: anywhere; }
.diff-stat .added { color: #1a7f37; } .diff-stat .removed { color: #cf222e; }
.file-links { display: inline-flex; gap: .6rem; margin-left: auto; }
table.entries td.last-subject a { display: block; max-width: 40vw; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; color: var(--muted); }
table.entries td.date, table.commits td.date { white-space: nowrap; color: var(--muted); }
table.entries td.date { text-align: right; }
table.commits td.subject { overflow-wrap: anywhere; min-width: 16rem; }
table.commits td.author span { display: inline-block; max-width: 12rem; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; vertical-align: bottom; }
dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.history-of code { overflow-wrap: anywhere; }
table.commits td.subject .muted, table.commits td.subject .badge { margin-left: .5rem; }
ul.changed-files { padding-left: 1.2rem; overflow-wrap: anywhere; }
.hljs-keyword, .hljs-selector-tag, .hljs-doctag, .hljs-template-tag, .hljs-variable.language_
  { color: var(--hl-keyword); }
.hljs-string, .hljs-regexp, .hljs-meta .hljs-string, .hljs-char.escape_, .hljs-quote
  { color: var(--hl-string); }
.hljs-comment, .hljs-code, .hljs-formula { color: var(--hl-comment); font-style: italic; }
.hljs-title, .hljs-title.class_, .hljs-title.function_, .hljs-section { color: var(--hl-title); }
.hljs-number, .hljs-literal, .hljs-attr, .hljs-attribute, .hljs-variable, .hljs-property,
  .hljs-selector-attr, .hljs-selector-class, .hljs-selector-id, .hljs-template-variable
  { color: var(--hl-number); }
.hljs-type, .hljs-built_in, .hljs-params, .hljs-symbol, .hljs-bullet, .hljs-link
  { color: var(--hl-type); }
.hljs-meta, .hljs-meta .hljs-keyword, .hljs-subst { color: var(--hl-meta); }
.hljs-tag, .hljs-name, .hljs-selector-pseudo { color: var(--hl-tag); }
.hljs-addition { color: var(--hl-added); background: var(--hl-added-bg); }
.hljs-deletion { color: var(--hl-removed); background: var(--hl-removed-bg); }
.hljs-emphasis { font-style: italic; } .hljs-strong { font-weight: 600; }
.file-path { word-break: break-all; margin: .3rem 0; }
.file-header { position: sticky; top: 0; z-index: 1; background: var(--bg); padding: .2rem 0;
  border-bottom: 1px solid var(--line); margin-bottom: .6rem; }
.file-actions { display: flex; flex-wrap: wrap; gap: .4rem .9rem; align-items: center; margin: .2rem 0; }
.file-actions button { font-size: .85rem; padding: .15rem .6rem; }
.file-actions button[aria-pressed="true"] { border-color: var(--accent); }
.view-toggle { display: inline-flex; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.view-toggle a { padding: .1rem .6rem; color: var(--fg); }
.view-toggle a[aria-current="page"] { background: var(--code-bg); font-weight: 600; }
/* A name in the code links to its definition; it reads as code until pointed at. */
table.code td:not(.num) a { color: inherit; text-decoration: none; }
table.code td:not(.num) a:hover, table.code td:not(.num) a:focus { text-decoration: underline; }
/* The outline stands beside the code where there is room; on narrow screens it is left out. */
.outline { display: none; }
@media (min-width: 900px) {
  .with-outline { display: grid; grid-template-columns: minmax(0, 1fr) 15rem; gap: 1rem; align-items: start; }
  .outline { display: block; position: sticky; top: 4.5rem; max-height: calc(100vh - 5rem); overflow-y: auto;
    font-size: .85rem; border: 1px solid var(--line); border-radius: 6px; padding: .3rem .7rem; }
  .outline h2 { font-size: .95rem; margin: .3rem 0; }
  .outline ul { list-style: none; margin: 0; padding: 0; }
  .outline li { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .outline li.member { padding-left: 1rem; }
}
.precision { font-weight: 600; }
.reference-file h2 { font-size: 1rem; margin: 1.2rem 0 .3rem; overflow-wrap: anywhere; }
table.code.references td.at { text-align: right; width: 1%; padding-right: 1rem; }
table.code.references td.at a { color: var(--muted); }
table.code.references td.roles div { min-width: 5rem; }
table.code.references td.roles { white-space: nowrap; width: 1%; font: 12px/1.45 system-ui, sans-serif; }
.role { display: inline-block; padding: 0 .35rem; margin-right: .2rem; border: 1px solid var(--line);
  border-radius: 1rem; color: var(--muted); }
.role-definition { border-color: var(--accent); color: var(--accent); }
ul.places { padding-left: 1.2rem; } ul.places a { overflow-wrap: anywhere; }
.readme { margin-top: 1.5rem; border: 1px solid var(--line); border-radius: 6px; }
.readme-title { margin: 0; padding: .5rem 1rem; border-bottom: 1px solid var(--line); font-weight: 600; }
.readme .markdown-body, .readme-text { padding: 0 1.5rem 1rem; margin: 0; }
.readme-text { background: none; white-space: pre-wrap; overflow-wrap: anywhere; padding-top: 1rem; }
.markdown-body { overflow-wrap: break-word; line-height: 1.6; }
.markdown-body h1, .markdown-body h2 { border-bottom: 1px solid var(--line); padding-bottom: .3rem; }
.markdown-body h1 { font-size: 1.6rem; } .markdown-body h2 { font-size: 1.3rem; }
.markdown-body img { max-width: 100%; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow-x: auto; }
.markdown-body th, .markdown-body td { border: 1px solid var(--line); }
.markdown-body blockquote { margin: 0; padding: 0 1rem; color: var(--muted); border-left: .25rem solid var(--line); }
.markdown-body code { background: var(--code-bg); padding: .1rem .3rem; border-radius: 4px; }
.markdown-body pre code { background: none; padding: 0; }
ul.nearest { overflow-wrap: anywhere; }
.match-file { margin: 1.2rem 0 .3rem; font-weight: 600; overflow-wrap: anywhere; }
.copy { margin-left: .5rem; font-size: .85rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dt { color: var(--muted); }
`;

/** The site's icon. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">` +
  `<circle cx="4" cy="4" r="2.5" fill="#0969da"/><circle cx="12" cy="8" r="2.5" fill="#0969da"/>` +
  `<circle cx="4" cy="12" r="2.5" fill="#0969da"/>` +
  `<path d="M4 4L12 8L4 12" stroke="#0969da" fill="none"/></svg>`;

/** The script (no inline script is ever served). */
export const SCRIPT = `
"use strict";
async function copied(button, text) {
  const label = button.textContent;
  await navigator.clipboard.writeText(text);
  button.textContent = "Copied";
  setTimeout(() => (button.textContent = label), 1500);
}
function selectRange() {
  const match = /^#L(\\d+)(?:-L(\\d+))?$/.exec(location.hash);
  document.querySelectorAll("tr.selected").forEach((row) => row.classList.remove("selected"));
  const citation = document.querySelector("[data-citation]");
  if (citation) citation.hidden = !match;
  if (!match) return;
  const start = Number(match[1]);
  const end = Math.max(start, Number(match[2] || match[1]));
  for (let line = start; line <= end && line - start < 10000; line++) {
    const row = document.getElementById("L" + line);
    if (row) row.classList.add("selected");
  }
  const first = document.getElementById("L" + start);
  if (first) first.scrollIntoView({ block: "center" });
}
window.addEventListener("hashchange", selectRange);
// A line of a rendered document is in its source view: true when going there.
function toSource() {
  const rendered = document.querySelector(".view-toggle") && document.querySelector("article.markdown-body");
  if (!rendered || !/^#L\\d/.test(location.hash)) return false;
  location.replace(location.pathname + "?plain=1" + location.hash);
  return true;
}
window.addEventListener("hashchange", toSource);
document.addEventListener("DOMContentLoaded", () => {
  if (toSource()) return;
  selectRange();
  const wrap = document.querySelector("[data-wrap]");
  const code = document.querySelector("table.code");
  if (wrap && code) {
    wrap.hidden = false;
    wrap.addEventListener("click", () => {
      const on = code.classList.toggle("wrap");
      wrap.setAttribute("aria-pressed", String(on));
    });
  }
  document.querySelectorAll("td.num a").forEach((link) => link.addEventListener("click", (event) => {
    const current = /^#L(\\d+)/.exec(location.hash);
    if (event.shiftKey && current) {
      event.preventDefault();
      const a = Number(current[1]);
      const b = Number(link.getAttribute("href").slice(2));
      location.hash = "#L" + Math.min(a, b) + "-L" + Math.max(a, b);
    }
  }));
  document.querySelectorAll("[data-copy-text]").forEach((button) => {
    button.hidden = false;
    button.addEventListener("click", () => copied(button, button.dataset.copyText));
  });
  const citation = document.querySelector("[data-citation]");
  if (citation) {
    citation.addEventListener("click", () => {
      // "repo@sha path#L2-L4", then the page's own URL for the same lines.
      const range = location.hash.slice(1);
      const url = location.origin + location.pathname + location.search + location.hash;
      copied(citation, citation.dataset.citation + "#" + range + "\\n" + url);
    });
  }
  document.querySelectorAll("[data-copy]").forEach((source) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.addEventListener("click", () => copied(button, source.textContent));
    source.insertAdjacentElement("afterend", button);
  });
});
`;
