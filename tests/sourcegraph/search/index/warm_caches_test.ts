/**
 * The indexes searched last keep larger SQLite page caches; one that drops
 * out of them goes back to SQLite's default, so the memory they take stays
 * bounded whatever the number of repositories searched.
 */

import { join } from "node:path";
import {
  DEFAULT_CACHE_KIB,
  IndexDatabase,
} from "../../../../sourcegraph/search/index/index_database.ts";
import { WarmCaches } from "../../../../sourcegraph/search/index/warm_caches.ts";
import { assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";

Deno.test("warm caches: the last searched indexes keep larger page caches, the others SQLite's default", async () => {
  const parent = await tempDir("sg-warm-caches-");
  const indexes = Array.from(
    { length: 4 },
    (_, i) => new IndexDatabase(join(parent, `${i}.sqlite3`)),
  );
  try {
    const [a, b, c, d] = indexes;
    for (const index of indexes) assertEquals(index.cacheKib, DEFAULT_CACHE_KIB);
    const warm = new WarmCaches<IndexDatabase>({ count: 2, kib: 8192 });
    const sizes = () => indexes.map((index) => index.cacheKib);
    warm.searched(a);
    warm.searched(b);
    assertEquals(sizes(), [8192, 8192, DEFAULT_CACHE_KIB, DEFAULT_CACHE_KIB]);
    // Searched again, `a` is the last: `c` cools `b`, the oldest.
    warm.searched(a);
    warm.searched(c);
    assertEquals(sizes(), [8192, DEFAULT_CACHE_KIB, 8192, DEFAULT_CACHE_KIB]);
    assertEquals(warm.warm, [a, c]);
    // A closed index no longer counts: the next one cools nothing.
    warm.forget(a);
    warm.searched(d);
    assertEquals(warm.warm, [c, d]);
    assertEquals(sizes().slice(1), [DEFAULT_CACHE_KIB, 8192, 8192]);
  } finally {
    for (const index of indexes) index.close();
    await removeDir(parent);
  }
});
