import { join } from "node:path";
import { PathScope } from "../../../../sourcegraph/access/path_scope.ts";
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import { renderSearch } from "../../../../sourcegraph/render/search_text.ts";
import { SEARCH_VIEW_BYTES } from "../../../../sourcegraph/search/code_search.ts";
import { SearchIndexes } from "../../../../sourcegraph/search/search_indexes.ts";
import {
  compileSearch,
  type SearchRequest,
} from "../../../../sourcegraph/search/query/compiled_search.ts";
import { comparePaths } from "../../../../sourcegraph/search/query/path_order.ts";
import { SharedSearches } from "../../../../sourcegraph/search/shared_searches.ts";
import { ChunkScanner } from "../../../../sourcegraph/search/scan/chunk_scanner.ts";

const SILENT_WORKER = new URL("../../../fixtures/scan/silent_worker.ts", import.meta.url);
import type { RepositoryRecord } from "../../../../sourcegraph/store/control_store.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../../support/index_world.ts";

/** Files that exercise every rule searches have about content. */
export const PARITY_FILES: Record<string, string | Uint8Array> = {
  "src/http.ts":
    "import x from 'y';\nexport function parseHTTPRequest(raw) {}\nconst a = parseHttpResponse();\n",
  "src/util/strings.ts": "export const dotted = 'a.b(c';\nPARSEHTTPREQUEST\n",
  "src/crlf.txt": "first line\r\nsecond needle\r\nthird\r\n",
  "vendor/lib.ts": "function parseHTTPRequest() {}\n",
  "docs/notes.md":
    "parseHTTPRequest is documented here.\nUnicode: \u212Aelvin \u017Ftrange 日本語のテキスト 😀 emoji\n",
  "docs/bom.md": "\uFEFFBOMSTART after the mark\n",
  "many.txt": Array.from({ length: 30 }, (_, i) => `needle ${i}`).join("\n") + "\n",
  "capped.txt": Array.from({ length: 10_050 }, (_, i) => `capword ${i}`).join("\n") + "\n",
  "redos.txt": "a".repeat(5000) + "!\n",
  "long_line.txt": "start " + "x".repeat(300_000) + " needle end\n",
  "no_newline.txt": "needle at the end",
  "binary.bin": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
  "latin1.txt": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0x0a]),
  "empty.txt": "",
  // Over 16 KiB: indexed as several chunks; words far apart in one file, and
  // matches in the first, a middle and the last chunk.
  "src/chunked.txt": "farword first\n" +
    Array.from({ length: 4000 }, (_, i) => `chunk line ${i} ${i === 2500 ? "midneedle" : ""}`)
      .join("\n") +
    "\nlast farpart needle\n",
  ...Object.fromEntries(
    Array.from(
      { length: 1010 },
      (_, i) => [`cap/f${String(i).padStart(4, "0")}.txt`, `manyfiles ${i}\n`],
    ),
  ),
};

/** Searches of every kind the parity test compares. */
export const PARITY_QUERIES: SearchRequest[] = [
  { pattern: "parseHTTPRequest" },
  { pattern: "parse\\w+Re(quest|sponse)" },
  { pattern: "needle" },
  { pattern: "needle", maxLinesPerFile: 3 },
  { pattern: "needle", output: "files" },
  { pattern: "PARSEHTTPREQUEST", ignoreCase: true },
  { pattern: "kelvin", ignoreCase: true },
  { pattern: "strange", ignoreCase: true },
  { pattern: "\u212Aelvin" },
  { pattern: "日本語" },
  { pattern: "😀 emoji" },
  { pattern: "a.b(", fixedStrings: true },
  { pattern: "a.b(", fixedStrings: true, ignoreCase: true },
  // Fixed strings: the lines their finders give skip RE2, which must agree
  // (KELVIN SIGN and LONG S fold to ASCII; a non-ASCII one is checked by RE2).
  { pattern: "needle", fixedStrings: true },
  { pattern: "KELVIN", fixedStrings: true, ignoreCase: true },
  { pattern: "strange", fixedStrings: true, ignoreCase: true },
  { pattern: "\u212Aelvin", fixedStrings: true, ignoreCase: true },
  { pattern: "^BOMSTART" },
  { pattern: "second needle\\r$" },
  { pattern: "foo|needle|bar" },
  { pattern: "[a-z]{2}\\d" },
  { pattern: "ab|cd" },
  { pattern: "capword" },
  { pattern: "manyfiles" },
  { pattern: "(a+)+$" },
  { pattern: "needle", glob: ["*.txt"] },
  { pattern: "parseHTTPRequest", glob: ["!vendor/**"] },
  { pattern: "parseHTTPRequest", glob: ["*.ts", "!src/util/**"] },
  { pattern: "parseHTTPRequest", paths: ["src"] },
  { pattern: "needle", paths: ["src/crlf.txt", "docs"] },
  { pattern: "end$" },
  { pattern: "capword 100[0-9]$" },
  { pattern: "capword 5000", fixedStrings: true },
  { pattern: "midneedle|farpart" },
  { pattern: "farword farpart", fixedStrings: true },
  { pattern: "farword" },
  { pattern: "chunk line 39\\d\\d", maxLinesPerFile: 200 },
  { pattern: "needle", glob: ["src/**"] },
  { pattern: "needle", glob: ["**/chunk*.txt"] },
  { pattern: "needle", glob: ["{src,docs}/**"] },
  { pattern: "export", glob: ["**/strings.[tj]s"] },
  { pattern: "needle", glob: ["*.TXT"] },
  { pattern: "needle", paths: ["docs/notes.md", "src/chunked.txt"] },
  { pattern: "[a-z]{2}\\d", paths: ["src/util"] },
  { pattern: "nothing-matches-this" },
  // No literal, or only short ones: lines found by the pattern's shape.
  { pattern: "[A-Z]{4}[a-z]" },
  { pattern: "\\w+ \\d{2}$" },
  { pattern: "[^a-z ]{3}" },
  { pattern: "\\pL\\s\\S{2}" },
  { pattern: ".{2}😀" },
  { pattern: "[k]ELVIN", ignoreCase: true },
  { pattern: "\\d\\d|[A-Z]{5}" },
  { pattern: "e_\\d|x{200}" },
  { pattern: "\\r$" },
];

const record = (id: number, pathGroups: RepositoryRecord["pathGroups"]) =>
  testRecord(id, { name: "org/parity", pathGroups });

/**
 * The rendered search, without the lines that say how candidates were found
 * (and what the index's counts say of a search that found nothing).
 */
export function withoutIndexLines(text: string): string {
  const lines = text.split("\n");
  const none = lines.findIndex((line) => line.startsWith("No matches. Absence is not proven"));
  const kept = (none === -1 ? lines : lines.slice(0, none + 1)).filter((line) =>
    !line.startsWith("Index: ") && !line.startsWith("The pattern has no three-character") &&
    !line.startsWith("The search index of this commit")
  );
  return (kept.some((line) => line.startsWith("Ranking: ")) ? inPathOrder(kept) : kept).join("\n");
}

// A ranked search's lines as the unranked search gives them: file blocks by
// path, without the ranking's own lines.
function inPathOrder(lines: string[]): string[] {
  const plain = lines.filter((line) =>
    !line.startsWith("Ranking: ") && !line.startsWith("Defines: ")
  );
  const first = plain.findIndex((line) => line.startsWith("File: "));
  if (first === -1) return plain;
  const end = plain.at(-1) === "" ? plain.length - 1 : plain.length;
  const blocks: string[][] = [];
  for (const line of plain.slice(first, end)) {
    if (line.startsWith("File: ") || blocks.length === 0) blocks.push([line]);
    else blocks[blocks.length - 1].push(line);
  }
  const path = (block: string[]) => JSON.parse(block[0].slice("File: ".length)) as string;
  blocks.sort((a, b) => comparePaths(path(a), path(b)));
  return [...plain.slice(0, first), ...blocks.flat(), ...plain.slice(end)];
}

// One query's text from the index, without it, with every line checked, and
// through each scanner: the same, whatever found the lines.
async function compareQuery(
  query: SearchRequest,
  at: {
    repo: RepositoryRecord;
    commit: string;
    indexed: SharedSearches;
    plain: SharedSearches;
    scanned: SharedSearches[];
  },
): Promise<void> {
  const { repo, commit } = at;
  const scope = new PathScope(repo);
  const label = JSON.stringify({ ...query, groups: repo.pathGroups.length });
  const run = async (searches: SharedSearches, everyLine = false) => {
    // No time limit to stop a search on a loaded machine: what is compared is what
    // each one finds, and a search stopped by the clock finds less.
    const compiled = { ...compileSearch(query), maxMs: 3_600_000 };
    const outcome = await searches.search(repo, {
      // Every line checked by RE2: what the line finders (and the lines they
      // prove without RE2) must agree with.
      search: everyLine
        ? { ...compiled, finder: null, finderMatches: false, key: `${compiled.key} all` }
        : compiled,
      commit,
      scope,
    });
    return {
      outcome,
      text: renderSearch({
        repo: repo.name,
        commit,
        outcome,
        scope: scope.full ? null : scope.roots,
      }, {
        output: query.output ?? "content",
        maxLinesPerFile: query.maxLinesPerFile ?? 10,
        // The largest page: a header line more or less must not move the cut.
        maxBytes: SEARCH_VIEW_BYTES,
      }),
    };
  };
  const [a, b, c] = [await run(at.indexed), await run(at.plain), await run(at.indexed, true)];
  assertEquals(withoutIndexLines(a.text), withoutIndexLines(b.text), label);
  assertEquals(withoutIndexLines(a.text), withoutIndexLines(c.text), label);
  for (const searches of at.scanned) assertEquals((await run(searches)).text, a.text, label);
  assertEquals(b.outcome.index, "not_ready", label);
  assert(a.outcome.index === "ready" || a.outcome.index === "scan", label);
}

Deno.test("index parity: every query gives the same text with and without the index", async () => {
  const parent = await tempDir("sg-parity-");
  try {
    const source = await createRepo(PARITY_FILES, { parent, name: "source" });
    const commit = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: record(1, []), packed: true });
    const log: string[] = [];
    const indexes = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
    });
    const none = new SearchIndexes(join(parent, "none"), {
      enabled: false,
      mirrors,
      log: () => {},
    });
    const indexed = new SharedSearches(mirrors, { indexes });
    const plain = new SharedSearches(mirrors, { indexes: none });
    // Workers that read chunks for searches that read many; one that never
    // answers, and one that cannot start: both leave the reading here.
    // This corpus has fewer chunks than a search sends to the workers by default.
    // The silent pool has one worker: a timeout ends it with every batch it holds, so a search
    // starts a new one per four batches, not per batch (0.8 of 3 processor-s on worker starts).
    const scanner = new ChunkScanner({ workers: 2, minChunks: 64 });
    const silent = new ChunkScanner({
      workerUrl: SILENT_WORKER,
      workers: 1,
      timeoutMs: 50,
      minChunks: 64,
    });
    const missingLog: string[] = [];
    const missing = new ChunkScanner({
      workerUrl: new URL("../../../fixtures/scan/no_such_worker.ts", import.meta.url),
      log: (line) => missingLog.push(line),
      minChunks: 64,
    });
    const scanned = [scanner, silent, missing].map((one) =>
      new SharedSearches(mirrors, { indexes, scanner: one })
    );
    try {
      await indexes.schedule(record(1, []), [commit]);
      assert(log.some((line) => line.startsWith("search index of org/parity at ")), log.join("\n"));
      const groupings: RepositoryRecord["pathGroups"][] = [[], [{
        name: "src",
        paths: ["src", "docs"],
      }]];
      for (const query of PARITY_QUERIES) {
        // Both path-group settings search at once: each search they both make is computed
        // once (identical concurrent searches are shared) and filtered by each one's scope.
        await Promise.all(
          groupings.map((groups) =>
            compareQuery(query, { repo: record(1, groups), commit, indexed, plain, scanned })
          ),
        );
      }
      const outcome = (pattern: string) =>
        indexed.search(record(1, []), {
          search: compileSearch({ pattern }),
          commit,
          scope: new PathScope(record(1, [])),
        });
      assertEquals((await outcome("parseHTTPRequest")).index, "ready");
      assertEquals((await outcome("[a-z]{2}\\d")).index, "scan");
      assert((await outcome("capword")).truncated, "the match cap still applies");
      assertEquals((await outcome("manyfiles")).fileCount, 1000, "the file cap still applies");
      assert(scanner.answered > 20, `workers answered ${scanner.answered} batches`);
      assertEquals(silent.answered, 0);
      assert(!missing.available && missingLog.length === 1, missingLog.join("\n"));
    } finally {
      for (const one of [scanner, silent, missing]) one.close();
      await indexes.close();
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("index: bad patterns stay bounded and keep their codes", async () => {
  const parent = await tempDir("sg-parity-bad-");
  try {
    const source = await createRepo({ "a.txt": "a".repeat(5000) + "!\n", "b.txt": "ab cd ef\n" }, {
      parent,
      name: "source",
    });
    const commit = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: record(1, []) });
    const indexes = new SearchIndexes(data, { enabled: true, mirrors, log: () => {} });
    const searches = new SharedSearches(mirrors, { indexes });
    try {
      await indexes.schedule(record(1, []), [commit]);
      const repo = record(1, []);
      const scope = new PathScope(repo);
      const alternation = Array.from({ length: 1300 }, (_, i) => `w${i}`).join("|");
      for (const pattern of [alternation, "(a+)+$", "ab|cd|ef", "(x*)*y", "a{1,1000}b"]) {
        const started = performance.now();
        await searches.search(repo, { search: compileSearch({ pattern }), commit, scope });
        // A guard against exponential work (minutes), not a budget.
        assert(performance.now() - started < 30_000, pattern.slice(0, 40));
      }
      // A flood of distinct searches keeps memory flat (no per-pattern state is kept).
      const flood = (from: number) =>
        Promise.all(
          Array.from({ length: 400 }, (_, i) =>
            searches.search(repo, {
              search: compileSearch({ pattern: `w${from + i}x|ab${i}cd` }),
              commit,
              scope,
            })),
        );
      // What is retained is measured after a collection (the RSS of a process that just
      // allocated and freed stays where the allocator left it, and moves by tens of MiB).
      const retained = () => {
        (globalThis as { gc?: () => void }).gc?.();
        return Deno.memoryUsage().heapUsed / 1024 / 1024;
      };
      await flood(0);
      const before = retained();
      for (let round = 1; round <= 5; round++) await flood(round * 1000);
      const grown = retained() - before;
      // About 0.4 MiB on a 2-core Xeon VM: a kilobyte kept per search would show as 2 MiB.
      assert(grown < 2, `the heap kept ${grown.toFixed(1)} MiB more after 2,000 distinct searches`);
      for (
        const [pattern, code] of [
          ["x".repeat(1024 * 1024), "INVALID_PATTERN"],
          ["(?=a)", "INVALID_PATTERN"],
          ["a\\nb", "INVALID_PATTERN"],
          ["(", "INVALID_PATTERN"],
        ]
      ) {
        const error = await Promise.resolve().then(() =>
          searches.search(repo, { search: compileSearch({ pattern }), commit, scope })
        ).catch((e) => e);
        assert(error instanceof SourcegraphError, pattern.slice(0, 20));
        assertEquals(error.code, code);
      }
    } finally {
      await indexes.close();
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});
