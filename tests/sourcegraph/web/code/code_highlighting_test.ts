import {
  HIGHLIGHT_LANGUAGES,
  highlightLanguageOf,
} from "../../../../sourcegraph/web/code/code_languages.ts";
import { isMarkdownPath } from "../../../../sourcegraph/render/page_urls.ts";
import { grammarLanguageOf, patternLanguageOf } from "../../../../sourcegraph/symbols/languages.ts";
import { GRAMMARS, highlightTexts } from "../../../../sourcegraph/web/code/highlight_grammars.ts";
import {
  highlightedLines,
  markedSegments,
} from "../../../../sourcegraph/web/code/highlighted_lines.ts";
import {
  highlightFileLines,
  highlightResultLines,
} from "../../../../sourcegraph/web/code/code_highlighting.ts";
import { Highlighter } from "../../../../sourcegraph/web/code/highlighter.ts";
import { assert, assertEquals, assertThrows } from "../../../support/assert.ts";

const HANGING = new URL("../../../fixtures/highlight/hanging_worker.ts", import.meta.url);

Deno.test("highlighting: paths name grammars by extension, name and #! line; every one is loaded", () => {
  const cases: [string, string, string | null][] = [
    ["src/a.c", "", "c"],
    ["include/x.hpp", "", "cpp"],
    ["web/App.tsx", "", "typescript"],
    ["tool.PY", "", "python"],
    ["Makefile", "", "makefile"],
    ["docker/Dockerfile", "", "dockerfile"],
    ["CMakeLists.txt", "", "cmake"],
    ["bin/run", "#!/usr/bin/env bash", "bash"],
    ["bin/tool", "#!/usr/bin/python3", "python"],
    ["bin/tool", "plain words", null],
    ["notes.txt", "#!/bin/sh", null],
    ["archive.tar.gz", "", null],
    [".hidden", "", null],
    ["x.constructor", "", null],
    ["x.__proto__", "", null],
  ];
  for (const [path, first, language] of cases) {
    assertEquals(highlightLanguageOf(path, first), language, path);
  }
  // The symbol index's tables, which the highlighting reads first, take only their own keys.
  for (const path of ["a.constructor", "a.toString", "__proto__", "a.hasOwnProperty"]) {
    assertEquals([grammarLanguageOf(path), patternLanguageOf(path)], [null, null], path);
  }
  assert(HIGHLIGHT_LANGUAGES.length >= 30, `${HIGHLIGHT_LANGUAGES.length} languages`);
  for (const language of HIGHLIGHT_LANGUAGES) assert(language in GRAMMARS, language);
  assert(isMarkdownPath("docs/README.md") && isMarkdownPath("a.MARKDOWN"));
  assert(!isMarkdownPath("md") && !isMarkdownPath("a.mdx"));
});

Deno.test("highlighting: spans read back into lines; a span across lines opens again on each", () => {
  const [html] = highlightTexts(["int x; /* one\ntwo */ char *s = \"<a href='&'>\";"], "c");
  const lines = highlightedLines(html);
  assertEquals(lines.length, 2);
  assertEquals(lines[0].map((s) => s.text).join(""), "int x; /* one");
  assertEquals(lines[1].map((s) => s.text).join(""), "two */ char *s = \"<a href='&'>\";");
  assertEquals(lines[0].at(-1), { text: "/* one", scope: "hljs-comment" });
  assertEquals(lines[1][0], { text: "two */", scope: "hljs-comment" });
  assertEquals(lines[1].find((s) => s.text.startsWith('"')), {
    text: "\"<a href='&'>\"",
    scope: "hljs-string",
  });
  assertEquals(lines[0][0], { text: "int", scope: "hljs-type" });
});

Deno.test("highlighting: anything but highlight.js's own markup is refused", () => {
  for (
    const html of [
      '<span class="a">x',
      "x</span>",
      '<img src=x onerror="alert(1)">',
      '<span class="a" onclick="x">y</span>',
      '<span class="a&quot;">y</span>',
      "a &nbsp; b",
      "a & b",
      "<",
    ]
  ) {
    assertThrows(() => highlightedLines(html), Error);
  }
  assertEquals(highlightedLines(""), [[]]);
  assertEquals(highlightedLines("a\n\nb"), [[{ text: "a", scope: null }], [], [
    { text: "b", scope: null },
  ]]);
});

Deno.test("highlighting: hostile text is spelled back exactly in every grammar", () => {
  const hostile = [
    `</span><script>alert(1)</script> &amp; &lt;b&gt; "'\`<!-- -->`,
    `<img src=x onerror=alert(1)> \u2028 \u0000 ${"(".repeat(5000)}`,
    `/* ${"\\".repeat(1000)} */ "unterminated`,
  ];
  for (const language of HIGHLIGHT_LANGUAGES) {
    const html = highlightTexts(hostile, language);
    html.forEach((one, i) => {
      const lines = highlightedLines(one);
      assertEquals(
        lines.map((line) => line.map((s) => s.text).join("")).join("\n"),
        hostile[i],
        language,
      );
    });
  }
});

Deno.test("highlighting: match ranges cut segments; one range, one mark; empty ranges mark nothing", () => {
  const line = [
    { text: "strbuf_addf", scope: "hljs-title" },
    { text: "(", scope: null },
    { text: "&buf", scope: "hljs-params" },
  ];
  const pieces = markedSegments(line, [[7, 13], [13, 13], [14, 16]]);
  assertEquals(pieces, [
    { text: "strbuf_", scope: "hljs-title", range: null },
    { text: "addf", scope: "hljs-title", range: 0 },
    { text: "(", scope: null, range: 0 },
    { text: "&", scope: "hljs-params", range: 0 },
    { text: "b", scope: "hljs-params", range: null },
    { text: "uf", scope: "hljs-params", range: 2 },
  ]);
  assertEquals(markedSegments([{ text: "aaa", scope: null }], [[0, 1], [1, 2], [2, 3]]), [
    { text: "a", scope: null, range: 0 },
    { text: "a", scope: null, range: 1 },
    { text: "a", scope: null, range: 2 },
  ]);
});

Deno.test({
  name: "highlighter: the worker highlights pages and results; too large or unknown is plain",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // A job's time counts from the worker's readiness, so a cold start (a type check here) is not slow.
    const highlighter = new Highlighter({ maxChars: 1000 });
    try {
      const lines = ["#include <stdio.h>", "int main(void) {", "  return 0; /* done", "*/ }"];
      const page = await highlightFileLines(highlighter, { path: "a.c", lines });
      assert(page !== null);
      assertEquals(page.length, 4);
      assertEquals(page[2].at(-1), { text: "/* done", scope: "hljs-comment" });
      assertEquals(page[3][0], { text: "*/", scope: "hljs-comment" });
      const results = await highlightResultLines(highlighter, [
        { path: "a.py", lines: ["def f():", "  '''open"] },
        { path: "notes.txt", lines: ["def f():"] },
        { path: "b.py", lines: ["return 1"] },
      ]);
      assertEquals(results[0]?.[0][0], { text: "def", scope: "hljs-keyword" });
      // Each result line stands alone: an open string does not run on.
      assertEquals(results[2]?.[0][0], { text: "return", scope: "hljs-keyword" });
      assertEquals(results[1], null);
      assertEquals(
        await highlightFileLines(highlighter, { path: "a.c", lines: ["x".repeat(2000)] }),
        null,
      );
      assertEquals(await highlightFileLines(undefined, { path: "a.c", lines }), null);
    } finally {
      highlighter.close();
    }
  },
});

Deno.test({
  name:
    "highlighter: a job past its time ends the worker; the next starts a new one; the queue is bounded",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // "hang" waits until the timer (from the worker's readiness) ends it; the others answer at once.
    const highlighter = new Highlighter({ workerUrl: HANGING, timeoutMs: 1_000, maxPending: 2 });
    try {
      assertEquals(await highlighter.highlight(["a"], "c"), ["a"]);
      const hung = highlighter.highlight(["hang"], "c");
      const behind = highlighter.highlight(["b"], "c");
      // Two waiting: a third is turned away at once, shown plain.
      assertEquals(await highlighter.highlight(["c"], "c"), null);
      assertEquals(await hung, null);
      assertEquals(await behind, null);
      assertEquals(highlighter.restarts, 1);
      assertEquals(await highlighter.highlight(["d"], "c"), ["d"]);
    } finally {
      highlighter.close();
    }
  },
});

Deno.test({
  name: "highlighter: a worker that cannot load is logged once and highlighting stays off",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const lines: string[] = [];
    const highlighter = new Highlighter({
      workerUrl: new URL("../../../fixtures/highlight/no_such_worker.ts", import.meta.url),
      log: (line) => lines.push(line),
    });
    try {
      assertEquals(await highlighter.highlight(["a"], "c"), null);
      assertEquals(await highlighter.highlight(["b"], "c"), null);
      assertEquals(lines.length, 1);
      assert(lines[0].startsWith("highlighting is off: its worker failed"), lines[0]);
    } finally {
      highlighter.close();
    }
  },
});

Deno.test({
  name: "highlighter: a job's time counts from the worker's readiness; a worker never ready is off",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const fixture = (name: string) =>
      new URL(`../../../fixtures/highlight/${name}`, import.meta.url);
    // Ready after 1 s, jobs given 0.6 s: answered, because the 0.6 s start once it is ready.
    const slow = new Highlighter({ workerUrl: fixture("slow_start_worker.ts"), timeoutMs: 600 });
    try {
      assertEquals(await slow.highlight(["a"], "c"), ["a"]);
      assertEquals(slow.restarts, 0);
    } finally {
      slow.close();
    }
    const lines: string[] = [];
    const never = new Highlighter({
      workerUrl: fixture("never_ready_worker.ts"),
      startMs: 300,
      log: (line) => lines.push(line),
    });
    try {
      assertEquals(await never.highlight(["a"], "c"), null);
      assertEquals(await never.highlight(["b"], "c"), null);
      assertEquals(lines.length, 1);
      assert(lines[0].includes("not ready within 0.3 s"), lines[0]);
    } finally {
      never.close();
    }
  },
});
