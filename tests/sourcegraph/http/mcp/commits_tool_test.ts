/**
 * `commits` selects what `git log` selects on the same history (two
 * monitored branches, a rename, a merge): `--grep` and `--author` (RE2
 * patterns where RE2 and POSIX agree), `-S`, `-G`, paths, `--since` and
 * `--until`, in Git's order, page after page. Cursors that are forged,
 * belong to another search or name a private repository are refused alike;
 * a private repository is never searched or named, and asking for it by
 * name answers exactly as asking for a missing one; path groups hide the
 * commits of hidden files; text that looks like an option or pathspec
 * magic never reaches Git as one.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { git, type TestRepo } from "../../../support/git_repo.ts";
import {
  connectInProcess,
  withInProcessService,
  WORLD_TOKEN,
} from "../../../support/in_process_service.ts";
import { callTool, type ToolOutcome } from "../../../support/tool_calls.ts";
import { encodeToken } from "../../../../sourcegraph/render/search_cursor.ts";

const NAME = "org/commits";
const BRANCHES = "org/branches";
const GROUPS = "org/groups";

// Commits with their own author and committer dates and author.
async function commitAt(
  repo: TestRepo,
  message: string,
  options: { date: string; author?: string },
): Promise<void> {
  await repo.git("add", "-A");
  const [name, email] = (options.author ?? "Alice Doe <alice@example.com>").split(/ <|>/);
  const out = await new Deno.Command("git", {
    args: ["commit", "-q", "--allow-empty", "-m", message],
    cwd: repo.path,
    env: {
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: "Committer",
      GIT_COMMITTER_EMAIL: "c@example.com",
      GIT_AUTHOR_DATE: options.date,
      GIT_COMMITTER_DATE: options.date,
    },
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

// Two branches, a rename, a merge, a multi-line message, several authors.
async function history(repo: TestRepo): Promise<void> {
  await repo.write({ "a.ts": "one\n", "docs/guide.md": "guide\n" });
  await commitAt(repo, "add files", { date: "2025-01-01T10:00:00Z" });
  await repo.write({ "a.ts": "one\ntwo\n" });
  await commitAt(
    repo,
    "fix: leak in reader\n\nThe body names ReadableStream.\nfeat: not a subject",
    {
      date: "2025-01-02T10:00:00Z",
      author: "Bob Roe <bob@example.org>",
    },
  );
  await repo.git("mv", "a.ts", "b.ts");
  await commitAt(repo, "rename a.ts to b.ts", { date: "2025-01-03T10:00:00Z" });
  await repo.git("checkout", "-q", "-b", "side");
  await repo.write({ "helper.ts": "const needle = 1;\n" });
  await commitAt(repo, "side: add helper with a needle", {
    date: "2025-01-04T10:00:00Z",
    author: "Bob Roe <bob@example.org>",
  });
  await repo.git("checkout", "-q", "main");
  await repo.write({ "b.ts": "one\ntwo\nneedle needle\n" });
  await commitAt(repo, "feat: add two needles", { date: "2025-01-05T10:00:00Z" });
  await repo.git("merge", "-q", "--no-ff", "side", "-m", "Merge branch 'side'");
  await repo.write({ "b.ts": "one\ntwo\nneedle\n", "docs/guide.md": "guide, needle\n" });
  await commitAt(repo, "remove a needle from b, add one to the guide", {
    date: "2025-01-07T10:00:00Z",
  });
  await repo.write({ "docs/more.md": "more\n" });
  await commitAt(repo, "docs: more", {
    date: "2025-01-08T10:00:00Z",
    author: "Ünïcode Name <u@example.net>",
  });
  await repo.git("checkout", "-q", "side");
  await repo.write({ "helper.ts": "const needle = 2;\n" });
  await commitAt(repo, "side: after the merge", { date: "2025-01-09T10:00:00Z" });
  await repo.git("checkout", "-q", "main");
  for (let i = 0; i < 6; i++) {
    await repo.write({ "count.txt": `${i}\n` });
    await commitAt(repo, `count ${i}`, { date: `2025-02-0${i + 1}T10:00:00Z` });
  }
}

// Commits of the visible group, of hidden files only, and of both.
async function groups(repo: TestRepo): Promise<void> {
  await repo.write({ "docs/a.md": "a\n", "secret/s.md": "s\n" });
  await commitAt(repo, "both folders", { date: "2025-01-01T10:00:00Z" });
  await repo.write({ "secret/s.md": "secret needle\n" });
  await commitAt(repo, "hidden needle", { date: "2025-01-02T10:00:00Z" });
  await repo.write({ "docs/a.md": "visible needle\n" });
  await commitAt(repo, "visible needle", { date: "2025-01-03T10:00:00Z" });
}

interface World {
  anonymous: Client;
  service: Client;
  source: TestRepo;
}

function withCommits(fn: (world: World) => Promise<void>): Promise<void> {
  return withInProcessService(
    async ({ handle, sources, store, scheduler }) => {
      const source = sources.get(NAME)!;
      const repo = await store.register({
        name: BRANCHES,
        source: source.path,
        publicRead: true,
        policy: { branches: ["main", "side"] },
        pathGroups: [],
        syncIntervalMinutes: 5,
      });
      await scheduler.sync(repo);
      const anonymous = await connectInProcess(handle);
      const service = await connectInProcess(handle, { token: WORLD_TOKEN });
      try {
        await fn({ anonymous, service, source });
      } finally {
        await anonymous.close();
        await service.close();
      }
    },
    {
      repositories: [
        { name: NAME, publicRead: true, files: { "last.txt": "l\n" }, prepare: history },
        {
          name: GROUPS,
          publicRead: true,
          files: { "docs/last.md": "l\n" },
          prepare: groups,
          pathGroups: [{ name: "docs", paths: ["docs"] }],
        },
        { name: "org/closed", publicRead: false, files: { "a.txt": "needle\n" } },
      ],
    },
  );
}

// The cases run as steps over one set of repositories, built and synced once (most of the
// work); none of them changes it.
const CASES: [string, (world: World) => Promise<void>][] = [];
function commitsCase(name: string, fn: (world: World) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("commits: every case over one history", (t) =>
  withCommits(async (world) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world));
  }));

function call(client: Client, args: Record<string, unknown>): Promise<ToolOutcome> {
  return callTool(client, "commits", args);
}

function shas(answer: string): string[] {
  return answer.split("\n").filter((row) => /^[0-9a-f]{40} "/.test(row)).map((r) => r.slice(0, 40));
}

function nextCursor(answer: string): string | null {
  const found = /NextCursor: ("[^"]+")/.exec(answer);
  return found ? JSON.parse(found[1]) : null;
}

// Every page of a search, `first` at a time: the SHAs in order, and the pages.
async function walk(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ commits: string[]; pages: string[] }> {
  const commits: string[] = [];
  const pages: string[] = [];
  let after: string | null = null;
  do {
    const outcome = await call(client, { ...args, ...(after === null ? {} : { after }) });
    assertEquals(outcome.code, "OK", outcome.texts.join());
    pages.push(outcome.texts[0]);
    commits.push(...shas(outcome.texts[0]));
    after = nextCursor(outcome.texts[0]);
    assert(pages.length < 50, "paging ends");
  } while (after !== null);
  return { commits, pages };
}

async function gitLog(repo: TestRepo, args: string[]): Promise<string[]> {
  const out = await git(repo.path, ["log", "--format=%H", ...args]);
  return out === "" ? [] : out.split("\n");
}

// Each search beside the git log arguments that select the same commits.
const SAME_AS_GIT: [Record<string, unknown>, string[]][] = [
  [{}, []],
  [{ message: "fix" }, ["--grep=fix"]],
  [{ message: "^(feat|fix):" }, ["-E", "--grep=^(feat|fix):"]],
  [{ message: "ReadableStream" }, ["--grep=ReadableStream"]],
  [{ message: "(?i)^MERGE" }, ["-i", "--grep=^merge"]],
  [{ author: "Bob" }, ["--author=Bob"]],
  [{ author: "example\\.net" }, ["--author=example\\.net"]],
  [{ message: "needle", author: "Bob" }, ["--grep=needle", "--author=Bob"]],
  [{ added_or_removed: "needle" }, ["-Sneedle"]],
  [{ added_or_removed: "needle needle" }, ["-Sneedle needle"]],
  [{ changed_regex: "needle$" }, ["-Gneedle$"]],
  [{ changed_regex: "const [a-z]+ = 2" }, ["-Gconst [a-z]+ = 2", "-E"]],
  [{ paths: ["docs"] }, ["--", "docs"]],
  [{ paths: ["b.ts"], message: "needle" }, ["--grep=needle", "--", "b.ts"]],
  [{ added_or_removed: "needle", paths: ["docs"] }, ["-Sneedle", "--", "docs"]],
  [{ changed_regex: "needle", paths: ["docs", "helper.ts"] }, [
    "-Gneedle",
    "--",
    "docs",
    "helper.ts",
  ]],
  [{ message: "e", paths: ["helper.ts"] }, ["--grep=e", "--", "helper.ts"]],
  [{ since: "2025-01-04T10:00:00Z", until: "2025-02-02" }, [
    "--since=2025-01-04T10:00:00Z",
    "--until=2025-02-02T00:00:00Z",
  ]],
];

commitsCase(
  "commits: every monitored branch, as git log selects on the same history",
  async ({ anonymous, source }) => {
    for (const [args, gitArgs] of SAME_AS_GIT) {
      const expected = await gitLog(source, ["main", "side", ...gitArgs]);
      assert(expected.length > 0, JSON.stringify(args));
      for (const first of [2, 100]) {
        const { commits } = await walk(anonymous, { repo: BRANCHES, first, ...args });
        assertEquals(commits, expected, `${JSON.stringify(args)} first ${first}`);
      }
    }
  },
);

commitsCase(
  "commits: one revision, and a repository monitoring main only",
  async ({ anonymous, source }) => {
    const side = await walk(anonymous, { repo: BRANCHES, revision: "side", message: "side" });
    assertEquals(side.commits, await gitLog(source, ["side", "--grep=side"]));
    assertIncludes(side.pages[0], `Heads: "side" ${await source.git("rev-parse", "side")}`);
    const main = await walk(anonymous, { repo: NAME, message: "side" });
    assertEquals(main.commits, await gitLog(source, ["main", "--grep=side"]));
    const answer = main.pages[0];
    assertIncludes(answer, `Repository: "${NAME}"\nHeads: "main" `);
    assertIncludes(answer, '"Bob Roe" 2025-01-04T10:00:00+00:00 "side: add helper with a needle"');
  },
);

commitsCase(
  "commits: a private repository is never searched, named or counted",
  async ({ anonymous, service }) => {
    const closed = await call(anonymous, { repo: "org/closed", message: "initial" });
    const missing = await call(anonymous, { repo: "org/closee", message: "initial" });
    assertEquals(closed.code, "REPOSITORY_NOT_FOUND");
    assertEquals(closed, missing);
    assert(!closed.texts.join().includes("org/closed"), closed.texts.join());
    const everywhere = { added_or_removed: "needle", first: 100 };
    const open = (await call(anonymous, everywhere)).texts[0];
    assert(!open.includes("org/closed"), open);
    assertIncludes(open, `Repository: "${BRANCHES}"`);
    const all = (await call(service, everywhere)).texts[0];
    assertIncludes(all, 'Repository: "org/closed"');
    // The visible part of the answer is the same whoever asks.
    assertEquals(
      open,
      all.replace(/Repository: "org\/closed"\n[^]*?(?=Repository: )/, "").replace(
        /Commits: \d+/,
        open.match(/Commits: \d+/)![0],
      ),
    );
    const glob = (await call(anonymous, { repo: "org/c*", message: "initial" })).texts[0];
    assert(!glob.includes("org/closed"), glob);
  },
);

commitsCase(
  "commits: forged cursors, and cursors of other searches, are refused alike",
  async ({ anonymous, service }) => {
    const args = { repo: BRANCHES, message: "e", first: 1 };
    const first = (await call(anonymous, args)).texts[0];
    const cursor = nextCursor(first)!;
    const [, key, , heads] = JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" })),
    );
    const forged = (value: unknown) => encodeToken(value);
    const refused = [
      "not-a-cursor",
      forged(["history", NAME, null, 0, 0, "a".repeat(40), 1]),
      forged(["commits", key, BRANCHES, ["b".repeat(40)], 1]),
      forged(["commits", key, BRANCHES, heads, 1_000_000]),
      forged(["commits", key, BRANCHES, heads, -1]),
      forged(["commits", "other", BRANCHES, heads, 1]),
    ];
    for (const after of refused) {
      const outcome = await call(anonymous, { ...args, after });
      assertEquals(outcome.code, "INVALID_CURSOR", after);
    }
    const other = await call(anonymous, { ...args, message: "x", after: cursor });
    assertEquals(other.code, "INVALID_CURSOR");
    // Across repositories, a cursor naming a private repository fails as one naming none.
    const across = { message: "initial", first: 1 };
    const acrossKey = JSON.parse(
      new TextDecoder().decode(
        Uint8Array.fromBase64(nextCursor((await call(anonymous, across)).texts[0])!, {
          alphabet: "base64url",
        }),
      ),
    )[1];
    const closed = await call(anonymous, {
      ...across,
      after: forged(["commits", acrossKey, "org/closed", null, 0]),
    });
    const none = await call(anonymous, {
      ...across,
      after: forged(["commits", acrossKey, "org/none", null, 0]),
    });
    assertEquals(closed.code, "INVALID_CURSOR");
    assertEquals(closed, none);
    // The service token may continue in it.
    const allowed = await call(service, {
      ...across,
      after: forged(["commits", acrossKey, "org/closed", null, 0]),
    });
    assertEquals(allowed.code, "OK", allowed.texts.join());
  },
);

commitsCase(
  "commits: path groups hide the commits of hidden files",
  async ({ anonymous, source: _ }) => {
    const answer = (await call(anonymous, { repo: GROUPS, message: "needle" })).texts[0];
    assertIncludes(answer, '"visible needle"');
    assert(!answer.includes("hidden needle"), answer);
    assertIncludes(answer, 'PathGroups: only commits touching ["docs"]');
    const pickaxe = (await call(anonymous, { repo: GROUPS, added_or_removed: "needle" })).texts[0];
    assertEquals(shas(pickaxe).length, 1, pickaxe);
    const hidden = await call(anonymous, { repo: GROUPS, paths: ["secret"] });
    assertEquals(hidden.code, "PATH_NOT_REGISTERED");
  },
);

commitsCase(
  "commits: several repositories, in name order, paged",
  async ({ anonymous, source }) => {
    const args = { repo: [NAME, BRANCHES], message: "needle" };
    const expected = [
      ...await gitLog(source, ["main", "side", "--grep=needle"]),
      ...await gitLog(source, ["main", "--grep=needle"]),
    ];
    for (const first of [1, 3, 100]) {
      assertEquals((await walk(anonymous, { ...args, first })).commits, expected, `${first}`);
    }
  },
);

commitsCase(
  "commits: bad patterns, dates and combinations are refused before any search",
  async ({ anonymous }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ message: "(" }, "INVALID_PATTERN"],
      [{ changed_regex: "(?=x)" }, "INVALID_PATTERN"],
      [{ author: "a\\nb" }, "INVALID_PATTERN"],
      [{ since: "last week" }, "INVALID_ARGUMENTS"],
      [{ added_or_removed: "a", changed_regex: "b" }, "INVALID_ARGUMENTS"],
      [{ paths: ["../x"] }, "INVALID_PATH"],
      [{ revision: "HEAD~1" }, "INVALID_REVISION"],
    ];
    for (const [args, code] of cases) {
      assertEquals(
        (await call(anonymous, { repo: BRANCHES, ...args })).code,
        code,
        `${JSON.stringify(args)}`,
      );
    }
    // Across repositories they fail once, before any repository is searched.
    assertEquals((await call(anonymous, { paths: ["../x"] })).code, "INVALID_PATH");
    assertEquals((await call(anonymous, { message: "(" })).code, "INVALID_PATTERN");
  },
);

commitsCase(
  "commits: text, patterns and paths that look like options or pathspec magic are data",
  async ({ anonymous, source }) => {
    const target = `${source.path}/../pwned-${crypto.randomUUID()}`;
    for (
      const args of [
        { added_or_removed: `--output=${target}` },
        { changed_regex: `--output=${target}` },
        { message: `--output=${target}` },
        { author: `--output=${target}` },
      ]
    ) {
      const outcome = await call(anonymous, { repo: BRANCHES, ...args });
      assertEquals(outcome.code, "OK", JSON.stringify(args));
      assertEquals(shas(outcome.texts[0]), []);
    }
    assertEquals(await Deno.stat(target).then(() => true, () => false), false);
    for (const path of [":(exclude)docs", "*.ts", "--output=x"]) {
      const outcome = await call(anonymous, { repo: BRANCHES, paths: [path] });
      assertEquals(outcome.code, "OK", path);
      assertEquals(shas(outcome.texts[0]), [], path);
    }
  },
);
