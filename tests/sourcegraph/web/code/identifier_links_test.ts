import { codeRows } from "../../../../sourcegraph/web/code/code_rows.ts";
import { highlightTexts } from "../../../../sourcegraph/web/code/highlight_grammars.ts";
import { highlightedLines } from "../../../../sourcegraph/web/code/highlighted_lines.ts";
import {
  IDENTIFIER_LINKS_MAX,
  linkedCell,
} from "../../../../sourcegraph/web/code/identifier_links.ts";
import { escapedText } from "../../../../sourcegraph/web/code/code_rows.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

// The names of a line as the highlighter's segments give them, linked.
function linked(text: string, language: string): [string, string][] {
  const [line] = highlightedLines(highlightTexts([text], language)[0]);
  const html = linkedCell(line, { line: 7, budget: { left: 100 }, escape: escapedText });
  return [...html.matchAll(/<a href="\?line=7&amp;column=(\d+)">([^<]*)<\/a>/g)].map((m) => [
    m[1],
    m[2],
  ]);
}

Deno.test("identifier links: names only, never keywords, strings, comments or numbers", () => {
  assertEquals(
    linked('const total = count(items) + 0x1F; // count again "x"', "typescript"),
    [["7", "total"], ["15", "count"], ["21", "items"]],
  );
  assertEquals(linked('s = "name" + name2  # name3', "python"), [["1", "s"], ["14", "name2"]]);
  // Type names are names too (a built-in one simply has no definition in the repository).
  assertEquals(linked("func (r *Reader) Read(p []byte) int {", "go").map(([, n]) => n), [
    "r",
    "Reader",
    "Read",
    "p",
    "byte",
    "int",
  ]);
  // `this` is the language's own; the member after it is a name.
  assertEquals(linked("this.size = 1;", "typescript"), [["6", "size"]]);
  // Columns are characters: an astral character before the name counts once.
  assertEquals(linked('const s = "😀"; use(s);', "typescript").map(([c]) => c), [
    "7",
    "16",
    "20",
  ]);
});

Deno.test("identifier links: a hostile line stays text; every link is the page's own relative URL", () => {
  const text = 'x = "</a><script>alert(1)</script>"; y<z; q = `${a}"onclick=1`;';
  const [line] = highlightedLines(highlightTexts([text], "javascript")[0]);
  const html = linkedCell(line, { line: 3, budget: { left: 100 }, escape: escapedText });
  assert(!html.includes("<script"), html);
  assert(!/<[a-z]+[^>]*\son\w+=/i.test(html), html);
  for (const href of html.matchAll(/href="([^"]*)"/g)) {
    assert(/^\?line=3&amp;column=\d+$/.test(href[1]), href[1]);
  }
  assertEquals(html.replace(/<[^>]+>/g, ""), escapedText(text));
});

Deno.test(`identifier links: 100,000 names on a page link the first ${IDENTIFIER_LINKS_MAX}; the page stays bounded`, () => {
  // 5,000 lines (a page) of 20 names, as the highlighter leaves them (unscoped text).
  const lines = Array.from(
    { length: 5_000 },
    (_, n) => Array.from({ length: 20 }, (_, i) => `n${n}_${i}`).join(" + "),
  );
  const highlighted = lines.map((text) => [{ text, scope: null }]);
  const plain = String(codeRows(lines, { firstLine: 1, highlighted }));
  const budget = { left: IDENTIFIER_LINKS_MAX };
  const withLinks = String(codeRows(lines, { firstLine: 1, highlighted, links: budget }));
  assertEquals(withLinks.match(/<a href="\?line=/g)?.length, IDENTIFIER_LINKS_MAX);
  assertEquals(budget.left, 0);
  // The links cost about 40 bytes each, and no more past the cap.
  const extra = withLinks.length - plain.length;
  assert(extra <= IDENTIFIER_LINKS_MAX * 45, `${extra} bytes for the links`);
  assert(extra >= IDENTIFIER_LINKS_MAX * 30, `${extra} bytes for the links`);
  // The rows past the cap are exactly their plain rows.
  const last = (html: string) => html.slice(html.lastIndexOf('<tr id="L4000">'));
  assertEquals(last(withLinks), last(plain));
  console.log(`rows: ${plain.length} bytes plain, ${withLinks.length} with links`);
});
