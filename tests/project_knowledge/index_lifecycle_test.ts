import { openProjectRoot } from "../../project_knowledge/project/project_root.ts";
import { prepareCacheDir, rootHash } from "../../project_knowledge/project/cache_dir.ts";
import { runIndex } from "../../project_knowledge/index/indexer.ts";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { type KnowledgeProject, withProject, withProvider } from "../support/knowledge_project.ts";
import type { FakeRunner } from "../support/fake_runner.ts";

const MARKER = "zebracorn";
// The cases about the index's lifecycle serve the provider in this process;
// the budget variable and the launch without the program folders are
// properties of the real process and keep it.
const IN_PROCESS = { inProcess: true };

// The budget case: about one clock reading per source, so a budget of 50 readings indexes a
// little under half of 100 sources per call (three calls in all), past the 20 hits a search shows.
const WORK_FILES = 100;
const WORK_BUDGET_TICKS = 50;

function filler(i: number): string {
  return Array.from({ length: 24 }, (_, l) => `w${(i * 31 + l) % 49999}\n`).join("");
}

function manyFiles(
  count: number,
  body = (i: number) => `${MARKER} file ${i}\n`,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`docs/f${String(i).padStart(5, "0")}.md`] = body(i);
  return files;
}

function indexPath(project: KnowledgeProject): string {
  return join(project.cacheFolder, "index.sqlite3");
}

function withDatabase<T>(project: KnowledgeProject, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(indexPath(project));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function chunkIds(project: KnowledgeProject): Map<string, number[]> {
  return withDatabase(project, (db) => {
    const rows = db.prepare(
      "SELECT s.path AS path, c.id AS id FROM chunks c JOIN sources s ON s.id = c.source_id ORDER BY c.id",
    ).all() as { path: string; id: number }[];
    const byPath = new Map<string, number[]>();
    for (const row of rows) byPath.set(row.path, [...byPath.get(row.path) ?? [], row.id]);
    return byPath;
  });
}

async function hitCount(runner: FakeRunner, query = MARKER): Promise<number> {
  return ((await runner.ok("search", { query, limit: 20 })).hits as unknown[]).length;
}

Deno.test("refresh reuses unchanged chunk and FTS row ids, updates changed and adds new sources", () =>
  withProvider({
    "a.md": `${MARKER} alpha\n`,
    "b.md": `${MARKER} beta\n`,
    "c.md": `${MARKER} gamma\n`,
  }, async (runner, project) => {
    const first = await runner.ok("index");
    assertEquals([first.mode, first.updated_files, first.reused_files], ["rebuild", 3, 0]);
    const before = chunkIds(project);
    await project.repo.write({ "b.md": `${MARKER} beta changed\n`, "d.md": `${MARKER} delta\n` });
    await project.repo.git("add", "d.md");
    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals(
      [refresh.mode, refresh.reused_files, refresh.updated_files, refresh.deleted_files],
      ["refresh", 2, 2, 0],
    );
    assertEquals([refresh.indexed_files, refresh.remaining_files, refresh.stop_reason], [
      4,
      0,
      "complete",
    ]);
    const after = chunkIds(project);
    assertEquals(after.get("a.md"), before.get("a.md"));
    assertEquals(after.get("c.md"), before.get("c.md"));
    assert(after.get("b.md")![0] !== before.get("b.md")![0], "changed source got new rows");
    // The FTS rows of reused chunks are the same rows: they still match.
    const hits = (await runner.ok("search", { query: "gamma" })).hits as { path: string }[];
    assertEquals(hits.map((hit) => hit.path), ["c.md"]);
    assertEquals(await hitCount(runner, "beta changed"), 1);
    // A no-change refresh reuses everything.
    const again = await runner.ok("index", { mode: "refresh" });
    assertEquals([again.reused_files, again.updated_files, again.deleted_files], [4, 0, 0]);
    // Rebuild starts anew.
    const rebuild = await runner.ok("index", { mode: "rebuild" });
    assertEquals([rebuild.mode, rebuild.reused_files, rebuild.updated_files], ["rebuild", 0, 4]);
  }, IN_PROCESS));

Deno.test("refresh removes deleted and newly excluded sources before candidate work", () =>
  withProvider({
    "keep.md": `${MARKER}\n`,
    "gone.md": `${MARKER}\n`,
    "hide.md": `${MARKER}\n`,
    "bin.md": `${MARKER}\n`,
  }, async (runner, project) => {
    await runner.ok("index");
    await project.repo.git("rm", "-q", "gone.md");
    await project.repo.git("mv", "hide.md", ".hide.md");
    await project.repo.write({ "bin.md": new Uint8Array([0, 1, 2]) });
    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals([refresh.indexed_files, refresh.deleted_files, refresh.skipped_files], [
      1,
      3,
      1,
    ]);
    assertEquals(await hitCount(runner), 1);
  }, IN_PROCESS));

Deno.test("no-cache refresh builds the index", () =>
  withProvider({ "a.md": `${MARKER}\n` }, async (runner) => {
    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals([refresh.mode, refresh.indexed_files, refresh.updated_files], ["refresh", 1, 1]);
  }, IN_PROCESS));

Deno.test("the work budget publishes partial progress; refresh resumes from a persistent cursor across restarts", () =>
  withProject(
    manyFiles(WORK_FILES, (i) => `${MARKER} file ${i}\n${filler(i)}`),
    async (project) => {
      const root = await openProjectRoot({ cwd: project.repo.path });
      const target = {
        root,
        cache: prepareCacheDir(project.cacheBase, root.path),
        rootHash: rootHash(root.path),
      };
      // Each call runs as a fresh process would (all state is in the cache), with a clock that
      // advances 1 ms at every reading: the budget covers the same work however busy the machine.
      const call = (mode: "rebuild" | "refresh") => {
        let now = 0;
        return runIndex(target, { mode, budgetMs: WORK_BUDGET_TICKS, clock: () => (now += 1) });
      };
      const first = await call("rebuild");
      assertEquals(first.stop_reason, "time_budget");
      assert(first.indexed_files > 0, "some progress was published");
      assertEquals(first.indexed_files + (first.remaining_files as number), WORK_FILES);
      assertEquals(first.unprocessed_files, first.remaining_files);
      let runner = await project.admit(IN_PROCESS);
      try {
        assertEquals(await hitCount(runner, "file"), 20, "the partial index is searchable");
      } finally {
        await runner.kill();
      }
      let remaining = first.remaining_files as number;
      let calls = 1;
      while (remaining > 0) {
        const step = await call("refresh");
        calls++;
        assert(
          (step.remaining_files as number) < remaining,
          `every call makes progress: ${JSON.stringify(step)}`,
        );
        assert((step.updated_files as number) > 0);
        remaining = step.remaining_files as number;
        assertEquals(step.stop_reason, remaining === 0 ? "complete" : "time_budget");
        assert(calls < 60, "refresh converges");
      }
      // The provider sees the finished index; a finished cycle starts another validation cycle.
      runner = await project.admit(IN_PROCESS);
      try {
        const status = await runner.ok("status");
        assertEquals([status.indexed_files, status.remaining_files, status.unprocessed_files], [
          WORK_FILES,
          0,
          0,
        ]);
        const next = await runner.ok("index", { mode: "refresh" });
        assert((next.reused_files as number) > 0);
        assertEquals(next.updated_files, 0);
      } finally {
        await runner.kill();
      }
    },
  ));

Deno.test("the provider honours PROJECT_KNOWLEDGE_INDEX_BUDGET_MS: a budget spent before any work is budget_exhausted", () =>
  withProject(manyFiles(5), async (project) => {
    // Listing the tracked files alone takes longer than 1 ms on any machine.
    const runner = await project.admit({
      allowEnv: ["PROJECT_KNOWLEDGE_INDEX_BUDGET_MS"],
      env: { PROJECT_KNOWLEDGE_INDEX_BUDGET_MS: "1" },
    });
    try {
      assertEquals(await runner.errorCode("index"), "budget_exhausted");
    } finally {
      await runner.kill();
    }
  }));

Deno.test("failed rebuild and refresh keep the last published index", () =>
  withProvider({ "a.md": `${MARKER} a\n`, "b.md": `${MARKER} b\n` }, async (runner, project) => {
    await runner.ok("index");
    const published = await runner.ok("status");
    const gitIndex = join(project.repo.path, ".git", "index");
    const saved = await Deno.readFile(gitIndex);
    await Deno.writeTextFile(gitIndex, "garbage, not an index");
    await project.repo.write({ "c.md": `${MARKER} c\n` });
    assertEquals(await runner.errorCode("index"), "git_failed");
    assertEquals(await runner.errorCode("index", { mode: "refresh" }), "git_failed");
    assertEquals(await runner.ok("status"), published);
    await Deno.writeFile(gitIndex, saved);
    assertEquals(await hitCount(runner), 2);

    // A root-identity failure keeps it too.
    const moved = join(project.parent, "moved");
    await Deno.rename(project.repo.path, moved);
    await Deno.mkdir(project.repo.path);
    assertEquals(await runner.errorCode("index"), "root_changed");
    await Deno.remove(project.repo.path);
    await Deno.rename(moved, project.repo.path);
    assertEquals(await runner.ok("status"), published);
    assertEquals([...Deno.readDirSync(project.cacheFolder)].map((e) => e.name), [
      "index.sqlite3",
    ]);
  }, IN_PROCESS));

Deno.test("Git output over 8 MiB fails without replacing the previous index", () =>
  withProvider({ "a.md": `${MARKER}\n` }, async (runner, project) => {
    await runner.ok("index");
    const published = await runner.ok("status");
    const blob = await project.repo.git("hash-object", "-w", "a.md");
    // 2,500 entries with 4,000-byte names: about 10 MiB of ls-files output, no files needed.
    const lines: string[] = [];
    for (let i = 0; i < 2_500; i++) {
      lines.push(`100644 ${blob}\tlong/${"n".repeat(3_990)}${i}.md`);
    }
    await project.repo.git("update-index", "--index-info").catch(() => "");
    const child = new Deno.Command("git", {
      args: ["update-index", "--index-info"],
      cwd: project.repo.path,
      stdin: "piped",
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
    await writer.close();
    assert((await child.status).success);
    assertEquals(await runner.errorCode("index"), "git_output_limit");
    assertEquals(await runner.errorCode("index", { mode: "refresh" }), "git_output_limit");
    assertEquals(await runner.ok("status"), published);
  }, IN_PROCESS));

Deno.test("malformed metadata, broken bookkeeping and impossible line coordinates are known rebuild errors", () =>
  withProject({ "a.md": `${MARKER} a\n`, "b.md": `${MARKER} b\nline two\n` }, async (project) => {
    const runner = await project.admit(IN_PROCESS);
    const corruptions: [string, (db: DatabaseSync) => void, string[]][] = [
      [
        "malformed coverage",
        (db) => db.exec(`UPDATE meta SET value = '{"broken' WHERE key = 'coverage'`),
        ["status", "search", "refresh"],
      ],
      [
        "negative count",
        (db) =>
          db.exec(`UPDATE meta SET value = json_set(value, '$.chunks', -1) WHERE key = 'coverage'`),
        ["status", "search", "refresh"],
      ],
      ["unknown format", (db) => db.exec(`UPDATE meta SET value = '7' WHERE key = 'format'`), [
        "status",
        "search",
        "refresh",
      ]],
      ["missing bookkeeping", (db) => db.exec("DROP TABLE pending"), [
        "status",
        "search",
        "refresh",
      ]],
      ["foreign root", (db) => db.exec(`UPDATE meta SET value = 'other' WHERE key = 'root_hash'`), [
        "status",
        "search",
        "refresh",
      ]],
      ["end past the source", (db) => db.exec("UPDATE chunks SET end_line = 99"), [
        "search",
        "refresh",
      ]],
      ["start before line one", (db) => db.exec("UPDATE chunks SET start_line = 0"), [
        "search",
        "refresh",
      ]],
      [
        "chunk without terms row",
        (db) => db.exec("DELETE FROM chunks WHERE id = (SELECT min(id) FROM chunks)"),
        ["search", "refresh"],
      ],
    ];
    try {
      for (const [label, corrupt, tools] of corruptions) {
        await runner.ok("index");
        withDatabase(project, corrupt);
        for (const tool of tools) {
          const [name, args] = tool === "refresh"
            ? ["index", { mode: "refresh" }]
            : tool === "search"
            ? ["search", { query: MARKER }]
            : ["status", {}];
          assertEquals(await runner.errorCode(name, args), "rebuild_required", `${label}: ${tool}`);
        }
      }
      // Not a database at all.
      await Deno.writeFile(indexPath(project), crypto.getRandomValues(new Uint8Array(8192)));
      assertEquals(await runner.errorCode("status"), "rebuild_required");
      assertEquals(await runner.errorCode("search", { query: MARKER }), "rebuild_required");
      // The provider kept serving throughout, and rebuild recovers.
      await runner.ok("index", { mode: "rebuild" });
      assertEquals(await hitCount(runner), 2);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("a format-1 cache stays readable for status and search; its first refresh builds format 3", () =>
  withProvider({ "a.md": `${MARKER} a\n`, "b.md": `${MARKER} b\n` }, async (runner, project) => {
    await runner.ok("index");
    withDatabase(project, (db) => {
      db.exec("DROP TABLE pending");
      db.exec(`UPDATE meta SET value = '1' WHERE key = 'format'`);
      db.exec(
        `UPDATE meta SET value = json_remove(value, '$.mode', '$.reused_files', '$.updated_files',
        '$.deleted_files', '$.remaining_files') WHERE key = 'coverage'`,
      );
      db.exec(`DELETE FROM meta WHERE key IN ('cursor', 'cycle_state')`);
    });
    const status = await runner.ok("status");
    assertEquals(status.format, 1);
    assertEquals(status.indexed_files, 2);
    assert(!("remaining_files" in status), "format 1 has no incremental fields");
    assertEquals(await hitCount(runner), 2);
    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals([refresh.format, refresh.mode, refresh.updated_files, refresh.reused_files], [
      3,
      "refresh",
      2,
      0,
    ]);
    assertEquals((await runner.ok("status")).format, 3);
  }, IN_PROCESS));

Deno.test("a format-2 cache (one term column) stays searchable; its first refresh rebuilds it as format 3", () =>
  withProvider({
    "a.md": `${MARKER} a
`,
    "b.md": `${MARKER} b
`,
  }, async (runner, project) => {
    await runner.ok("index");
    withDatabase(project, (db) => {
      // The previous release's layout: one term column, the default ranking.
      const chunks = db.prepare("SELECT id FROM chunks").all() as { id: number }[];
      db.exec("DROP TABLE chunk_terms");
      db.exec(
        "CREATE VIRTUAL TABLE chunk_terms USING fts5(terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')",
      );
      const insert = db.prepare("INSERT INTO chunk_terms(rowid, terms) VALUES (?, ?)");
      for (const { id } of chunks) insert.run(id, MARKER);
      db.exec(`UPDATE meta SET value = '2' WHERE key = 'format'`);
    });
    assertEquals((await runner.ok("status")).format, 2);
    assertEquals(await hitCount(runner), 2, "searched through its one column");
    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals([refresh.format, refresh.updated_files, refresh.reused_files], [3, 2, 0]);
    assertEquals((await runner.ok("status")).format, 3);
    assertEquals(await hitCount(runner), 2);
    withDatabase(project, (db) => {
      const columns = (db.prepare("PRAGMA table_info(chunk_terms)").all() as { name: string }[])
        .map((column) => column.name);
      assertEquals(columns, ["terms", "names", "path"]);
    });
  }, IN_PROCESS));

Deno.test("full-size punctuation-heavy sources index, search and read", () => {
  const punctuation = "!@#$%^&*()_+-=[]{}|;':\",./<>?`~\\";
  const line = (i: number) => `${punctuation.repeat(100).slice(0, 4000)} ${i}`;
  let body = "";
  for (let i = 0; body.length + 4100 < 256 * 1024; i++) body += line(i) + "\n";
  return withProvider({
    "punct.txt": body,
    "max.md": `${MARKER}\n${"=".repeat(4096)}\n${"-".repeat(4097)}\n`,
  }, async (runner) => {
    const index = await runner.ok("index");
    assertEquals(index.indexed_files, 2);
    assertEquals(index.oversized_lines_omitted, 1, "only the line past 4 KiB");
    const search = await runner.call("search", { query: punctuation.repeat(300) });
    assert(search.dispatch === "completed" && "result" in search && !search.result.isError);
    const hits = (await runner.ok("search", { query: "42" })).hits as {
      path: string;
      source_hash: string;
    }[];
    assert(hits.length > 0);
    const read = await runner.ok("read", {
      path: "punct.txt",
      source_hash: hits[0].source_hash,
      end_line: 200,
    });
    assert((read.end_line as number) >= 2);
    assertEquals(read.truncated, true);
  }, IN_PROCESS);
});

Deno.test("without read access to the program folders, indexing runs inline with the same result", () =>
  withProject(manyFiles(100, (i) => `${MARKER} file ${i} parseHTTPRequest\n`), async (project) => {
    const inline = await project.admit({ noProgramRead: true });
    let inlineIndex: Record<string, unknown>;
    try {
      inlineIndex = await inline.ok("index");
      assertEquals(await hitCount(inline, "parse http request"), 20);
    } finally {
      await inline.kill();
    }
    const inlineIds = chunkIds(project);
    const pooled = await project.admit(IN_PROCESS);
    try {
      const pooledIndex = await pooled.ok("index");
      const counts = (c: Record<string, unknown>) => [c.indexed_files, c.chunks, c.indexed_bytes];
      assertEquals(counts(pooledIndex), counts(inlineIndex));
      assertEquals(chunkIds(project), inlineIds);
    } finally {
      await pooled.kill();
    }
  }));
