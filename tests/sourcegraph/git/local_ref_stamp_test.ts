import { join } from "node:path";
import { localRefStamp } from "../../../sourcegraph/git/local_ref_stamp.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../../support/git_repo.ts";

Deno.test("local ref stamp: unchanged while the branches stay, changed by every way a branch moves", async () => {
  const parent = await tempDir("sg-ref-stamp-");
  try {
    const repo = await createRepo({ "a.txt": "one\n" }, { parent, name: "work" });
    const first = await repo.git("rev-parse", "HEAD");
    const stamp = () => localRefStamp(repo.path, ["main"]);
    const initial = await stamp();
    assert(initial !== null, "a work tree has a stamp");
    assertEquals(await stamp(), initial, "nothing written: same stamp");
    assert(await localRefStamp(repo.path, ["main", "side"]) !== initial, "the branches count");

    await repo.git("branch", "side");
    await repo.git("update-ref", "refs/heads/side", first);
    assertEquals(await stamp(), initial, "another branch written: same stamp");

    await repo.write({ "a.txt": "two\n" });
    await repo.git("add", "a.txt");
    assertEquals(await stamp(), initial, "the index written (as an editor does): same stamp");
    await repo.commit("two");
    const committed = await stamp();
    assert(committed !== initial, "a commit on the branch");

    await repo.git("pack-refs", "--all");
    const packed = await stamp();
    assert(packed !== committed, "refs packed (the loose file removed)");
    await repo.git("update-ref", "refs/heads/main", first);
    const reset = await stamp();
    assert(reset !== packed, "a packed branch reset");
    await repo.git("pack-refs", "--all");
    const packedAgain = await stamp();
    await repo.git("update-ref", "-d", "refs/heads/main");
    assert(await stamp() !== packedAgain, "a packed branch deleted (only packed-refs written)");
  } finally {
    await removeDir(parent);
  }
});

Deno.test("local ref stamp: bare repositories and linked work trees read the shared refs", async () => {
  const parent = await tempDir("sg-ref-stamp-");
  try {
    const repo = await createRepo({ "a.txt": "one\n" }, { parent, name: "work" });
    const bare = join(parent, "bare.git");
    await git(parent, ["clone", "-q", "--bare", repo.path, bare]);
    const linked = join(parent, "linked");
    await repo.git("worktree", "add", "-q", "-b", "topic", linked);
    const bareBefore = await localRefStamp(bare, ["main"]);
    const linkedBefore = await localRefStamp(linked, ["main"]);
    assert(bareBefore !== null && linkedBefore !== null);

    await repo.write({ "a.txt": "two\n" });
    await repo.commit("two");
    assert(await localRefStamp(linked, ["main"]) !== linkedBefore, "main moved in the main tree");
    assertEquals(await localRefStamp(bare, ["main"]), bareBefore);
    await repo.git("push", "-q", bare, "main");
    assert(await localRefStamp(bare, ["main"]) !== bareBefore, "main moved in the bare repository");
  } finally {
    await removeDir(parent);
  }
});

Deno.test("local ref stamp: none where only Git can tell (a symbolic branch, a subfolder, a path out of refs)", async () => {
  const parent = await tempDir("sg-ref-stamp-");
  try {
    const repo = await createRepo({ "d/a.txt": "one\n" }, { parent, name: "work" });
    await repo.git("symbolic-ref", "refs/heads/alias", "refs/heads/main");
    assertEquals(await localRefStamp(repo.path, ["alias"]), null);
    assertEquals(await localRefStamp(join(repo.path, "d"), ["main"]), null);
    assertEquals(await localRefStamp(join(parent, "missing"), ["main"]), null);
    assertEquals(await localRefStamp(repo.path, ["../../config"]), null);
    assert(await localRefStamp(repo.path, ["main"]) !== null);
  } finally {
    await removeDir(parent);
  }
});
