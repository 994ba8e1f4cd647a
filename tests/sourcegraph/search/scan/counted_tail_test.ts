/**
 * A search whose lines are found by a literal alone hands its last files to
 * a scanning worker to count while it reads the first ones: once its page is
 * full, the worker's counts stand for those files, and the answer is the one
 * the search makes reading every file itself (caps, ignore case, lines that
 * hold the literal twice, no final newline). While the page is not full, or
 * when the worker never answers, the search reads those files itself.
 * Workers read through memory maps and close them after the text they read.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import {
  IndexedCommit,
  type IndexFile,
} from "../../../../sourcegraph/search/index/index_reader.ts";
import { TrigramCollector } from "../../../../sourcegraph/search/index/trigrams.ts";
import {
  compileSearch,
  type SearchRequest,
} from "../../../../sourcegraph/search/query/compiled_search.ts";
import { searchCommit, type SearchOutcome } from "../../../../sourcegraph/search/code_search.ts";
import { ChunkScanner } from "../../../../sourcegraph/search/scan/chunk_scanner.ts";
import { countCandidateLines } from "../../../../sourcegraph/search/query/line_candidates.ts";
import { CandidateLines } from "../../../../sourcegraph/search/query/line_candidates.ts";
import { MirrorObjects } from "../../../../sourcegraph/git/mirror_objects.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { oneChunkIndex } from "../../../support/index_world.ts";

const COUNT_ONES = new URL("../../../fixtures/scan/count_ones_worker.ts", import.meta.url);
const SILENT = new URL("../../../fixtures/scan/silent_worker.ts", import.meta.url);

// 150 files (over two batches of chunks) with the needle on some lines (twice on one, in
// capitals on another, CRLF line ends, no final newline), and last (`capped`) a file with more
// matching lines than a search counts.
function tree(capped = true): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 150; f++) {
    const lines = Array.from(
      { length: 12 },
      (_, i) =>
        i % 3 === 0
          ? `line ${i} needle ${"x".repeat(f)}`
          : i === 4
          ? `needle and needle again ${f}`
          : i === 5
          ? `NEEDLE in capitals ${f}`
          : `plain line ${i}`,
    );
    const text = lines.join(f % 7 === 0 ? "\r\n" : "\n");
    files[`f${String(f).padStart(3, "0")}.txt`] = f % 5 === 0 ? text : `${text}\n`;
  }
  if (capped) {
    files["z_capped.txt"] = Array.from({ length: 10_050 }, (_, i) => `needle ${i}`).join("\n");
  }
  return files;
}

async function indexed(
  parent: string,
  files: Record<string, string> = tree(),
): Promise<{ commit: IndexedCommit; head: string; mirror: string; index: IndexDatabase }> {
  const repo = await createRepo(files, { parent, name: "repo" });
  const head = await repo.git("rev-parse", "HEAD");
  const index = new IndexDatabase(join(parent, "repo.sqlite3"));
  await buildCommitIndex(index, {
    mirror: repo.path,
    commit: head,
    collector: new TrigramCollector(),
    chunkUnits: 256,
  });
  return { commit: IndexedCommit.open(index, head)!, head, mirror: repo.path, index };
}

const REQUESTS: SearchRequest[] = [
  { pattern: "needle", fixedStrings: true },
  { pattern: "NEEDLE", fixedStrings: true, ignoreCase: true },
  { pattern: "needle again", fixedStrings: true },
];

Deno.test("counted tail: a worker's counts of the last files give the answer the search reads itself", async () => {
  const parent = await tempDir("sg-counted-tail-");
  const counting = new ChunkScanner({ workers: 1, minCountChunks: 8 });
  const silent = new ChunkScanner({
    workerUrl: SILENT,
    workers: 1,
    timeoutMs: 50,
    minCountChunks: 8,
  });
  try {
    const { commit, head, mirror } = await indexed(parent);
    const objects = new MirrorObjects(mirror);
    try {
      const search = (request: SearchRequest, scanner?: ChunkScanner): Promise<SearchOutcome> =>
        searchCommit(objects, {
          search: compileSearch(request),
          commit: head,
          index: commit,
          scanner,
        });
      for (const request of REQUESTS) {
        for (const lineBytes of [64, 2_000, 10_000_000]) {
          const at = { ...request, lineBytes };
          const alone = await search(at);
          const answered = counting.answered;
          assertEquals(await search(at, counting), alone, JSON.stringify(at));
          // A page full at once: the search took the worker's counts (a job of a search before
          // may be answered meanwhile, one whose page was never full).
          if (lineBytes === 64) assert(counting.answered > answered, "the worker counted");
          assertEquals(await search(at, silent), alone, `${JSON.stringify(at)}, silent worker`);
        }
      }
      const capped = await search(
        { pattern: "needle", fixedStrings: true, lineBytes: 64 },
        counting,
      );
      assert(capped.truncated, "the match cap applies to a counted file");
    } finally {
      await objects.close();
    }
  } finally {
    counting.close();
    silent.close();
    await removeDir(parent);
  }
});

Deno.test("counted tail: the counts stand for the last files only once the page is full", async () => {
  const parent = await tempDir("sg-counted-tail-ones-");
  const ones = new ChunkScanner({ workerUrl: COUNT_ONES, workers: 1, minCountChunks: 8 });
  try {
    const { commit, head, mirror } = await indexed(parent, tree(false));
    const objects = new MirrorObjects(mirror);
    try {
      const search = (lineBytes: number, scanner?: ChunkScanner): Promise<SearchOutcome> =>
        searchCommit(objects, {
          search: compileSearch({ pattern: "needle", fixedStrings: true, lineBytes }),
          commit: head,
          index: commit,
          scanner,
        });
      // Once the page is full (at once, or within the files the worker counted), the files
      // after take the worker's count of one line each.
      for (const lineBytes of [64, 9_000]) {
        const truth = await search(lineBytes);
        const counted = await search(lineBytes, ones);
        const from = counted.files.findIndex((file, i) =>
          file.matchCount !== truth.files[i].matchCount
        );
        assert(from > 0, "the first files are read by the search");
        assert(counted.files.slice(from).every((file) => file.matchCount === 1), "counted");
        assertEquals(counted.files.slice(0, from), truth.files.slice(0, from));
        const shown = counted.files.slice(0, from).flatMap((file) => file.lines)
          .reduce((bytes, line) => bytes + line.text.length + 1, 0);
        assert(shown > lineBytes, `a count stood for a file before the page was full (${from})`);
        assert(lineBytes === 64 || from > 64, "the page filled within the counted files");
      }
      // A page never full: every file is read by the search, whatever the worker says.
      assertEquals(await search(10_000_000, ones), await search(10_000_000));
    } finally {
      await objects.close();
    }
  } finally {
    ones.close();
    await removeDir(parent);
  }
});

Deno.test("counted tail: under path groups the worker counts visible files only, and the answer is the search's own", async () => {
  const parent = await tempDir("sg-counted-tail-groups-");
  const counting = new ChunkScanner({ workers: 1, minCountChunks: 8 });
  try {
    // Two folders of 100 files; the hidden one holds the needle far more often.
    const files: Record<string, string> = {};
    for (let f = 0; f < 100; f++) {
      const name = String(f).padStart(3, "0");
      files[`pub/f${name}.txt`] = `needle ${f}\nother\n`;
      files[`priv/f${name}.txt`] = Array.from({ length: 40 }, () => `needle secret ${f}`).join(
        "\n",
      );
    }
    const { commit, head, mirror } = await indexed(parent, files);
    const objects = new MirrorObjects(mirror);
    try {
      const search = (scanner?: ChunkScanner): Promise<SearchOutcome> =>
        searchCommit(objects, {
          search: compileSearch({
            pattern: "needle",
            fixedStrings: true,
            lineBytes: 64,
            groups: ["pub"],
          }),
          commit: head,
          index: commit,
          scanner,
        });
      const alone = await search();
      const answered = counting.answered;
      const counted = await search(counting);
      assert(counting.answered > answered, "the worker counted");
      assertEquals(counted, alone);
      assert(counted.files.every((file) => file.path.startsWith("pub/")), "a hidden file");
      assertEquals([counted.fileCount, counted.matchCount], [100, 100]);
    } finally {
      await objects.close();
    }
  } finally {
    counting.close();
    await removeDir(parent);
  }
});

// The memory maps of `file` in this process (Deno reads /proc/self only with every permission).
async function mapsOf(file: string): Promise<number> {
  const maps = await new Deno.Command("cat", { args: [`/proc/${Deno.pid}/maps`] }).output();
  return new TextDecoder().decode(maps.stdout).split("\n").filter((line) => line.endsWith(file))
    .length;
}

Deno.test("counted tail: a worker reads through a memory map and closes it after the text it was given", async () => {
  const parent = await tempDir("sg-counted-tail-maps-");
  const kept = new ChunkScanner({ workers: 1 });
  const closed = new ChunkScanner({ workers: 1, mappedBytes: 1 });
  try {
    const [a, b, c] = ["a", "b", "c"].map((name) =>
      oneChunkIndex(join(parent, `${name}.sqlite3`), "needle\nother\nneedle twice needle\n")
    );
    const count = (scanner: ChunkScanner, file: IndexFile) =>
      scanner.count(file, { files: [[1]], finder: { literal: "needle" }, limit: 100 });
    assertEquals(await count(kept, a), [2]);
    assert(await mapsOf(a.path) > 0, "the worker's connection maps the index");
    // One counting worker: once it answered the next job, it had closed the first one's map.
    assertEquals(await count(closed, b), [2]);
    assertEquals(await count(closed, c), [2]);
    assertEquals(await mapsOf(b.path), 0, "past its budget the worker closed the map");
    assert(await mapsOf(a.path) > 0, "within its budget a worker keeps its map");
  } finally {
    kept.close();
    closed.close();
    await removeDir(parent);
  }
});

Deno.test("counted tail: a count of a text's lines is the number of lines the finder visits", () => {
  const texts = [
    "",
    "needle",
    "needle\n",
    "a needle needle\nno\nneedle\r\nend needle",
    "\n\nneedle\n\n",
    "x".repeat(100) + "needle",
  ];
  const finders = [{ literal: "needle" }, { pattern: /NEEDLE/giu }, { literal: "le\r" }];
  for (const text of texts) {
    for (const finder of finders) {
      const lines = new CandidateLines(text, finder);
      let visited = 0;
      while (lines.next()) visited++;
      assertEquals(
        countCandidateLines(text, { finder, limit: 1_000 }),
        visited,
        JSON.stringify(text),
      );
      assertEquals(countCandidateLines(text, { finder, limit: 1 }), Math.min(visited, 1));
    }
  }
});
