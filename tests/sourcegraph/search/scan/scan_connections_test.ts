/**
 * A scanning worker keeps connections to the indexes it read last only, so
 * the files it holds open (and their page caches) stay bounded whatever the
 * number of repositories searched.
 */

import { join } from "node:path";
import { ChunkScanner } from "../../../../sourcegraph/search/scan/chunk_scanner.ts";
import { SCAN_OPEN_INDEXES } from "../../../../sourcegraph/search/index/chunk_reads.ts";
import type { IndexFile } from "../../../../sourcegraph/search/index/index_reader.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import { oneChunkIndex } from "../../../support/index_world.ts";

// The index files under `folder` this process holds open (Deno reads /proc/self only with every
// permission: `ls` lists the links).
async function openIndexes(folder: string): Promise<Set<string>> {
  const listing = await new Deno.Command("ls", { args: ["-l", `/proc/${Deno.pid}/fd`] }).output();
  const open = new Set<string>();
  for (const line of new TextDecoder().decode(listing.stdout).split("\n")) {
    const target = line.split(" -> ")[1];
    if (target?.startsWith(folder) && target.endsWith(".sqlite3")) open.add(target);
  }
  return open;
}

Deno.test("scanning workers keep at most SCAN_OPEN_INDEXES indexes open, the last they read", async () => {
  const folder = await tempDir("sg-scan-connections-");
  const scanner = new ChunkScanner({ workers: 1 });
  try {
    const paths: string[] = [];
    const files: IndexFile[] = [];
    for (let i = 0; i < SCAN_OPEN_INDEXES + 3; i++) {
      const path = join(folder, `${i}.sqlite3`);
      files.push(oneChunkIndex(path, `first\nneedle ${i}\nlast\n`));
      paths.push(path);
    }
    for (const [i, file] of files.entries()) {
      const lines = await scanner.scan(file, [1], { literal: "needle" });
      assertEquals(lines, new Map([[1, [[2, `needle ${i}`]]]]));
    }
    const open = await openIndexes(folder);
    assert(open.size <= SCAN_OPEN_INDEXES, [...open].join(", "));
    assert(open.has(paths.at(-1)!), "the index read last stays open");
    assert(!open.has(paths[0]), "the index read first was closed");
  } finally {
    scanner.close();
    await removeDir(folder);
  }
});

Deno.test("scanning workers read an index removed and made again at its path anew, not the old file", async () => {
  const folder = await tempDir("sg-scan-again-");
  const scanner = new ChunkScanner({ workers: 1 });
  try {
    // A repository's index, removed with it; another repository given the same id gets a new
    // index at the same path. A connection kept to the removed file would still read it.
    const path = join(folder, "7.sqlite3");
    const first = oneChunkIndex(path, "needle of the first repository\n");
    assertEquals(
      await scanner.scan(first, [1], { literal: "needle" }),
      new Map([[1, [[1, "needle of the first repository"]]]]),
    );
    assertEquals(
      await scanner.count(first, { files: [[1]], finder: { literal: "first" }, limit: 9 }),
      [1],
    );
    for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(path + suffix).catch(() => {});
    const again = oneChunkIndex(path, "needle of the second one\n");
    assert(again.opening !== first.opening);
    assertEquals(
      await scanner.scan(again, [1], { literal: "needle" }),
      new Map([[1, [[1, "needle of the second one"]]]]),
    );
    assertEquals(
      await scanner.count(again, { files: [[1]], finder: { literal: "first" }, limit: 9 }),
      [0],
    );
  } finally {
    scanner.close();
    await removeDir(folder);
  }
});
