import { join } from "node:path";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { connectClient, startFailure, startService } from "../../support/sourcegraph_service.ts";
import { texts } from "../../support/tool_calls.ts";

const TOKEN = "c".repeat(40);

// One start serves what one sourcegraph.toml registers: a private repository with a path group,
// and two public ones without a default branch (main/master decide).
Deno.test("sourcegraph.toml registers repositories at start; without a default branch, main/master decide; an invalid file stops the start", async () => {
  const parent = await tempDir("sg-toml-");
  const home = await createRepo({ ".gitignore": ".sourcegraph/\n", "a.txt": "home\n" }, {
    parent,
    name: "home",
  });
  const other = await createRepo({ "docs/x.md": "documented\n", "src/y.ts": "code\n" }, {
    parent,
    name: "other",
  });
  const both = await createRepo({ "x.txt": "x\n" }, { parent, name: "both" });
  await both.git("branch", "master");
  const only = await createRepo({ "y.txt": "y\n" }, { parent, name: "only" });
  await Deno.writeTextFile(
    join(home.path, "sourcegraph.toml"),
    `[[repositories]]\nname = "org/other"\nsource = ${
      JSON.stringify(other.path)
    }\nbranches = ["main"]\n` +
      `default_branch = "main"\npublic_read = false\npath_groups = [{ name = "docs", paths = ["docs"] }]\n\n` +
      `[[repositories]]\nname = "org/both"\nsource = ${
        JSON.stringify(both.path)
      }\nbranches = ["main", "master"]\npublic_read = true\n\n` +
      `[[repositories]]\nname = "org/only"\nsource = ${
        JSON.stringify(only.path)
      }\nbranches = ["main"]\npublic_read = true\n`,
  );
  const service = await startService(home.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
  try {
    for (const name of ["org/other", "org/both", "org/only"]) {
      assert(
        service.log.some((line) => line.includes(`registered ${name} from sourcegraph.toml`)),
        service.log.join("\n"),
      );
    }
    // The checkout itself is not auto-registered once something is configured.
    const client = await connectClient(service.url, { token: TOKEN });
    const repos = JSON.parse(
      texts(await client.callTool({ name: "repositories", arguments: {} }))[0],
    );
    assertEquals(repos.repositories.map((r: { repo: string }) => r.repo).sort(), [
      "org/both",
      "org/only",
      "org/other",
    ]);
    const read = await client.callTool({
      name: "read",
      arguments: { repo: "org/other", path: "docs/x.md" },
    });
    assertIncludes(texts(read)[0], "1: documented");
    const outside = await client.callTool({
      name: "read",
      arguments: { repo: "org/other", path: "src/y.ts" },
    });
    assertEquals(JSON.parse(texts(outside)[0]).code, "PATH_NOT_REGISTERED");
    const resolve = async (repo: string) => {
      const result = await client.callTool({ name: "resolve", arguments: { repo } });
      return result.isError
        ? JSON.parse(texts(result)[0]).code
        : JSON.parse(texts(result)[0]).commit;
    };
    assertEquals(await resolve("org/both"), "DEFAULT_BRANCH_UNDETERMINED");
    assertEquals(await resolve("org/only"), await only.git("rev-parse", "HEAD"));
    await client.close();
  } finally {
    await service.stop();
  }
  await Deno.writeTextFile(join(home.path, "sourcegraph.toml"), "[[repositories]]\nname = 12\n");
  await Deno.remove(join(home.path, ".sourcegraph"), { recursive: true });
  const failed = await startFailure(home.path);
  assertIncludes(failed, "sourcegraph.toml is invalid");
  await removeDir(parent);
});
