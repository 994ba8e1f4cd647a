import { join } from "node:path";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../support/git_repo.ts";
import { startFailure, startService } from "../support/sourcegraph_service.ts";

Deno.test("start: repositories named on the command line are served beside the configured ones; the log names the real address", async () => {
  const parent = await tempDir("sg-start-");
  try {
    const home = await createRepo({ "a.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    await home.write({
      "sourcegraph.toml":
        `[[repositories]]\nname = "org/configured"\nsource = "${home.path}"\npublic_read = true\nbranches = ["main"]\n`,
    });
    await home.commit("config");
    const other = await createRepo({ "o.txt": "other\n" }, { parent, name: "other" });
    await other.git("checkout", "-q", "-b", "feature");
    const bare = join(parent, "mirror.git");
    await git(parent, ["clone", "-q", "--bare", other.path, bare]);
    const service = await startService(home.path, {}, { repositories: [other.path, bare] });
    try {
      const port = new URL(service.url).port;
      assert(
        service.log.some((line) => line.endsWith(`listening on http://127.0.0.1:${port}`)),
        service.log.join("\n"),
      );
      assert(!service.log.some((line) => line.includes("public URL")), service.log.join("\n"));
      assertIncludes(
        service.log.join("\n"),
        `connect an MCP client to ${service.url}/sourcegraph/mcp`,
      );
      const listed = await (await fetch(`${service.url}/sourcegraph/v1/repos`)).json();
      const names = listed.Repositories.map((repo: { Repo: string }) => repo.Repo);
      assertEquals(names, ["local/mirror", "local/other", "org/configured"]);
      const other = listed.Repositories.find((repo: { Repo: string }) =>
        repo.Repo === "local/other"
      );
      assertEquals(other.DefaultBranch, "feature");
      const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/mirror`, {
        method: "POST",
        body: JSON.stringify({ Path: "o.txt" }),
      });
      assertEquals((await read.json()).Content, "other\n");
    } finally {
      await service.stop();
    }
    const published = await startService(home.path, {
      SOURCEGRAPH_PUBLIC_URL: "https://sg.example.org",
    });
    try {
      assert(published.log.some((line) => line.endsWith("public URL https://sg.example.org")));
      assertIncludes(
        published.log.join("\n"),
        "connect an MCP client to https://sg.example.org/sourcegraph/mcp",
      );
    } finally {
      await published.stop();
    }
    const log = await startFailure(home.path, {}, { repositories: [join(parent, "nothing-here")] });
    const lines = log.split("\n").filter((line) => line.includes("nothing-here"));
    assertEquals(lines.length, 1, log);
    assertIncludes(lines[0], "is not a Git repository");
  } finally {
    await removeDir(parent);
  }
});
