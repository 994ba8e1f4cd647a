import { isRegularFile, parseTreeListing } from "../../shared/tree_listing.ts";
import { assertEquals } from "../support/assert.ts";
import { createRepo, removeDir } from "../support/git_repo.ts";

Deno.test("ls-tree -z records parse with verbatim paths; only regular files count as files", async () => {
  const repo = await createRepo({
    "plain.txt": "a\n",
    "dir/tab\tand space.txt": "b\n",
    "run.sh": "#!/bin/sh\n",
  });
  try {
    await Deno.chmod(`${repo.path}/run.sh`, 0o755);
    await Deno.symlink("plain.txt", `${repo.path}/link.txt`);
    await repo.commit("more");
    const out = await new Deno.Command("git", {
      args: ["ls-tree", "-r", "-z", "--full-tree", "HEAD"],
      cwd: repo.path,
      stdout: "piped",
    }).output();
    const entries = parseTreeListing(out.stdout);
    assertEquals(entries.map((e) => [e.path, e.mode, isRegularFile(e)]), [
      ["dir/tab\tand space.txt", "100644", true],
      ["link.txt", "120000", false],
      ["plain.txt", "100644", true],
      ["run.sh", "100755", true],
    ]);
    assertEquals(entries.every((e) => /^[0-9a-f]{40}$/.test(e.oid)), true);
    assertEquals(parseTreeListing(new Uint8Array(0)), []);
  } finally {
    await removeDir(`${repo.path}/..`);
  }
});
