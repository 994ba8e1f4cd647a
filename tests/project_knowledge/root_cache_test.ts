import { join } from "node:path";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import { FakeRunner, ProtocolViolation } from "../support/fake_runner.ts";
import { createRepo, tempDir } from "../support/git_repo.ts";
import { type KnowledgeProject, withProject, withProvider } from "../support/knowledge_project.ts";

const FILES = { "src/app.md": "zebracorn lives here\n" };
const IN_PROCESS = { inProcess: true };

async function admissionError(
  project: KnowledgeProject,
  extra: Parameters<KnowledgeProject["launch"]>[0],
) {
  const error = await FakeRunner.admit(project.launch(extra)).then(
    async (runner) => {
      await runner.kill();
      return null;
    },
    (error) => error,
  );
  assert(error instanceof ProtocolViolation, `admission should fail: ${String(error)}`);
  assertEquals(error.code, "plugin_initialize_invalid");
  assert(!error.message.includes(project.parent), "no host paths in diagnostics");
  return error.message;
}

// Which folder may be the root is the provider's logic: three refusals serve its code in this
// process; / is refused by a real provider allowed to read it.
Deno.test("root: a subdirectory, a non-repository, the home folder and / are refused", () =>
  withProject(FILES, async (project) => {
    const sub = join(project.repo.path, "src");
    assertIncludes(await admissionError(project, { ...IN_PROCESS, cwd: sub }), "root_refused");
    const plain = join(project.parent, "plain");
    await Deno.mkdir(plain);
    assertIncludes(
      await admissionError(project, { ...IN_PROCESS, cwd: plain }),
      "not a git working tree",
    );
    assertIncludes(
      await admissionError(project, { ...IN_PROCESS, home: project.repo.path }),
      "home folder",
    );
    assertIncludes(await admissionError(project, { cwd: "/", readRoot: "/" }), "filesystem root");
  }));

Deno.test("root: a symlink path to the work tree is refused", () =>
  withProject(FILES, async (project) => {
    const link = join(project.parent, "link");
    await Deno.symlink(project.repo.path, link);
    // Read permission names the symlink: the real root cannot be inspected.
    assertIncludes(
      await admissionError(project, { cwd: link, env: { PWD: link } }),
      "symlink path",
    );
    // Both names permitted: the launcher's PWD reveals the symlink path.
    const both = `${project.repo.path},${link}`;
    const message = await admissionError(project, {
      cwd: link,
      readRoot: both,
      env: { PWD: link },
    });
    assertIncludes(message, "must not be a symlink path");
  }));

Deno.test("root: a linked worktree root is accepted", () =>
  withProject(FILES, async (project) => {
    const worktree = join(project.parent, "wt");
    await project.repo.git("worktree", "add", "-q", "-b", "feature", worktree);
    const runner = await FakeRunner.admit(project.launch({ cwd: worktree }));
    try {
      await runner.ok("index");
      const result = await runner.ok("search", { query: "zebracorn" });
      assertEquals((result.hits as { path: string }[]).map((hit) => hit.path), ["src/app.md"]);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("root: a root folder replaced at the same path is refused on every call", () =>
  withProvider(FILES, async (runner, project) => {
    await runner.ok("index");
    await Deno.rename(project.repo.path, join(project.parent, "moved"));
    await createRepo({ "src/app.md": "zebracorn impostor\n" }, {
      parent: project.parent,
      name: "project",
    });
    for (
      const [tool, args] of [
        ["search", { query: "zebracorn" }],
        ["status", {}],
        ["index", { mode: "refresh" }],
        ["read", { path: "src/app.md", source_hash: "0".repeat(64) }],
      ] as const
    ) {
      assertEquals(await runner.errorCode(tool, args), "root_changed", tool);
    }
  }));

// Where the cache may be is the provider's logic (its checks run before anything is written):
// these cases serve its code in this process.
Deno.test("cache: inside the project (even if ignored) is refused", () =>
  withProject({ ...FILES, ".gitignore": ".cache/\n" }, async (project) => {
    const inside = join(project.repo.path, ".cache");
    await Deno.mkdir(inside, { mode: 0o700 });
    const message = await admissionError(project, { ...IN_PROCESS, cacheBase: inside });
    assertIncludes(message, "inside the project");
  }));

Deno.test("cache: a non-private, foreign-mode or symlinked cache folder is refused", () =>
  withProject(FILES, async (project) => {
    const folder = join(project.cacheBase, "webcodex-project-knowledge");
    await Deno.mkdir(folder, { mode: 0o755 });
    await Deno.chmod(folder, 0o755);
    assertIncludes(await admissionError(project, IN_PROCESS), "cache_unavailable");
    await Deno.remove(folder);
    const elsewhere = await tempDir();
    try {
      await Deno.chmod(elsewhere, 0o700);
      await Deno.symlink(elsewhere, folder);
      assertIncludes(await admissionError(project, IN_PROCESS), "cache_unavailable");
      await Deno.remove(folder);
      // A symlinked cache base is refused as well.
      const linkedBase = join(project.parent, "linked-cache");
      await Deno.symlink(elsewhere, linkedBase);
      assertIncludes(
        await admissionError(project, { ...IN_PROCESS, cacheBase: linkedBase }),
        "cache_unavailable",
      );
      const names = [...Deno.readDirSync(elsewhere)].map((entry) => entry.name);
      assert(!names.includes("webcodex-project-knowledge"), "nothing left through the link");
    } finally {
      await Deno.remove(elsewhere, { recursive: true });
    }
  }));

Deno.test("cache: folders are 0700, the index 0600, and no result names the cache or host paths", () =>
  withProject(FILES, async (project) => {
    const runner = await project.admit();
    const outputs: string[] = [];
    try {
      for (
        const [tool, args] of [
          ["status", {}],
          ["index", {}],
          ["index", { mode: "refresh" }],
          ["status", {}],
          ["search", { query: "zebracorn" }],
          ["read", { path: "src/app.md", source_hash: "0".repeat(64) }],
        ] as const
      ) {
        outputs.push(JSON.stringify(await runner.call(tool, args)));
      }
      const folder = project.cacheFolder;
      assertEquals(
        Deno.statSync(join(project.cacheBase, "webcodex-project-knowledge")).mode! & 0o777,
        0o700,
      );
      assertEquals(Deno.statSync(folder).mode! & 0o777, 0o700);
      assertEquals(Deno.statSync(join(folder, "index.sqlite3")).mode! & 0o777, 0o600);
      assertEquals([...Deno.readDirSync(folder)].map((e) => e.name), ["index.sqlite3"]);
      for (const output of outputs) {
        assert(!output.includes(project.cacheBase), "cache path leaked");
        assert(!output.includes(project.parent), "host path leaked");
      }
    } finally {
      await runner.kill();
    }
  }));

// The checks on the index file are the provider's logic: its code serves in this process.
Deno.test("cache: an index file swapped for a symlink or hardlink, or made readable to others, is refused", () =>
  withProvider(FILES, async (runner, project) => {
    await runner.ok("index");
    const index = join(project.cacheFolder, "index.sqlite3");
    const saved = join(project.parent, "saved.sqlite3");
    await Deno.rename(index, saved);
    await Deno.symlink(saved, index);
    assertEquals(await runner.errorCode("status"), "cache_unavailable");
    assertEquals(await runner.errorCode("search", { query: "zebracorn" }), "cache_unavailable");
    assertEquals(await runner.errorCode("index", { mode: "refresh" }), "cache_unavailable");
    await Deno.remove(index);
    await Deno.link(saved, index);
    assertEquals(await runner.errorCode("status"), "cache_unavailable");
    await Deno.remove(saved);
    await Deno.chmod(index, 0o644);
    assertEquals(await runner.errorCode("search", { query: "zebracorn" }), "cache_unavailable");
    // Removing the derived file discards the index; rebuild starts anew.
    await Deno.remove(index);
    assertEquals((await runner.ok("status")).indexed, false);
    await runner.ok("index");
    assertEquals((await runner.ok("status")).indexed, true);
  }, { inProcess: true }));
