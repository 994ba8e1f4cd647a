/**
 * The history pages against a real service in process: the blame view of a
 * file, the commit page, the commits of a path, the Versions tab's history
 * and the listings' last commits. Each is checked against what Git says of
 * the same repository; hostile commit messages and author names render
 * inert; a private repository and a path outside the path groups answer as
 * missing ones do.
 */

import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { git, type TestRepo } from "../../support/git_repo.ts";
import {
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
} from "../../support/in_process_service.ts";
import { pageRequest } from "../../support/page_requests.ts";
import { SharedCases } from "../../support/shared_cases.ts";

export const HISTORY = "org/hist";
export const GROUPS = "org/groups";
// Git ends a name at its first "<", so a name's hostile bytes are quotes, ">" and "&".
export const HOSTILE_AUTHOR = `Eve" onmouseover="alert(1)" O'Brien "Q"> & co`;
export const HOSTILE_SUBJECT = `<script>alert("subject")</script> "quoted" 'single' & more`;

async function commitAs(
  repo: TestRepo,
  message: string,
  options: { author?: string; date?: string } = {},
): Promise<string> {
  await repo.git("add", "-A");
  await repo.git("commit", "-q", "-m", message, ...(options.date ? ["--date", options.date] : []));
  if (options.author === undefined) return await repo.git("rev-parse", "HEAD");
  // Git strips "<" and ">" from a name it is given: the commit is rewritten as bytes.
  const object = (await repo.git("cat-file", "commit", "HEAD")).replace(
    /^author Test </m,
    `author ${options.author} <`,
  );
  const sha = await git(
    repo.path,
    ["hash-object", "-t", "commit", "-w", "--stdin", "--literally"],
    new TextEncoder().encode(object + "\n"),
  );
  await repo.git("update-ref", "HEAD", sha);
  return sha;
}

/** Three commits on `a.ts` (the second by a hostile author), a folder and a rename. */
export async function historyCommits(repo: TestRepo): Promise<void> {
  await repo.write({ "a.ts": "const one = 1;\nconst two = 2;\nconst three = 3;\n" });
  await repo.write({ "src/x.ts": "x\n", "src/y.ts": "y\n", "docs/guide.md": "# Guide\n" });
  await commitAs(repo, "add files", { date: "2026-01-02T00:00:00Z" });
  await repo.write({ "a.ts": "const one = 1;\nconst two = 'two';\nconst three = 3;\n" });
  await repo.write({ "src/x.ts": "x2\n" });
  await commitAs(repo, `${HOSTILE_SUBJECT}\n\nbody <b>bold</b>`, {
    author: HOSTILE_AUTHOR,
    date: "2026-01-03T00:00:00Z",
  });
  await repo.git("mv", "src/y.ts", "src/z.ts");
  await commitAs(repo, "rename y to z", { date: "2026-01-04T00:00:00Z" });
}

// Path groups: docs/ and lib/pub/ visible, secret/ and lib/priv/ hidden.
async function groupCommits(repo: TestRepo): Promise<void> {
  await repo.write({
    "docs/a.md": "a\n",
    "secret/s.md": "s\n",
    "lib/pub/p.md": "p\n",
    "lib/priv/q.md": "q\n",
  });
  await commitAs(repo, "both folders");
  await repo.write({ "secret/s.md": "hidden change\n", "lib/priv/q.md": "hidden q\n" });
  await commitAs(repo, "hidden edit");
}

/** The world of these tests: `org/hist`, `org/groups` (docs only) and a private one. */
export function withHistory(fn: (world: InProcessWorld) => Promise<void>): Promise<void> {
  return withInProcessService(fn, {
    repositories: [
      { name: HISTORY, publicRead: true, files: { "last.txt": "l\n" }, prepare: historyCommits },
      {
        name: GROUPS,
        publicRead: true,
        files: { "docs/last.md": "l\n" },
        prepare: groupCommits,
        pathGroups: [{ name: "docs", paths: ["docs", "lib/pub"] }],
      },
      { name: "org/closed", publicRead: false, files: { "a.txt": "closed secret\n" } },
    ],
  });
}

// The cases on one world of withHistory, run in order (the folder commits' cache first,
// before a page has walked them).
const historyCases = new SharedCases<InProcessWorld>();

Deno.test("history pages on one world of org/hist, org/groups and a private repository", (t) =>
  withHistory((world) => historyCases.run(t, world)));

historyCases.add(
  "listings: a folder page's latest commits are walked once per version and page, then kept",
  async ({ localCalls, heads }) => {
    const request = {
      repo: HISTORY,
      revision: heads.get(HISTORY)!,
      path: "src",
      names: ["x.ts", "z.ts"],
    };
    const first = await localCalls.folderCommits({ kind: "anonymous" }, request);
    assertEquals(Object.keys(first.commits).sort(), ["x.ts", "z.ts"]);
    // The same answer object: kept, not walked again.
    assert(
      first === await localCalls.folderCommits({ kind: "anonymous" }, request),
      "walked again",
    );
    const other = await localCalls.folderCommits({ kind: "anonymous" }, {
      ...request,
      names: ["z.ts"],
    });
    assert(other !== first, "another page of the folder is its own answer");
    assertEquals(other.commits["z.ts"], first.commits["z.ts"]);
  },
);

/** `git log` of the source with `format`, one line per commit. */
export async function gitLog(repo: TestRepo, format: string, ...args: string[]): Promise<string[]> {
  return (await repo.git("log", `--format=${format}`, ...args)).split("\n").filter(Boolean);
}

// A tag with an attribute named on…: every value before it is skipped whole.
const EVENT_ATTRIBUTE =
  /<[a-z][a-z0-9-]*(\s+[^\s"'=<>\/]+(=("[^"]*"|[^\s"'>]+))?)*\s+on[a-z]+\s*=/i;

// The only script element is the page's own script file, and no tag holds an event attribute.
export function assertInert(body: string, label: string): void {
  assertEquals(body.match(/<script/g)?.length, 1, `${label}: one script element`);
  assert(!EVENT_ATTRIBUTE.test(body), `${label}: an event attribute in a tag`);
}

historyCases.add(
  "blame page: each run of lines names its commit as git blame does, linked, escaped",
  async ({ handle, heads, sources }) => {
    const head = heads.get(HISTORY)!;
    const url = `/sourcegraph/org/hist/-/blame/${head}/a.ts`;
    const answer = await pageRequest(handle, url);
    assertEquals(answer.status, 200, answer.body);
    const blamed = (await sources.get(HISTORY)!.git("blame", "--porcelain", head, "--", "a.ts"))
      .split("\n").filter((line) => /^[0-9a-f]{40} \d+ \d+/.test(line)).map((line) =>
        line.slice(0, 40)
      );
    assertEquals(blamed.length, 3);
    // Each row: its anchor and number; a run's first row its commit's short SHA, linked.
    const rows = [
      ...answer.body.matchAll(/<tr id="L(\d+)"( class="run")?><td class="blame">(.*?)<\/td>/g),
    ];
    assertEquals(rows.map((row) => Number(row[1])), [1, 2, 3]);
    assertEquals(rows.map((row) => row[2] !== undefined), [true, true, true]);
    for (const [i, row] of rows.entries()) {
      assertIncludes(row[3], `href="/sourcegraph/org/hist/-/commit/${blamed[i]}"`);
      assertIncludes(row[3], `<code>${blamed[i].slice(0, 7)}</code>`);
    }
    assertIncludes(rows[0][3], "add files");
    assertIncludes(rows[0][3], "2026-01-02");
    assertIncludes(rows[1][3], "2026-01-03");
    // The hostile author and subject are text.
    assertIncludes(
      rows[1][3],
      "Eve&quot; onmouseover=&quot;alert(1)&quot; O&#39;Brien &quot;Q&quot;&gt; &amp; co",
    );
    assertIncludes(rows[1][3], "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt;");
    assertInert(answer.body, url);
    // The code is highlighted and the lines are there.
    assertIncludes(answer.body, '<span class="hljs-keyword">const</span>');
    // The file page links to its blame.
    const file = await pageRequest(handle, `/sourcegraph/org/hist/-/blob/${head}/a.ts`);
    assertIncludes(file.body, `href="${url}"`);
  },
);

historyCases.add(
  "blame page: a line range, a branch, a folder, and what cannot be blamed",
  async ({ handle, heads }) => {
    const head = heads.get(HISTORY)!;
    const base = `/sourcegraph/org/hist/-/blame`;
    const ranged = await pageRequest(handle, `${base}/${head}/a.ts?start=2&end=3`);
    assertEquals([...ranged.body.matchAll(/<tr id="L(\d+)"/g)].map((m) => m[1]), ["2", "3"]);
    const branch = await pageRequest(handle, `${base}/main/a.ts?start=2`);
    assertEquals(branch.status, 302);
    assertEquals(branch.headers.get("location"), `${base}/${head}/a.ts?start=2`);
    const folder = await pageRequest(handle, `${base}/${head}/src`);
    assertEquals(folder.status, 302);
    assertEquals(folder.headers.get("location"), `/sourcegraph/org/hist/-/blob/${head}/src`);
    const past = await pageRequest(handle, `${base}/${head}/a.ts?start=9`);
    assertEquals(past.status, 200);
    assertIncludes(past.body, "LINE_RANGE_NOT_SATISFIABLE");
    const missing = await pageRequest(handle, `${base}/${head}/nothing.ts`);
    assertEquals(missing.status, 404);
  },
);

historyCases.add(
  "blame page: a private repository and a path outside the path groups answer as missing ones",
  async ({ handle, heads }) => {
    const closed = await pageRequest(handle, "/sourcegraph/org/closed/-/blame/main/a.txt");
    const nowhere = await pageRequest(handle, "/sourcegraph/org/nowhere/-/blame/main/a.txt");
    assertEquals(closed.status, 404);
    assertEquals(closed.body, nowhere.body);
    const withKey = await pageRequest(handle, "/sourcegraph/org/closed/-/blame/main/a.txt", {
      token: WORLD_KEY,
    });
    assertEquals(withKey.status, 302);
    const head = heads.get(GROUPS)!;
    const hidden = await pageRequest(handle, `/sourcegraph/org/groups/-/blame/${head}/secret/s.md`);
    const absent = await pageRequest(
      handle,
      `/sourcegraph/org/groups/-/blame/${head}/secret/no.md`,
    );
    assertEquals(hidden.status, 404);
    assertEquals(hidden.body, absent.body);
    assert(!hidden.body.includes("hidden edit"), hidden.body);
    const visible = await pageRequest(handle, `/sourcegraph/org/groups/-/blame/${head}/docs/a.md`);
    assertEquals(visible.status, 200);
  },
);

historyCases.add(
  "commit page: message, author, parents, changed files and diffs as Git has them, escaped",
  async ({ handle, sources }) => {
    const source = sources.get(HISTORY)!;
    // Newest first: the world's "initial", the rename, the hostile commit, the first.
    const [, rename, hostile, first] = await gitLog(source, "%H");
    const url = `/sourcegraph/org/hist/-/commit/${hostile}`;
    const answer = await pageRequest(handle, url);
    assertEquals(answer.status, 200, answer.body);
    assertInert(answer.body, url);
    assertIncludes(answer.body, "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt;");
    assertIncludes(answer.body, "body &lt;b&gt;bold&lt;/b&gt;");
    assertIncludes(answer.body, "Eve&quot; onmouseover=&quot;alert(1)&quot; O&#39;Brien");
    assertIncludes(answer.body, `href="/sourcegraph/org/hist/-/commit/${first}"`);
    const changed = (await source.git("diff", "--name-only", first, hostile)).split("\n");
    assertEquals(
      [...answer.body.matchAll(/<li><a href="#diff-\d+">([^<]*)<\/a>/g)].map((m) => m[1]),
      changed,
    );
    // The diff's rows: old and new numbers, the sign, the code highlighted.
    assertIncludes(
      answer.body,
      '<tr class="del"><td class="num">2</td><td class="num"></td><td><span class="sign">-</span><span class="hljs-keyword">const</span> two = <span class="hljs-number">2</span>;</td></tr>',
    );
    assertIncludes(answer.body, '<tr class="add"><td class="num"></td><td class="num">2</td>');
    // Neither side is a retained version, yet each file links to its pages at both, which serve.
    const aBefore = `/sourcegraph/org/hist/-/blob/${first}/a.ts`;
    const aAfter = `/sourcegraph/org/hist/-/blob/${hostile}/a.ts`;
    assertIncludes(answer.body, `href="${aBefore}"`);
    assertIncludes(answer.body, `href="${aAfter}"`);
    assertIncludes(answer.body, "/sourcegraph/org/hist/-/commits/");
    const before = await pageRequest(handle, aBefore);
    assertEquals(before.status, 200, before.body);
    assertIncludes(before.body, '<span class="hljs-number">2</span>');
    const after = await pageRequest(handle, aAfter);
    assertEquals(after.status, 200, after.body);
    assertIncludes(after.body, "&#39;two&#39;");
    // Its raw bytes, blame and history at that commit too.
    const raw = await pageRequest(handle, `/sourcegraph/org/hist/-/raw/${first}/a.ts`);
    assertEquals([raw.status, raw.body], [200, await source.git("show", `${first}:a.ts`) + "\n"]);
    const blame = await pageRequest(handle, `/sourcegraph/org/hist/-/blame/${first}/a.ts`);
    assertEquals(blame.status, 200, blame.body);
    assertEquals([...blame.body.matchAll(/<tr id="L(\d+)"/g)].length, 3);
    const history = await pageRequest(handle, `/sourcegraph/org/hist/-/commits/${hostile}/a.ts`);
    assertEquals(listedCommits(history.body), [hostile, first]);
    // A rename found as such: "old -> new", before at the old path, after at the new one.
    const renamed = await pageRequest(handle, `/sourcegraph/org/hist/-/commit/${rename}`);
    assertIncludes(renamed.body, 'src/y.ts -&gt; src/z.ts</a> <span class="muted">renamed</span>');
    assert(!renamed.body.includes(">deleted<"), "the rename's old path listed as deleted");
    assertIncludes(renamed.body, `href="/sourcegraph/org/hist/-/blob/${hostile}/src/y.ts"`);
    assertIncludes(renamed.body, `href="/sourcegraph/org/hist/-/blob/${rename}/src/z.ts"`);
    assertIncludes(renamed.body, "Renamed without a change to the content.");
    for (const [at, path] of [[hostile, "src/y.ts"], [rename, "src/z.ts"]]) {
      const side = await pageRequest(handle, `/sourcegraph/org/hist/-/blob/${at}/${path}`);
      assertEquals(side.status, 200, path);
    }
    // An added file links to the commit's side only, a deleted one to the parent's only.
    const added = await pageRequest(handle, `/sourcegraph/org/hist/-/commit/${first}`);
    assert(!added.body.includes(">Before<"), "a root commit's added files have no parent side");
    assertEquals([...added.body.matchAll(/>After</g)].length, 5);
    const root = await pageRequest(handle, `/sourcegraph/org/hist/-/commit/${first}`);
    assertIncludes(root.body, "none (a root commit)");
    assertIncludes(root.body, "5 changed file(s)");
    // A blame's commit link lands on its page.
    assertIncludes(
      (await pageRequest(handle, `/sourcegraph/org/hist/-/blame/${rename}/a.ts`)).body,
      "<h1>",
    );
  },
);

historyCases.add(
  "commit page: only commits of retained versions the caller may see, and of visible paths",
  async ({ handle, sources, heads }) => {
    const unknown = await pageRequest(handle, `/sourcegraph/org/hist/-/commit/${"a".repeat(40)}`);
    assertEquals(unknown.status, 404);
    for (const bad of ["abc", "HEAD", "main", `${"a".repeat(40)}x`]) {
      assertEquals(
        (await pageRequest(handle, `/sourcegraph/org/hist/-/commit/${bad}`)).status,
        404,
      );
    }
    const closedHead = heads.get("org/closed")!;
    const closed = await pageRequest(handle, `/sourcegraph/org/closed/-/commit/${closedHead}`);
    const nowhere = await pageRequest(handle, `/sourcegraph/org/nowhere/-/commit/${closedHead}`);
    assertEquals(closed.status, 404);
    assertEquals(closed.body, nowhere.body);
    const withKey = await pageRequest(handle, `/sourcegraph/org/closed/-/commit/${closedHead}`, {
      token: WORLD_KEY,
    });
    assertEquals(withKey.status, 200);
    // Under path groups: a commit of hidden files only answers as an unknown one.
    const [, hiddenEdit, both] = await gitLog(sources.get(GROUPS)!, "%H");
    const hidden = await pageRequest(handle, `/sourcegraph/org/groups/-/commit/${hiddenEdit}`);
    const random = await pageRequest(handle, `/sourcegraph/org/groups/-/commit/${"b".repeat(40)}`);
    assertEquals(hidden.status, 404);
    assertEquals(hidden.body, random.body);
    const visible = await pageRequest(handle, `/sourcegraph/org/groups/-/commit/${both}`);
    assertEquals(visible.status, 200);
    // A file page at a held commit keeps the path groups and the retained versions' bounds.
    const groupsBlob = `/sourcegraph/org/groups/-/blob/${both}`;
    assertEquals((await pageRequest(handle, `${groupsBlob}/docs/a.md`)).status, 200);
    const hiddenFile = await pageRequest(handle, `${groupsBlob}/secret/s.md`);
    const absentFile = await pageRequest(handle, `${groupsBlob}/secret/none.md`);
    assertEquals(hiddenFile.status, 404);
    assertEquals(hiddenFile.body, absentFile.body);
    const unheld = await pageRequest(handle, `/sourcegraph/org/hist/-/blob/${"a".repeat(40)}/a.ts`);
    assertEquals(unheld.status, 404);
    assertIncludes(unheld.body, "REVISION_NOT_ELIGIBLE");
    const closedBlob = await pageRequest(handle, `/sourcegraph/org/closed/-/blob/${both}/a.txt`);
    const nowhereBlob = await pageRequest(handle, `/sourcegraph/org/nowhere/-/blob/${both}/a.txt`);
    assertEquals(closedBlob.body, nowhereBlob.body);
    assertIncludes(visible.body, "docs/a.md");
    assert(!visible.body.includes("secret"), "a hidden path is named");
    assertIncludes(visible.body, "lib/pub/p.md");
    assert(!visible.body.includes("lib/priv"), "a hidden path is named");
  },
);

Deno.test("commit page: a huge diff is bounded per file and per page, each file saying why it is not shown", () =>
  withInProcessService(async ({ handle, heads }) => {
    const head = heads.get("org/huge")!;
    const answer = await pageRequest(handle, `/sourcegraph/org/huge/-/commit/${head}`);
    assertEquals(answer.status, 200);
    assertIncludes(answer.body, "52 changed file(s)");
    assertIncludes(answer.body, "Diff too large to show (over 128 KiB or 2,000 lines).");
    assertIncludes(answer.body, "Diff not shown: the page&#39;s 1,024 KiB of diffs were spent");
    // The page holds at most the page's budget of diff lines, and their markup.
    assert(answer.body.length < 4 * 1024 * 1024, `${answer.body.length} bytes`);
    assert(!answer.body.includes("h".repeat(200 * 1024)), "the huge line is not on the page");
  }, {
    repositories: [{
      name: "org/huge",
      publicRead: true,
      files: {
        "a_huge.txt": "h".repeat(1024 * 1024) + "\n",
        ...Object.fromEntries(
          Array.from({ length: 51 }, (_, i) => [`f${i}.txt`, `${"y".repeat(60)}\n`.repeat(1500)]),
        ),
      },
    }],
  }));

Deno.test("history pages: an anonymous blame, commit or commits view costs what its tool costs", () =>
  withInProcessService(async ({ handle, heads }) => {
    const head = heads.get("org/open")!;
    for (
      const path of [
        `/sourcegraph/org/open/-/blame/${head}/a.txt`,
        `/sourcegraph/org/open/-/commit/${head}`,
        `/sourcegraph/org/open/-/commits/${head}/a.txt`,
      ]
    ) {
      assertEquals((await pageRequest(handle, path)).status, 200, path);
    }
    // 15 of 17 units spent: a fourth view of 5 is refused, a file page of 1 is not.
    const refused = await pageRequest(handle, `/sourcegraph/org/open/-/commits/${head}`);
    assertEquals(refused.status, 429);
    assertIncludes(refused.body, "RATE_LIMITED");
    const file = await pageRequest(handle, `/sourcegraph/org/open/-/blob/${head}/a.txt`);
    assertEquals(file.status, 200);
  }, { settings: { anonymousPerMinute: 17 }, rateLimitClock: () => 0 }));

// The commits a commits page lists, in order.
function listedCommits(body: string): string[] {
  return [...body.matchAll(/<tr><td><a href="\/sourcegraph\/[^"]*\/-\/commit\/([0-9a-f]{40})"/g)]
    .map((m) => m[1]);
}

historyCases.add(
  "commits page: a file followed across renames, a folder and the version, as git log lists them",
  async ({ handle, heads, sources }) => {
    const head = heads.get(HISTORY)!;
    const source = sources.get(HISTORY)!;
    const base = "/sourcegraph/org/hist/-/commits";
    for (
      const [tail, args] of [
        ["/a.ts", ["--follow", head, "--", "a.ts"]],
        ["/src/z.ts", ["--follow", head, "--", "src/z.ts"]],
        ["/src", [head, "--", "src"]],
        ["", [head]],
      ] as const
    ) {
      const answer = await pageRequest(handle, `${base}/${head}${tail}`);
      assertEquals(answer.status, 200, tail);
      assertEquals(listedCommits(answer.body), await gitLog(source, "%H", ...args), tail);
      assertInert(answer.body, tail);
    }
    const file = await pageRequest(handle, `${base}/${head}/a.ts`);
    assertIncludes(file.body, "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt;");
    assertIncludes(file.body, "Eve&quot; onmouseover=&quot;alert(1)&quot; O&#39;Brien");
    // Followed across the rename: the older commit names the path it had.
    assertIncludes(
      (await pageRequest(handle, `${base}/${head}/src/z.ts`)).body,
      '<span class="muted">src/y.ts</span>',
    );
    const branch = await pageRequest(handle, `${base}/main/src`);
    assertEquals([branch.status, branch.headers.get("location")], [302, `${base}/${head}/src`]);
    // The file and folder pages link to their history.
    const blob = await pageRequest(handle, `/sourcegraph/org/hist/-/blob/${head}/a.ts`);
    assertIncludes(blob.body, `href="${base}/${head}/a.ts"`);
    const tree = await pageRequest(handle, `/sourcegraph/org/hist/-/tree/${head}/src`);
    assertIncludes(tree.body, `href="${base}/${head}/src"`);
    const forged = await pageRequest(handle, `${base}/${head}/a.ts?after=bm90`);
    assertEquals(forged.status, 400);
    assertIncludes(forged.body, "INVALID_CURSOR");
  },
);

historyCases.add(
  "commits page: private repositories and hidden paths answer as missing; path groups narrow the list",
  async ({ handle, heads, sources }) => {
    const closed = await pageRequest(handle, "/sourcegraph/org/closed/-/commits/main/a.txt");
    const nowhere = await pageRequest(handle, "/sourcegraph/org/nowhere/-/commits/main/a.txt");
    assertEquals(closed.status, 404);
    assertEquals(closed.body, nowhere.body);
    const head = heads.get(GROUPS)!;
    const base = `/sourcegraph/org/groups/-/commits/${head}`;
    const hidden = await pageRequest(handle, `${base}/secret/s.md`);
    const absent = await pageRequest(handle, `${base}/secret/no.md`);
    assertEquals(hidden.status, 404);
    assertEquals(hidden.body, absent.body);
    const all = await pageRequest(handle, base);
    assertEquals(all.status, 200);
    assertEquals(
      listedCommits(all.body),
      await gitLog(sources.get(GROUPS)!, "%H", head, "--", "docs", "lib/pub"),
    );
    assert(!all.body.includes("hidden edit") && !all.body.includes("secret"), all.body);
  },
);

Deno.test("commits page: pages of 50 walked by their cursor list every commit once, newest first", () =>
  withInProcessService(async ({ handle, heads, sources }) => {
    const head = heads.get("org/many")!;
    let url: string | null = `/sourcegraph/org/many/-/commits/${head}/f.txt`;
    const seen: string[] = [];
    let pages = 0;
    while (url !== null) {
      const answer = await pageRequest(handle, url);
      assertEquals(answer.status, 200, url);
      seen.push(...listedCommits(answer.body));
      pages++;
      const older = /<a href="([^"]*)">Older commits<\/a>/.exec(answer.body);
      url = older === null ? null : older[1].replaceAll("&amp;", "&");
    }
    assertEquals(pages, 2);
    assertEquals(seen, await gitLog(sources.get("org/many")!, "%H", head, "--", "f.txt"));
    assertEquals(seen.length, 55);
  }, {
    repositories: [{
      name: "org/many",
      publicRead: true,
      files: { "f.txt": "last\n" },
      prepare: (repo) => fileChanges(repo, 55),
    }],
  }));

// `count` commits changing `f.txt` to `0` … `count - 1` ("change 0" …), made by one
// `git fast-import`, the work tree then checked out at the last.
async function fileChanges(repo: TestRepo, count: number): Promise<void> {
  const bytes = (text: string) => new TextEncoder().encode(text).length;
  const stream = Array.from({ length: count }, (_, i) => {
    const message = `change ${i}`;
    return [
      "commit refs/heads/main",
      // The fixture's own identity and date (2026-01-01), as its commits get.
      "committer Test <test@example.invalid> 1767225600 +0000",
      `data ${bytes(message)}`,
      message,
      "M 100644 inline f.txt",
      `data ${bytes(`${i}\n`)}`,
      `${i}\n`,
    ].join("\n");
  }).join("");
  await git(repo.path, ["fast-import", "--quiet"], new TextEncoder().encode(stream));
  await repo.git("reset", "-q", "--hard", "main");
}

// The rows of a listing: each entry's name, and its latest commit's SHA and subject when shown.
function listingRows(body: string): { name: string; commit: string | null; subject: string }[] {
  const table = body.slice(body.indexOf('<table class="entries">'));
  return [...table.slice(0, table.indexOf("</table>")).matchAll(/<tr>(.*?)<\/tr>/g)].map((row) => {
    const name = /<td><a [^>]*>([^<]*)/.exec(row[1])?.[1] ?? "";
    const last = /-\/commit\/([0-9a-f]{40})"[^>]*>([^<]*)</.exec(row[1]);
    return { name, commit: last?.[1] ?? null, subject: last?.[2] ?? "" };
  });
}

historyCases.add(
  "listings: folders first, each entry with its latest commit as git log -1 names it",
  async ({ handle, heads, sources }) => {
    const head = heads.get(HISTORY)!;
    const source = sources.get(HISTORY)!;
    for (
      const [url, folder] of [[`/sourcegraph/org/hist`, ""], [
        `/sourcegraph/org/hist/-/tree/${head}/src`,
        "src",
      ]]
    ) {
      const answer = await pageRequest(handle, url);
      assertEquals(answer.status, 200, url);
      assertInert(answer.body, url);
      const rows = listingRows(answer.body);
      const names = rows.map((row) => row.name.replace(/\/$/, ""));
      const folders = rows.filter((row) => row.name.endsWith("/")).length;
      assert(rows.slice(0, folders).every((row) => row.name.endsWith("/")), "folders first");
      for (const [i, row] of rows.entries()) {
        const path = folder === "" ? names[i] : `${folder}/${names[i]}`;
        assertEquals(row.commit, (await gitLog(source, "%H", "-1", head, "--", path))[0], path);
      }
      if (folder === "") {
        assertEquals(names, ["docs", "src", "a.ts", "last.txt"]);
        // a.ts was last changed by the hostile commit: its subject is text.
        assertEquals(
          rows[2].subject,
          "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt; &quot;quoted&quot; &#39;single&#39; &amp; more",
        );
      }
    }
  },
);

historyCases.add(
  "listings: under path groups an entry's latest commit counts visible paths only",
  async ({ handle, heads, sources }) => {
    const head = heads.get(GROUPS)!;
    const source = sources.get(GROUPS)!;
    const rows = listingRows((await pageRequest(handle, "/sourcegraph/org/groups")).body);
    assertEquals(rows.map((row) => row.name), ["docs/", "lib/"]);
    // lib/ leads into lib/pub/: a change to lib/priv/ alone is not its latest commit.
    assertEquals(rows[1].commit, (await gitLog(source, "%H", "-1", head, "--", "lib/pub"))[0]);
    assertEquals(rows[1].subject, "both folders");
    const lib = listingRows(
      (await pageRequest(handle, `/sourcegraph/org/groups/-/tree/${head}/lib`)).body,
    );
    assertEquals(lib.map((row) => [row.name, row.subject]), [["pub/", "both folders"]]);
  },
);

historyCases.add(
  "versions tab: the branch's recent commits as git log lists them, the retained versions marked",
  async ({ handle, heads, sources }) => {
    const head = heads.get(HISTORY)!;
    const answer = await pageRequest(handle, "/sourcegraph/org/hist/-/versions");
    assertEquals(answer.status, 200);
    assertInert(answer.body, "versions");
    const recent = answer.body.slice(answer.body.indexOf("Recent commits"));
    assertEquals(
      listedCommits(recent.slice(0, recent.indexOf("Retained versions"))),
      await gitLog(sources.get(HISTORY)!, "%H", head),
    );
    const marked = [
      ...recent.matchAll(
        /-\/commit\/([0-9a-f]{40})"><code[^>]*>[^<]*<\/code><\/a><\/td><td class="subject">.*?<\/td>/g,
      ),
    ]
      .filter((row) => row[0].includes("retained version")).map((row) => row[1]);
    assertEquals(marked, [head]);
    assertIncludes(recent, "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt;");
  },
);
