/**
 * A scanning worker keeps connections to the indexes it read last only, so
 * the files it holds open (and their page caches) stay bounded whatever the
 * number of repositories searched.
 */

import { join } from "node:path";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { ChunkScanner } from "../../../../sourcegraph/search/scan/chunk_scanner.ts";
import { SCAN_OPEN_INDEXES } from "../../../../sourcegraph/search/index/chunk_reads.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";

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
    for (let i = 0; i < SCAN_OPEN_INDEXES + 3; i++) {
      const path = join(folder, `${i}.sqlite3`);
      const index = new IndexDatabase(path);
      index.db.prepare("INSERT INTO chunks(hash, text) VALUES (?, ?)").run(
        new Uint8Array([i]),
        new TextEncoder().encode(`first\nneedle ${i}\nlast\n`),
      );
      index.close();
      paths.push(path);
    }
    for (const [i, path] of paths.entries()) {
      const lines = await scanner.scan(path, [1], { literal: "needle" });
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
