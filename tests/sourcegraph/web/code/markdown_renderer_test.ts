/**
 * The pages' Markdown renderer: off the main thread in a worker bounded in
 * time, heap and queue, answers cached by blob. Bounds are injected tiny,
 * so every assertion is about what happened (counts, reasons), never how
 * long it took.
 */

import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { pathologicalMarkdown } from "../../../support/hostile_markdown.ts";
import {
  type MarkdownDocument,
  MarkdownRenderer,
} from "../../../../sourcegraph/web/code/markdown_renderer.ts";

const SCRIPTED = new URL("../../../fixtures/markdown/scripted_worker.ts", import.meta.url);
const COMMIT = "c".repeat(40);

function documentOf(source: string, at: Partial<MarkdownDocument> = {}): MarkdownDocument {
  return {
    blob: `blob-${source.length}-${source.slice(0, 16)}`,
    firstLine: 1,
    source,
    repo: "org/docs",
    commit: COMMIT,
    path: "docs/README.md",
    ...at,
  };
}

// Worker threads and their timers outlive a test's own ops by design (closed in `finally`).
const unsanitized = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name:
    "markdown renderer: pathological documents past the time bound are shown as source, never rendered twice",
  ...unsanitized,
  fn: async () => {
    const markdown = new MarkdownRenderer({ timeoutMs: 5 });
    try {
      const documents = pathologicalMarkdown();
      for (const [name, source] of Object.entries(documents)) {
        const at = documentOf(source, { blob: name });
        const first = await markdown.render(at);
        assertEquals(first, { html: null, refused: "TOO_SLOW" }, name);
        // The same blob at another commit or path: the refusal is remembered by blob.
        const again = await markdown.render({ ...at, commit: "d".repeat(40), path: "x.md" });
        assertEquals(again, first, name);
      }
      const stats = markdown.stats();
      assertEquals(stats.renders, 3);
      assertEquals(stats.cacheHits, 3);
      assertEquals(stats.refused.TOO_SLOW, 3);
      assertEquals(
        markdown.describe("TOO_SLOW"),
        "took longer than 0.005 s to render: shown as its source",
      );
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name:
    "markdown renderer: a document renders in the worker once; its links are pinned; the same blob is answered from the cache",
  ...unsanitized,
  fn: async () => {
    const markdown = new MarkdownRenderer();
    try {
      const at = documentOf("# Guide\n\nSee [setup](setup.md) and [top](../).\n");
      const [first, concurrent] = await Promise.all([markdown.render(at), markdown.render(at)]);
      assertEquals(markdown.stats().renders, 1, "two requests at once share one render");
      assert(first.html !== null);
      assertIncludes(first.html, `href="/sourcegraph/org/docs/-/blob/${COMMIT}/docs/setup.md"`);
      assertIncludes(first.html, `href="/sourcegraph/org/docs/-/tree/${COMMIT}"`);
      assertEquals(concurrent, first);
      assertEquals(await markdown.render(at), first);
      assertEquals(markdown.stats().renders, 1);
      assertEquals(markdown.stats().cacheHits, 1);
      // The same blob at another commit links elsewhere: that is a render of its own.
      const other = "e".repeat(40);
      const moved = await markdown.render({ ...at, commit: other });
      assertIncludes(moved.html ?? "", `/-/blob/${other}/docs/setup.md`);
      assertEquals(markdown.stats().renders, 2);
      // Over the character limit: refused without a render.
      const long = await new MarkdownRenderer({ maxChars: 10 }).render(at);
      assertEquals(long, { html: null, refused: "TOO_LARGE" });
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name: "markdown renderer: the cache holds at most its bytes, least recently used out first",
  ...unsanitized,
  fn: async () => {
    const markdown = new MarkdownRenderer({ workerUrl: SCRIPTED, cacheBytes: 4 * 1024 });
    try {
      const text = (n: number) => `${n}${"x".repeat(300)}`;
      for (let n = 0; n < 12; n++) await markdown.render(documentOf(text(n), { blob: `b${n}` }));
      assertEquals(markdown.stats().renders, 12);
      assert(
        markdown.stats().cacheBytes <= 4 * 1024,
        `${markdown.stats().cacheBytes} bytes cached`,
      );
      await markdown.render(documentOf(text(11), { blob: "b11" }));
      assertEquals(markdown.stats().renders, 12, "the latest stays cached");
      await markdown.render(documentOf(text(0), { blob: "b0" }));
      assertEquals(markdown.stats().renders, 13, "the oldest was dropped and renders again");
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name:
    "markdown renderer: one document in the worker at a time, a bounded queue; a job waiting behind a slow one is not blamed for it",
  ...unsanitized,
  fn: async () => {
    // The timer starts once the worker is ready; "hang" waits (using no processor) until it
    // fires, the others answer at once: a generous bound, so a busy machine cannot make them
    // look slow.
    const markdown = new MarkdownRenderer({ workerUrl: SCRIPTED, timeoutMs: 2_000, maxPending: 2 });
    try {
      const hung = markdown.render(documentOf("hang", { blob: "hang" }));
      const behind = [
        markdown.render(documentOf("one", { blob: "one" })),
        markdown.render(documentOf("two", { blob: "two" })),
      ];
      // Two waiting: a third is turned away at once, and not remembered.
      assertEquals(await markdown.render(documentOf("three", { blob: "three" })), {
        html: null,
        refused: "BUSY",
      });
      assertEquals(markdown.stats().renders, 1, "only the first is in the worker");
      assertEquals(markdown.stats().inFlight, 1);
      assertEquals(markdown.stats().waiting, 2);
      assertEquals(await hung, { html: null, refused: "TOO_SLOW" });
      assertEquals(await Promise.all(behind), [
        { html: "<p>one</p>", refused: null },
        { html: "<p>two</p>", refused: null },
      ]);
      assertEquals(await markdown.render(documentOf("three", { blob: "three" })), {
        html: "<p>three</p>",
        refused: null,
      });
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name: "markdown renderer: the same slow blob asked for at many commits at once is rendered once",
  ...unsanitized,
  fn: async () => {
    const markdown = new MarkdownRenderer({ workerUrl: SCRIPTED, timeoutMs: 50, maxPending: 8 });
    try {
      const commits = ["1", "2", "3", "4", "5"].map((digit) => digit.repeat(40));
      const answers = await Promise.all(
        commits.map((commit) => markdown.render(documentOf("hang", { blob: "hang", commit }))),
      );
      for (const answer of answers) assertEquals(answer, { html: null, refused: "TOO_SLOW" });
      assertEquals(markdown.stats().renders, 1);
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name:
    "markdown renderer: a document that would grow without end stays within the worker's heap, then ends it",
  ...unsanitized,
  fn: async () => {
    const markdown = new MarkdownRenderer({ workerUrl: SCRIPTED, heapMb: 32, timeoutMs: 3_000 });
    try {
      const before = Deno.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
      const grown = await markdown.render(documentOf("grow", { blob: "grow" }));
      clearInterval(sampler);
      // Out of heap, V8 either reports it (the worker is ended at once) or stalls until the timer.
      assert(grown.refused === "TOO_MUCH_MEMORY" || grown.refused === "TOO_SLOW", grown.refused!);
      // Unbounded, the loop takes a gibibyte in under a second or two; capped, a few tens of MiB.
      const grewMib = (peak - before) / 2 ** 20;
      assert(grewMib < 200, `the process grew by ${grewMib.toFixed(0)} MiB`);
      assertEquals(await markdown.render(documentOf("after", { blob: "after" })), {
        html: "<p>after</p>",
        refused: null,
      });
    } finally {
      markdown.close();
    }
  },
});

Deno.test({
  name: "markdown renderer: a worker that cannot load is logged once and documents show as source",
  ...unsanitized,
  fn: async () => {
    const lines: string[] = [];
    const markdown = new MarkdownRenderer({
      workerUrl: new URL("../../../fixtures/markdown/no_such_worker.ts", import.meta.url),
      log: (line) => lines.push(line),
    });
    try {
      assertEquals((await markdown.render(documentOf("a"))).refused, "UNAVAILABLE");
      assertEquals((await markdown.render(documentOf("b"))).refused, "UNAVAILABLE");
      assertEquals(lines.length, 1);
      assert(lines[0].startsWith("Markdown rendering is off: its worker failed"), lines[0]);
    } finally {
      markdown.close();
    }
  },
});
