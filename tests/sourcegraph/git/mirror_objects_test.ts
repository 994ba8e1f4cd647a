/**
 * Path lookups through a mirror's object reader: a commit id's root tree is
 * kept, so a lookup at an earlier commit still answers that commit's file,
 * while a name such as `HEAD` is asked of Git each time and follows a new
 * commit.
 */

import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";

// The text of the blob at `path` in `commit`, or null.
async function textAt(
  objects: MirrorObjects,
  commit: string,
  path: string,
): Promise<string | null> {
  const entry = await objects.lookup(commit, path);
  if (entry === null) return null;
  const bytes = await objects.blob(entry.oid, 1024);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

Deno.test("mirror objects: a commit id's tree is kept, HEAD follows a new commit", async () => {
  const parent = await tempDir("sg-mirror-objects-");
  const repo = await createRepo({ "a.txt": "first\n" }, { parent });
  const objects = new MirrorObjects(repo.path);
  try {
    const first = await repo.git("rev-parse", "HEAD");
    assertEquals(await textAt(objects, first, "a.txt"), "first\n");
    assertEquals(await textAt(objects, "HEAD", "a.txt"), "first\n");
    await repo.write({ "a.txt": "second\n", "b.txt": "new\n" });
    const second = await repo.commit("second");
    assertEquals(await textAt(objects, first, "a.txt"), "first\n");
    assertEquals(await textAt(objects, first, "b.txt"), null);
    assertEquals(await textAt(objects, "HEAD", "a.txt"), "second\n");
    assertEquals(await textAt(objects, second, "b.txt"), "new\n");
  } finally {
    await objects.close();
    await removeDir(parent);
  }
});
