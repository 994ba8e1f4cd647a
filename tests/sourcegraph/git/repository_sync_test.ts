import { join } from "node:path";
import { mirrorPath, syncRepository } from "../../../sourcegraph/git/repository_sync.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { FetchCredentials } from "../../../sourcegraph/store/fetch_credentials.ts";
import { assertEquals } from "../../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../../support/git_repo.ts";

// 2026-01-01T00:00:00Z, the fixtures' commit date.
const FIXTURE_TIME = 1_767_225_600;

Deno.test("sync: each head is pinned under refs/sourcegraph/retained and recorded with its committer time, also when the pins are packed", async () => {
  const parent = await tempDir("sg-repo-sync-");
  try {
    const source = await createRepo({ "a.txt": "one\n" }, { parent, name: "source" });
    const data = join(parent, "data");
    await Deno.mkdir(join(data, "mirrors"), { recursive: true });
    const store = new SqliteControlStore(join(data, "control.sqlite3"));
    try {
      const repo = await store.register({
        name: "local/source",
        source: source.path,
        publicRead: true,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: 60,
      });
      const credentials = new FetchCredentials(data);
      const sync = () => syncRepository(store, repo, { dataDir: data, credentials });
      const mirror = mirrorPath(data, repo);
      const pinned = (commit: string) =>
        git(mirror, ["rev-parse", "--verify", `refs/sourcegraph/retained/${commit}`]);

      const first = await source.git("rev-parse", "HEAD");
      assertEquals((await sync()).heads, { main: first });
      assertEquals(await pinned(first), first);
      assertEquals(store.versions(repo.id).map((v) => [v.commit, v.committerTime]), [
        [first, FIXTURE_TIME],
      ]);

      // A pin lost from the mirror (packed, then deleted) is made again: only a
      // loose ref file naming the commit counts as pinned.
      await git(mirror, ["pack-refs", "--all", "--prune"]);
      await git(mirror, ["update-ref", "-d", `refs/sourcegraph/retained/${first}`]);
      assertEquals((await sync()).heads, { main: first });
      assertEquals(
        await pinned(first),
        first,
        "an unmoved head whose pin was lost is pinned again",
      );

      await source.write({ "a.txt": "two\n" });
      const second = await source.commit("two");
      assertEquals((await sync()).heads, { main: second });
      assertEquals([await pinned(first), await pinned(second)], [first, second]);
      assertEquals(store.versions(repo.id).map((v) => v.commit).sort(), [first, second].sort());
    } finally {
      await store.close();
    }
  } finally {
    await removeDir(parent);
  }
});
