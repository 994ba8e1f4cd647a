import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { IndexedCommit } from "../../../../sourcegraph/search/index/index_reader.ts";
import { pruneIndex } from "../../../../sourcegraph/search/build/index_prune.ts";
import { globLiterals, pathQuery } from "../../../../sourcegraph/search/query/path_query.ts";
import { textChunks } from "../../../../sourcegraph/search/index/text_chunks.ts";
import { trigramQuery } from "../../../../sourcegraph/search/query/trigram_query.ts";
import {
  TrigramCollector,
  type TrigramQuery,
} from "../../../../sourcegraph/search/index/trigrams.ts";
import { countLines } from "../../../../shared/text.ts";
import { unpackNumbers } from "../../../../sourcegraph/search/index/packed_numbers.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

// A repository of `files` under `parent`, its commit indexed in chunks of `chunkUnits`.
async function indexedRepo(
  parent: string,
  files: Record<string, string>,
  chunkUnits: number,
): Promise<{ repo: Awaited<ReturnType<typeof createRepo>>; commit: string; index: IndexDatabase }> {
  const repo = await createRepo(files, { parent, name: "source" });
  const commit = await repo.git("rev-parse", "HEAD");
  const index = new IndexDatabase(join(parent, "index.sqlite3"));
  await buildCommitIndex(index, {
    mirror: repo.path,
    commit,
    collector: new TrigramCollector(),
    chunkUnits,
  });
  return { repo, commit, index };
}

Deno.test("text chunks: whole lines, in order, numbered, about the size asked", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 200; round++) {
    const lines = Array.from(
      { length: Math.floor(random() * 60) },
      () => "x".repeat(Math.floor(random() * random() * 300)),
    );
    const text = lines.join("\n") + (random() < 0.5 ? "\n" : "");
    const units = 16 + Math.floor(random() * 200);
    const chunks = textChunks(text, { units });
    assertEquals(chunks.map((chunk) => chunk.text).join(""), text);
    let before = 0;
    for (const [i, chunk] of chunks.entries()) {
      assertEquals(chunk.line, before, "lines before the chunk");
      if (i < chunks.length - 1) assert(chunk.text.endsWith("\n"), "a chunk ends a line");
      const lineCount = countLines(chunk.text);
      assert(chunk.text.length <= units || lineCount === 1, "only a single long line is oversized");
      before += lineCount;
    }
  }
  assertEquals(textChunks(""), []);
});

Deno.test("index: a blob's chunks are its searchable text as UTF-8, ASCII or not, and shared by content", async () => {
  const parent = await tempDir("sg-chunk-bytes-");
  try {
    const shared = Array.from({ length: 40 }, (_, i) => `shared line ${i}`).join("\n") + "\n";
    const files: Record<string, string> = {
      "ascii.txt": shared + "only ascii after it\n".repeat(30),
      "accents.txt": shared + "déjà vu, naïve café\n".repeat(30) + "日本語のテキスト\n",
      "bom.txt": "\ufeff" + shared + "after a byte-order mark\r\n".repeat(30),
    };
    const { repo, commit, index } = await indexedRepo(parent, files, 256);
    try {
      const rows = index.db.prepare("SELECT oid, chunk_ids FROM blobs").all() as {
        oid: string;
        chunk_ids: Uint8Array;
      }[];
      const chunkText = index.db.prepare("SELECT text FROM chunks WHERE id = ?");
      const firstChunks = new Set<number>();
      for (const [path, text] of Object.entries(files)) {
        const oid = await repo.git("rev-parse", `${commit}:${path}`);
        const ids = unpackNumbers(rows.find((row) => row.oid === oid)!.chunk_ids);
        assert(ids.length > 3, `${path} in several chunks`);
        const stored = [...ids].map((id) =>
          new TextDecoder().decode((chunkText.get(id) as { text: Uint8Array }).text)
        ).join("");
        assertEquals(stored, text.replace(/^\ufeff/, ""), path);
        firstChunks.add(ids[0]);
      }
      assertEquals(firstChunks.size, 1, "the same first chunk, whichever way its bytes were made");
    } finally {
      index.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("path queries: roots and include globs narrow, anything unsure does not", () => {
  assertEquals(globLiterals("src/**/*.test.ts"), ["src", ".test.ts"]);
  assertEquals(globLiterals("**/strings.[tj]s"), ["strings."]);
  assertEquals(globLiterals("{src,docs}/**"), []);
  assertEquals(globLiterals("*.h"), []);
  assertEquals(globLiterals("a\\*b/xyz"), []);
  assertEquals(pathQuery({ paths: [], globs: ["*.h", "!vendor/**"] }), { op: "all" });
  assertEquals(pathQuery({ paths: ["ab"], globs: [] }), { op: "all" });
  assertEquals(pathQuery({ paths: ["src"], globs: ["*.h"] }).op, "trigram");
  assertEquals(pathQuery({ paths: ["src"], globs: ["*.ts"] }).op, "and", "src and .ts");
  assertEquals(pathQuery({ paths: ["src", "docs"], globs: [] }).op, "or");
});

Deno.test("index: candidates are the chunks holding every trigram, among the paths asked for", async () => {
  const parent = await tempDir("sg-chunks-");
  try {
    const filler = Array.from({ length: 200 }, (_, i) => `filler line ${i}`).join("\n");
    const { commit, index } = await indexedRepo(parent, {
      "src/far.txt": `alpha here\n${filler}\nbeta there\n`,
      "src/near.txt": `${filler}\nalpha beta\n${filler}\n`,
      "docs/near.md": "alpha beta\n",
      "docs/other.md": "nothing\n",
    }, 512);
    try {
      const indexed = IndexedCommit.open(index, commit)!;
      const all: { paths: TrigramQuery; keep: () => boolean } = {
        paths: { op: "all" },
        keep: () => true,
      };
      const find = (pattern: string, options = all) =>
        indexed.candidates(
          trigramQuery(pattern, { fixedStrings: true, ignoreCase: false }),
          options,
        )
          .map((candidate) => candidate.path);
      // alpha and beta are more than a chunk apart in far.txt: it is not a candidate.
      assertEquals(find("alpha beta"), ["docs/near.md", "src/near.txt"]);
      const near = indexed.candidates(
        trigramQuery("alpha beta", {
          fixedStrings: true,
          ignoreCase: false,
        }),
        all,
      ).find((candidate) => candidate.path === "src/near.txt")!;
      assertEquals(near.chunks.length, 1, "only the chunk holding the phrase is read");
      const chunk = near.chunks[0];
      const text = indexed.chunkTexts([chunk.id]).get(chunk.id)!;
      assert(text.includes("alpha beta"));
      assertEquals(chunk.line + text.split("\n").indexOf("alpha beta") + 1, 201, "line numbers");
      assertEquals(
        find("alpha beta", { paths: pathQuery({ paths: ["docs"], globs: [] }), keep: () => true }),
        [
          "docs/near.md",
        ],
      );
      assertEquals(
        find("alpha", { paths: pathQuery({ paths: [], globs: ["**/far.*"] }), keep: () => true }),
        ["src/far.txt"],
      );
    } finally {
      index.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("index: chunks are shared by content; a file changed at its end stores only its last chunk", async () => {
  const parent = await tempDir("sg-chunk-share-");
  try {
    const lines = (from: number) =>
      Array.from({ length: 400 }, (_, i) => `shared line ${from + i}`).join("\n") + "\n";
    const repo = await createRepo({ "big.txt": lines(0), "copy.txt": lines(0) + "tail\n" }, {
      parent,
      name: "source",
    });
    const first = await repo.git("rev-parse", "HEAD");
    await repo.write({ "big.txt": lines(0) + "appended needle\n" });
    const second = await repo.commit("append");
    const index = new IndexDatabase(join(parent, "index.sqlite3"));
    const count = (table: string) =>
      (index.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    try {
      const build = (commit: string) =>
        buildCommitIndex(index, {
          mirror: repo.path,
          commit,
          collector: new TrigramCollector(),
          chunkUnits: 1024,
        });
      await build(first);
      const chunks = count("chunks");
      // big.txt and copy.txt differ only in their last chunk: the others are stored once.
      const perFile = textChunks(lines(0), { units: 1024 }).length;
      assertEquals(chunks, perFile + 1, "shared chunks stored once");
      await build(second);
      assertEquals(count("chunks"), chunks + 1, "only the changed last chunk is new");
      const found = IndexedCommit.open(index, second)!.candidates(
        trigramQuery("appended needle", { fixedStrings: true, ignoreCase: false }),
        { paths: { op: "all" }, keep: () => true },
      );
      assertEquals(found.map((candidate) => candidate.path), ["big.txt"]);
      // Dropping the second commit drops its chunk, keeps the shared ones.
      pruneIndex(index, { retained: [first] });
      assertEquals(count("chunks"), chunks);
      assertEquals(count("paths"), 2);
    } finally {
      index.close();
    }
  } finally {
    await removeDir(parent);
  }
});
