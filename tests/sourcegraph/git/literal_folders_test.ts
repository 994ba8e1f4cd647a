/**
 * Folders whose names hold pathspec magic (`[ab]`, `docs/*`) are folders, not
 * patterns: a diff hands them to Git literally, so Git never reads the
 * folders such a pattern would match (`a`, `b`, `docs/private`), whether the
 * folder comes from a path group or from the caller's `paths`.
 */

import { assertEquals } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  type InProcessWorld,
  withInProcessService,
} from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";
import { changedPaths } from "../../../sourcegraph/git/changed_paths.ts";

const FILES = {
  "[ab]/open.txt": "open\n",
  "a/secret.txt": "secret a\n",
  "b/secret.txt": "secret b\n",
  "docs/*/open.md": "open\n",
  "docs/private/secret.md": "secret\n",
};
const CHANGED = Object.fromEntries(Object.keys(FILES).map((path) => [path, "changed\n"]));

const WORLD = {
  repositories: [
    {
      name: "org/globs",
      publicRead: true,
      files: FILES,
      pathGroups: [{ name: "open", paths: ["[ab]", "docs/*"] }],
    },
    // The same folders without groups: `paths` alone restricts the diff.
    { name: "org/plain", publicRead: true, files: FILES },
  ],
};

// Commits a change to every file of `repo` and syncs it: the first and the new head.
async function changeEverything(
  world: InProcessWorld,
  repo: string,
): Promise<{ base: string; head: string }> {
  const source = world.sources.get(repo)!;
  await source.write(CHANGED);
  const head = await source.commit("change everything");
  await world.scheduler.sync(world.store.repository(repo)!);
  return { base: world.heads.get(repo)!, head };
}

Deno.test("diff: a folder named [ab] or docs/* is read by Git as that folder only", () =>
  withInProcessService(async (world) => {
    const globs = await changeEverything(world, "org/globs");
    const plain = await changeEverything(world, "org/plain");
    // Git itself, as the service calls it, with the groups' folders.
    const read = await changedPaths(world.sources.get("org/globs")!.path, {
      ...globs,
      pathspecs: ["[ab]", "docs/*"],
    });
    assertEquals(read.map((change) => change.path), ["[ab]/open.txt", "docs/*/open.md"]);

    const client = await connectInProcess(world.handle);
    const fetchPath = inProcessFetch(world.handle);
    const mcpDiff = async (repo: string, range: object, paths?: string[]) =>
      JSON.parse(
        await callText(client, "diff", { repo, ...range, first: 50, ...(paths ? { paths } : {}) }),
      ).changes.map((change: { path: string }) => change.path);
    const apiDiff = async (
      repo: string,
      range: { base: string; head: string },
      paths: string[],
    ) => {
      const response = await fetchPath(`/sourcegraph/v1/repo/diff?repo=${repo}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ Base: range.base, Head: range.head, First: 50, Paths: paths }),
      });
      const answer = await response.json();
      return (answer.Changes ?? answer.Meta).map((change: { Path: string }) => change.Path);
    };
    try {
      // Through the groups: their folders only.
      assertEquals(await mcpDiff("org/globs", globs), ["[ab]/open.txt", "docs/*/open.md"]);
      assertEquals(await mcpDiff("org/globs", globs, ["docs"]), ["docs/*/open.md"]);
      assertEquals(await mcpDiff("org/globs", globs, ["[ab]"]), ["[ab]/open.txt"]);
      // Without groups, the folders a caller names are those folders.
      assertEquals(await mcpDiff("org/plain", plain, ["[ab]"]), ["[ab]/open.txt"]);
      assertEquals(await mcpDiff("org/plain", plain, ["docs/*"]), ["docs/*/open.md"]);
      assertEquals(await mcpDiff("org/plain", plain, ["*"]), []);
      assertEquals(await apiDiff("org/plain", plain, ["[ab]"]), ["[ab]/open.txt"]);
      assertEquals(await apiDiff("org/plain", plain, ["docs/*"]), ["docs/*/open.md"]);
      assertEquals(await apiDiff("org/globs", globs, ["docs"]), ["docs/*/open.md"]);
    } finally {
      await client.close();
    }
  }, WORLD));
