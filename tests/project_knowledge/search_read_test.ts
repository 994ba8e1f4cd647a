import type { SearchHit } from "../../project_knowledge/query/search.ts";
import { assert, assertEquals } from "../support/assert.ts";
import {
  type KnowledgeProject,
  withProject,
  withProvider as withProviderOf,
} from "../support/knowledge_project.ts";
import type { FakeRunner } from "../support/fake_runner.ts";

type Hit = SearchHit;

// Every case here is about what the provider answers, not how it is launched:
// its code serves in this process (the launch is shown in protocol_test.ts).
const IN_PROCESS = { inProcess: true };
const withProvider: typeof withProviderOf = (files, fn) => withProviderOf(files, fn, IN_PROCESS);

const CODE = [
  "// http handling",
  "export function parseHTTPRequest(raw: string): string[] {",
  "  return raw.split('\\n');",
  "}",
  "",
].join("\n");

const FILES: Record<string, string> = {
  "src/http.ts": CODE,
  "src/snake.py": "def parse_http_request(raw):\n    return raw\n",
  "docs/kebab.md": "Use the `parse-http-request` helper.\n",
  "docs/zh.md": "# 项目知识\n\n这是项目知识库的说明。\n",
  "docs/other.md": "Nothing relevant here at all.\n",
};

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function paths(result: Record<string, unknown>): string[] {
  return (result.hits as Hit[]).map((hit) => hit.path).sort();
}

async function identifierTerms(runner: FakeRunner): Promise<void> {
  const index = await runner.ok("index");
  assertEquals(index.indexed_files, 5);
  assertEquals(index.stop_reason, "complete");
  const expected = ["docs/kebab.md", "src/http.ts", "src/snake.py"];
  assertEquals(paths(await runner.ok("search", { query: "parse http request" })), expected);
  assertEquals(paths(await runner.ok("search", { query: "parseHTTPRequest" })), expected);
  assertEquals(paths(await runner.ok("search", { query: "parsehttprequest" })), expected);
  assertEquals(paths(await runner.ok("search", { query: "项目" })), ["docs/zh.md"]);
  assertEquals(paths(await runner.ok("search", { query: "知识" })), ["docs/zh.md"]);
  assertEquals(paths(await runner.ok("search", { query: "nonexistentword" })), []);
}

async function hitLines(runner: FakeRunner, project: KnowledgeProject): Promise<void> {
  const head = await project.repo.git("rev-parse", "HEAD");
  await runner.ok("index");
  const hits = (await runner.ok("search", { query: "parseHTTPRequest" })).hits as Hit[];
  const hit = hits.find((candidate) => candidate.path === "src/http.ts")!;
  assertEquals([hit.start_line, hit.end_line], [1, 4]);
  assertEquals(hit.text, CODE.split("\n").slice(0, 4).join("\n"));
  assertEquals(hit.source_hash, await sha256(CODE));
  assertEquals(hit.index_revision, head);
  assertEquals(hit.observed_revision, head);

  const read = await runner.ok("read", {
    path: hit.path,
    source_hash: hit.source_hash,
    start_line: 2,
    end_line: 3,
  });
  assertEquals(read.text, CODE.split("\n").slice(1, 3).join("\n"));
  assertEquals([read.start_line, read.end_line, read.total_lines], [2, 3, 4]);
}

Deno.test("tracked working-tree edits are indexable; revisions are HEAD observations", () =>
  withProject(FILES, async (project) => {
    await project.repo.write({ "docs/other.md": "Now mentions zebracorn.\n" });
    const runner = await project.admit(IN_PROCESS);
    try {
      await runner.ok("index");
      assertEquals(paths(await runner.ok("search", { query: "zebracorn" })), ["docs/other.md"]);
      await project.repo.write({ "untracked.md": "zebracorn untracked\n" });
      await runner.ok("index");
      assertEquals(paths(await runner.ok("search", { query: "zebracorn" })), ["docs/other.md"]);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("repository without commits: revisions are null", () =>
  withProject({}, async (project) => {
    await project.repo.write({ "a.md": "alpha beta\n" });
    await project.repo.git("add", "a.md");
    const runner = await project.admit(IN_PROCESS);
    try {
      const index = await runner.ok("index");
      assertEquals(index.revision, null);
      const [hit] = (await runner.ok("search", { query: "alpha" })).hits as Hit[];
      assertEquals(hit.index_revision, null);
      assertEquals(hit.observed_revision, null);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("stale, deleted and untracked candidates are omitted and counted; search never rebuilds", () =>
  withProvider(FILES, async (runner, project) => {
    await runner.ok("index");
    await project.repo.write({ "src/http.ts": CODE.replace("raw", "input") }); // changed
    await Deno.remove(`${project.repo.path}/src/snake.py`); // deleted
    await project.repo.git("rm", "-q", "--cached", "docs/kebab.md"); // no longer tracked
    const result = await runner.ok("search", { query: "parse http request" });
    assertEquals(result.hits, []);
    assertEquals(result.stale_candidates_omitted, 3);
    const status = await runner.ok("status");
    assertEquals(status.indexed_files, 5, "search did not rebuild");

    const refresh = await runner.ok("index", { mode: "refresh" });
    assertEquals(refresh.updated_files, 1);
    assertEquals(refresh.deleted_files, 2); // untracked, and removed from the work tree
    assertEquals(refresh.skipped_files, 1); // the removed file is unreadable
    assertEquals(refresh.indexed_files, 3);
    assertEquals(paths(await runner.ok("search", { query: "parse http request" })), [
      "src/http.ts",
    ]);
  }));

Deno.test("read: hash mismatch is a known error telling the caller to refresh", () =>
  withProvider(FILES, async (runner, project) => {
    await runner.ok("index");
    const hits = (await runner.ok("search", { query: "parseHTTPRequest" })).hits as Hit[];
    const hit = hits.find((candidate) => candidate.path === "src/http.ts")!;
    await project.repo.write({ "src/http.ts": CODE + "// edited\n" });
    const outcome = await runner.call("read", { path: hit.path, source_hash: hit.source_hash });
    assert(outcome.dispatch === "completed" && "result" in outcome);
    assertEquals(outcome.result.isError, true);
    const error = outcome.result.structuredContent.error as { code: string; message: string };
    assertEquals(error.code, "source_changed");
    assert(error.message.includes("refresh"), error.message);
  }));

Deno.test("read: defaults, the 200-line cap, ranges and ineligible paths", () =>
  withProject({
    "big.txt": Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
    ".env.md": "hidden\n",
    "untracked-later.md": "x\n",
  }, async (project) => {
    const text = await Deno.readTextFile(`${project.repo.path}/big.txt`);
    const hash = await sha256(text);
    const runner = await project.admit(IN_PROCESS);
    try {
      const first = await runner.ok("read", { path: "big.txt", source_hash: hash });
      assertEquals([first.start_line, first.end_line, first.truncated], [1, 48, false]);
      assertEquals((first.text as string).split("\n").length, 48);
      const capped = await runner.ok("read", {
        path: "big.txt",
        source_hash: hash,
        start_line: 10,
        end_line: 400,
      });
      assertEquals([capped.start_line, capped.end_line, capped.truncated], [10, 209, true]);
      const tail = await runner.ok("read", {
        path: "big.txt",
        source_hash: hash,
        start_line: 490,
        end_line: 600,
      });
      assertEquals([tail.end_line, tail.truncated], [500, false]);
      assertEquals(
        await runner.errorCode("read", { path: "big.txt", source_hash: hash, start_line: 501 }),
        "out_of_range",
      );
      assertEquals(
        await runner.errorCode("read", { path: "big.txt", source_hash: hash, start_line: 0 }),
        "invalid_arguments",
      );
      assertEquals(
        await runner.errorCode("read", {
          path: "big.txt",
          source_hash: hash,
          start_line: 5,
          end_line: 4,
        }),
        "invalid_arguments",
      );
      for (
        const path of [
          ".env.md",
          "../project/big.txt",
          "/etc/passwd",
          "nope.md",
          "big.txt/",
          "a\u0001b.md",
        ]
      ) {
        assertEquals(
          await runner.errorCode("read", { path, source_hash: hash }),
          "source_ineligible",
          path,
        );
      }
      await project.repo.git("rm", "-q", "--cached", "untracked-later.md");
      assertEquals(
        await runner.errorCode("read", {
          path: "untracked-later.md",
          source_hash: await sha256("x\n"),
        }),
        "source_ineligible",
      );
    } finally {
      await runner.kill();
    }
  }));

Deno.test("read trims whole lines to the 16 KiB bound and fails explicitly on a line too large", () =>
  withProvider({
    "wide.txt": Array.from({ length: 100 }, () => '"'.repeat(1000)).join("\n") + "\n",
    "huge-line.txt": "short\n" + "y".repeat(20_000) + "\n",
  }, async (runner, project) => {
    const wide = await Deno.readTextFile(`${project.repo.path}/wide.txt`);
    const read = await runner.call("read", {
      path: "wide.txt",
      source_hash: await sha256(wide),
      end_line: 100,
    });
    assert(read.dispatch === "completed" && "result" in read && !read.result.isError);
    assert(read.bytes <= 16 * 1024, `${read.bytes} bytes`);
    const lines = (read.result.structuredContent.text as string).split("\n");
    assert(lines.length >= 5 && lines.length < 100, `${lines.length} lines`);
    assert(lines.every((line) => line.length === 1000), "whole lines only");
    assertEquals(read.result.structuredContent.truncated, true);

    const huge = await Deno.readTextFile(`${project.repo.path}/huge-line.txt`);
    const hash = await sha256(huge);
    const one = await runner.ok("read", { path: "huge-line.txt", source_hash: hash });
    assertEquals([one.start_line, one.end_line, one.text, one.truncated], [1, 1, "short", true]);
    assertEquals(
      await runner.errorCode("read", { path: "huge-line.txt", source_hash: hash, start_line: 2 }),
      "line_too_large",
    );
    // The huge line is left out of the index and counted.
    const index = await runner.ok("index");
    assertEquals(index.oversized_lines_omitted, 1);
  }));

async function anyQuery(runner: FakeRunner): Promise<void> {
  await runner.ok("index");
  const queries = [
    'parse" OR "x',
    "NEAR(parse http, 2)",
    "parse AND NOT http",
    "* ^ : - + ( ) { } [ ]",
    "col:parse",
    "'\"''\"",
    "\u0000parse\u0000",
    "!@#$%^&*()_+-=[]{}|;':\",./<>?`~".repeat(330),
    "🦀 parse 🚀 http",
    "parseHTTPRequest 项目知识 Ünïcödé ελληνικά кириллица",
    "\\",
    "-",
  ];
  for (const query of queries) {
    const outcome = await runner.call("search", { query });
    assert(outcome.dispatch === "completed" && "result" in outcome, query.slice(0, 40));
    assertEquals(
      outcome.result.isError,
      false,
      `${query.slice(0, 40)}: ${JSON.stringify(outcome.result)}`,
    );
  }
  const mixed = await runner.ok("search", { query: "🦀 parse 🚀 http", limit: 20 });
  assertEquals((mixed.hits as Hit[]).length, 3);
}

// These three only index and read the committed FILES, so one provider serves them in turn.
Deno.test("one provider for the committed files", (t) =>
  withProvider(FILES, async (runner, project) => {
    await t.step(
      "identifier terms: camel, snake and kebab forms all match words and the whole identifier",
      () => identifierTerms(runner),
    );
    await t.step(
      "a hit carries lines, hash and revisions, and its text is the current source lines",
      () => hitLines(runner, project),
    );
    await t.step(
      "any query string is safe: FTS5 syntax, quotes, NUL, 10 KB of punctuation, emoji, mixed scripts",
      () => anyQuery(runner),
    );
  }));

Deno.test("search results stay within 16 KiB and mark truncation", () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    files[`doc${i}.md`] = Array.from({ length: 40 }, (_, j) =>
      `needle line ${j} ${"x".repeat(60)}`).join("\n") +
      "\n";
  }
  return withProvider(files, async (runner) => {
    await runner.ok("index");
    const outcome = await runner.call("search", { query: "needle", limit: 20 });
    assert(outcome.dispatch === "completed" && "result" in outcome);
    assert(outcome.bytes <= 16 * 1024);
    const hits = outcome.result.structuredContent.hits as Hit[];
    assert(hits.length >= 1 && hits.length < 20, `${hits.length} hits`);
    assertEquals(outcome.result.structuredContent.results_truncated, true);
    const small = await runner.ok("search", { query: "needle", limit: 1 });
    assertEquals((small.hits as Hit[]).length, 1);
    assertEquals(small.results_truncated, true, "more candidates than the limit");
  });
});

Deno.test("observations follow Git within one session: new commits, staged removals, branch switches", () =>
  withProvider(FILES, async (runner, project) => {
    await runner.ok("index");
    const first = await project.repo.git("rev-parse", "HEAD");
    const hitsOf = async () =>
      (await runner.ok("search", { query: "parse http request", limit: 20 })).hits as Hit[];
    assertEquals((await hitsOf())[0].observed_revision, first);
    await project.repo.write({ "new.md": "fresh\n" });
    const second = await project.repo.commit("second");
    assertEquals((await hitsOf())[0].observed_revision, second);
    assertEquals((await hitsOf())[0].index_revision, first);
    await project.repo.git("checkout", "-q", "-b", "other", first);
    assertEquals((await hitsOf())[0].observed_revision, first);
    await project.repo.git("rm", "-q", "--cached", "src/snake.py");
    assertEquals((await hitsOf()).map((hit) => hit.path).sort(), [
      "docs/kebab.md",
      "src/http.ts",
    ]);
    await project.repo.git("add", "src/snake.py");
    assertEquals((await hitsOf()).length, 3);
  }));
