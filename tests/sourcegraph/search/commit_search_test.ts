/**
 * The commit search's bounds, on real Git histories: a page ends at its
 * deadline (an injected clock) with the position to continue from, and the
 * pages together select what `git log -G`/`-S` select; the commits of a
 * first batch whose check alone takes a whole call are named and passed, so
 * every page moves on; a
 * patch past its bound is named unchecked without being read whole, a huge
 * line is held only to its bound; hostile messages and author names are
 * kept to their bounds and the commits after them still read; a log past
 * its bounds is COMMITS_TOO_COSTLY; a log is read once per set of heads.
 */

import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { createRepo, git, removeDir, type TestRepo } from "../../support/git_repo.ts";
import {
  CommitLogs,
  MESSAGE_MAX_CHARS,
  readCommitLog,
} from "../../../sourcegraph/git/commit_log.ts";
import {
  changedLineCommits,
  LINE_MAX_BYTES,
  PatchScanner,
} from "../../../sourcegraph/git/commit_patches.ts";
import {
  type CommitFilters,
  commitsPage,
  compileLineTest,
  FIRST_BATCH,
} from "../../../sourcegraph/search/commit_search.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";

const NONE: CommitFilters = {
  message: null,
  author: null,
  since: null,
  until: null,
  addedOrRemoved: null,
  changed: null,
};

async function withRepo(fn: (repo: TestRepo) => Promise<void>): Promise<void> {
  const repo = await createRepo({ "a.txt": "start\n" });
  try {
    await fn(repo);
  } finally {
    await removeDir(repo.path.replace(/\/repo$/, ""));
  }
}

// Runs `git fast-import` on `lines`. With glibc's default trim threshold it gave memory back
// and took it again at every commit (four brk calls a commit: 5 processor-s for 10,000 commits
// instead of 0.1), so the threshold is raised for it.
async function fastImport(repo: TestRepo, lines: string[]): Promise<void> {
  const child = new Deno.Command("git", {
    args: ["fast-import", "--quiet"],
    cwd: repo.path,
    env: {
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      MALLOC_TRIM_THRESHOLD_: "268435456",
    },
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\n")));
  await writer.close();
  const out = await child.output();
  assert(out.success, new TextDecoder().decode(out.stderr));
}

// Forty commits on main, every third adding a line holding `needle` (made at once by
// fast-import: one Git process instead of three a commit).
async function fortyCommits(repo: TestRepo): Promise<string> {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    const message = `commit ${i}\n`;
    const content = `${i % 3 === 0 ? "needle" : "hay"} ${i}\n`;
    lines.push(
      "commit refs/heads/main",
      `committer Test <t@example.invalid> ${1767225600 + i} +0000`,
      `data ${message.length}`,
      message,
      ...(i === 0 ? ["from refs/heads/main^0"] : []),
      `M 100644 inline f${i % 5}.txt`,
      `data ${content.length}`,
      content,
    );
  }
  await fastImport(repo, lines);
  return await repo.git("rev-parse", "main");
}

async function gitLog(repo: TestRepo, args: string[]): Promise<string[]> {
  const out = await git(repo.path, ["log", "--format=%H", ...args]);
  return out === "" ? [] : out.split("\n");
}

Deno.test("commit search: past its deadline a page stops where it is, and the pages select what git log -G does", () =>
  withRepo(async (repo) => {
    const head = await fortyCommits(repo);
    const log = await readCommitLog(repo.path, { heads: [head] });
    const filters = { ...NONE, changed: compileLineTest("^needle \\d+$") };
    // The clock moves 20 s per reading and a page has 50 s: one batch a page, Git given 10 s.
    let clock = 0;
    const now = () => (clock += 20_000);
    const found: string[] = [];
    let from: number | null = 0;
    let pages = 0;
    let partial = 0;
    while (from !== null) {
      const page = await commitsPage(log, {
        mirror: repo.path,
        walk: null,
        filters,
        paths: [],
        from,
        first: 100,
        deadline: clock + 50_000,
        now,
      });
      if (page.partial) partial++;
      assertEquals(page.unchecked, []);
      found.push(...page.commits.map((entry) => entry.commit));
      assert(page.next === null || page.next > from, "every page moves on");
      from = page.next;
      pages++;
    }
    assert(partial > 0 && pages > 1, `${pages} pages, ${partial} partial`);
    assertEquals(found, await gitLog(repo, ["-E", "-G^needle [0-9]+$", head]));
    assert(found.length > 10, `${found.length}`);
  }));

Deno.test("commit search: a first batch whose check alone takes the whole call is named unchecked and passed", () =>
  withRepo(async (repo) => {
    const head = await fortyCommits(repo);
    const log = await readCommitLog(repo.path, { heads: [head] });
    // The page's time is up when its first batch goes to Git: Git is stopped at once.
    const page = await commitsPage(log, {
      mirror: repo.path,
      walk: null,
      filters: { ...NONE, addedOrRemoved: "needle" },
      paths: [],
      from: 3,
      first: 10,
      deadline: 0,
      now: () => 0,
    });
    assertEquals(page.partial, true);
    assertEquals(page.unchecked, log.commits.slice(3, 3 + FIRST_BATCH));
    assertEquals(page.next, 3 + FIRST_BATCH);
  }));

Deno.test("commit search: a patch past its bound is not read whole and is named unchecked; a huge line is held to its bound", () =>
  withRepo(async (repo) => {
    await repo.write({ "small.txt": "needle\n" });
    const small = await repo.commit("small");
    // One line of 12 MiB (past the default patch bound), then a small commit after it.
    await repo.write({ "huge.txt": `${"x".repeat(12 * 1024 * 1024)} needle\n` });
    const huge = await repo.commit("huge");
    await repo.write({ "after.txt": "needle\n" });
    const after = await repo.commit("after");
    const checked = await changedLineCommits(repo.path, {
      commits: [after, huge, small],
      test: compileLineTest("needle"),
      paths: [],
      timeoutMs: 60_000,
    });
    assertEquals(checked.timedOut, false);
    assertEquals(
      [...checked.outcomes],
      [[after, "match"], [huge, "capped"], [small, "match"]],
    );
    // The scanner never holds more than a line's bound, however long the line.
    const scanner = new PatchScanner(() => false, 64 * 1024 * 1024);
    const header = new TextEncoder().encode(`\x1e${huge}\n\ndiff --git a/h b/h\n@@ -0,0 +1 @@\n+`);
    assert(scanner.push(header));
    const chunk = new Uint8Array(1024 * 1024).fill(0x78);
    for (let i = 0; i < 32; i++) assert(scanner.push(chunk));
    scanner.push(new TextEncoder().encode("\n"));
    assert(scanner.maxHeld <= LINE_MAX_BYTES, `${scanner.maxHeld}`);
    assertEquals([...scanner.finish(true)], [[huge, "none"]]);
    // A bound of 1 KiB: the same patch is capped after reading about that much.
    const bounded = new PatchScanner(() => false, 1024);
    assert(bounded.push(header));
    assertEquals(bounded.push(chunk), false);
    assertEquals([...bounded.finish(false)], [[huge, "capped"]]);
  }));

Deno.test("commit log: a hostile message and author name are kept to their bounds, and later commits still read", () =>
  withRepo(async (repo) => {
    const message = `hostile start\n\n${"m".repeat(4 * 1024 * 1024)}\nhostile end`;
    await repo.write({ "b.txt": "b\n" });
    await Deno.writeTextFile(`${repo.path}/.git/MESSAGE`, message);
    await repo.git("add", "-A");
    await repo.git(
      "commit",
      "-q",
      "--author",
      `${"A".repeat(100_000)} <a@example.com>`,
      "-F",
      ".git/MESSAGE",
    );
    await repo.commit("after the hostile one");
    const head = await repo.git("rev-parse", "HEAD");
    const log = await readCommitLog(repo.path, { heads: [head] });
    assertEquals(log.commits, await gitLog(repo, [head]));
    assertEquals(log.subjects[0], "after the hostile one");
    assert(log.messages[1].length <= MESSAGE_MAX_CHARS, `${log.messages[1].length}`);
    assert(log.authorNames[1].length <= 256, `${log.authorNames[1].length}`);
    assert(log.messages[1].startsWith("hostile start"));
    assertEquals(log.subjects[2], "initial");
    const test = compileLineTest("^hostile (start|end)$");
    assertEquals(test(log.messages[1]), true);
  }));

Deno.test("commit log: past its byte or commit bound a log is COMMITS_TOO_COSTLY", () =>
  withRepo(async (repo) => {
    const head = await fortyCommits(repo);
    for (
      const limits of [{ maxBytes: 1024, maxCommits: 1000 }, { maxBytes: 1e9, maxCommits: 10 }]
    ) {
      const error = await assertRejects(
        () => readCommitLog(repo.path, { heads: [head], limits: { timeoutMs: 60_000, ...limits } }),
        SourcegraphError,
      );
      assertEquals(error.code, "COMMITS_TOO_COSTLY");
    }
  }));

Deno.test("commit logs: a log is read once per set of heads, a moved head reads a new one, and a sync reads it ahead for a searched mirror", () =>
  withRepo(async (repo) => {
    const first = await repo.git("rev-parse", "HEAD");
    const logs = new CommitLogs({ maxEntries: 2 });
    const [a, b] = await Promise.all([logs.log(repo.path, [first]), logs.log(repo.path, [first])]);
    assert(a === b);
    assertEquals(logs.reads, 1);
    const second = await repo.commit("second");
    assertEquals((await logs.log(repo.path, [second])).commits.length, 2);
    assertEquals(logs.reads, 2);
    await logs.log(repo.path, [first]);
    assertEquals(logs.reads, 2, "both kept");
    await logs.pathCommits(repo.path, { heads: [second], paths: ["a.txt"], timeoutMs: 60_000 });
    assertEquals(logs.reads, 3);
    await logs.log(repo.path, [second]);
    assertEquals(logs.reads, 4, "two entries at most: the least recently used went");
    // After a sync: a searched mirror's new log is read at once; another mirror's is not.
    const third = await repo.commit("third");
    logs.refresh(repo.path, [third]);
    assertEquals(logs.reads, 5);
    assertEquals((await logs.log(repo.path, [third])).commits.length, 3);
    assertEquals(logs.reads, 5);
    logs.refresh("/nowhere", [third]);
    assertEquals(logs.reads, 5);
  }));

Deno.test("commit search: a message search over a long log reads the clock between scans and stops at its deadline", () =>
  withRepo(async (repo) => {
    // 10,000 commits made at once by fast-import, each with its own message.
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const message = `commit ${i}\n`;
      lines.push(
        "commit refs/heads/long",
        "committer Test <t@example.invalid> 1767225600 +0000",
        `data ${message.length}`,
        message,
        ...(i === 0 ? ["from refs/heads/main"] : []),
      );
    }
    await fastImport(repo, lines);
    const head = await repo.git("rev-parse", "long");
    const log = await readCommitLog(repo.path, { heads: [head] });
    const filters = { ...NONE, message: compileLineTest("^commit \\d*7$") };
    // One unit per reading, one reading a scan; a page ends past one unit: after two scans.
    let clock = 0;
    const found: string[] = [];
    const starts: number[] = [];
    let from: number | null = 0;
    while (from !== null) {
      starts.push(from);
      const page = await commitsPage(log, {
        mirror: repo.path,
        walk: null,
        filters,
        paths: [],
        from,
        first: 2_000,
        deadline: clock + 1,
        now: () => clock++,
      });
      found.push(...page.commits.map((entry) => entry.commit));
      from = page.next;
    }
    assertEquals(starts, [0, 8192]);
    assertEquals(found, await gitLog(repo, ["-E", "--grep=^commit [0-9]*7$", head]));
    assertEquals(found.length, 1000);
  }));
