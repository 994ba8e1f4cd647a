/**
 * Answers on a real tree (the Git project's sources): search pages stay
 * within their max_bytes, a page cut short gives the cursor of the next, and
 * paging through a common literal returns exactly `git grep`'s matches, each
 * once; the largest default answer of each tool stays under 40,000
 * characters, and error answers under 4,000.
 */

import { Buffer } from "node:buffer";
import { dirname, join } from "node:path";
import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";
import type { TestRepo } from "../../support/git_repo.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

// The corpora folder lies beside the checkout (CI lays it there); without it the test is ignored.
const CORPUS_PATH = new URL("../../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url)
  .pathname;
const CORPUS = await Deno.stat(CORPUS_PATH).then(() => CORPUS_PATH, () => {
  console.error(`Git tree answers ignored: no corpus at ${CORPUS_PATH}`);
  return null;
});
const NAME = "org/git";
const LITERAL = "strbuf_addstr";

// The rows of a page: [path, line] of each match.
function matches(text: string): string[] {
  const out: string[] = [];
  let path = "";
  for (const line of text.split("\n")) {
    const file = /^File: (".*")$/.exec(line);
    if (file) path = JSON.parse(file[1]);
    const row = /^(\d+): /.exec(line);
    if (row) out.push(`${path}:${row[1]}`);
  }
  return out;
}

function header(text: string, label: string): string | undefined {
  return text.split("\n").find((line) => line.startsWith(`${label}: `))?.slice(label.length + 2);
}

// A slice of the corpus, read from the archive in process (only the slice is written: 7.5 of the
// tree's 49 MB): the files that hold the literal at least once per 20,000 bytes (over a
// thousand matches, among them the files that define it and longer names), the ten widest files
// of the tree (the largest reads), the files under 2 KiB outside t/ (about a thousand: the first
// page of a search for "e" spans 65 files), the 700 smallest scripts of t/ (more entries than a
// listing page holds, about 620) and the README.
async function extractCorpus(repo: TestRepo): Promise<void> {
  const entries = await archiveEntries(CORPUS!);
  const files = [...entries.files].map(([path, bytes]) => [path, bytes.length] as [string, number]);
  const dense = [...entries.files].filter(([, bytes]) =>
    bytes.length <= 20_000 * linesHolding(bytes, LITERAL)
  );
  assert(dense.length > 100, `${dense.length} files hold ${LITERAL} densely`);
  const keep = new Set(["README.md", ...dense.map(([path]) => path)]);
  const read = (path: string) => Promise.resolve(entries.files.get(path)!);
  for (const path of await widestFiles(files, read)) keep.add(path);
  for (const [path, bytes] of files) if (bytes < 2048 && !path.startsWith("t/")) keep.add(path);
  const scripts = files.filter(([path]) => /^t\/[^/]+$/.test(path));
  scripts.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
  for (const [path] of scripts.slice(0, 700)) keep.add(path);
  for (const path of keep) {
    const target = `${repo.path}/${path}`;
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.writeFile(target, entries.files.get(path)!);
  }
  // A symbolic link to a kept file is kept (as the tree has it).
  for (const [path, link] of entries.links) {
    const resolved = join(dirname(path), link);
    if (keep.has(resolved)) {
      await Deno.mkdir(dirname(`${repo.path}/${path}`), { recursive: true });
      await Deno.symlink(link, `${repo.path}/${path}`);
    }
  }
}

// The regular files (path → bytes) and symbolic links (path → target) of a gzipped tar archive
// as `git archive` writes it, its top folder stripped.
async function archiveEntries(
  path: string,
): Promise<{ files: Map<string, Uint8Array>; links: Map<string, string> }> {
  const file = await Deno.open(path);
  const tar = new Uint8Array(
    await new Response(file.readable.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer(),
  );
  const text = (from: number, length: number) => {
    const field = tar.subarray(from, from + length);
    const end = field.indexOf(0);
    return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
  };
  const files = new Map<string, Uint8Array>();
  const links = new Map<string, string>();
  let longName: string | null = null;
  for (let at = 0, header = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    header = at;
    const size = parseInt(text(header + 124, 12), 8);
    const type = String.fromCharCode(tar[header + 156]);
    const prefix = text(header + 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(header, 100)}` : text(header, 100));
    const body = tar.subarray(header + 512, header + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(body))?.[1] ?? null;
      continue;
    }
    longName = null;
    const stripped = name.slice(name.indexOf("/") + 1);
    if (type === "0" || type === "\0") files.set(stripped, body);
    else if (type === "2") links.set(stripped, text(header + 157, 100));
  }
  return { files, links };
}

// How many lines of `bytes` hold `literal` (as `grep -c` counts them).
function linesHolding(bytes: Uint8Array, literal: string): number {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 0;
  for (let at = haystack.indexOf(literal); at !== -1;) {
    count++;
    const lineEnd = haystack.indexOf(10, at);
    if (lineEnd === -1) break;
    at = haystack.indexOf(literal, lineEnd);
  }
  return count;
}

// The bytes a read of `path` gives (a symbolic link's target's).
async function readSize(path: string): Promise<number> {
  return (await Deno.stat(path).catch(() => ({ size: 0 }))).size;
}

Deno.test({
  name:
    "Git tree: search pages give exactly git grep's matches; the largest default answer of each tool stays under 40,000 characters",
  ignore: CORPUS === null,
  fn: (t) =>
    withInProcessService(async ({ handle, sources }) => {
      const client = await connectInProcess(handle);
      try {
        await waitFor(
          async () =>
            (await callTool(client, "search", { repo: NAME, pattern: LITERAL })).texts[0]
              .includes('Index: "ready"'),
          // A guard against a build that never ends, not a time budget.
          { timeoutMs: 600_000, what: "index ready" },
        );
        await t.step("paging a literal gives git grep's matches, each once", () =>
          pagingMatchesGitGrep(client, sources.get(NAME)!.path));
        await t.step("the largest default answers, and error answers", () =>
          largestAnswers(client, sources.get(NAME)!.path));
      } finally {
        await client.close();
      }
    }, {
      repositories: [{ name: NAME, publicRead: true, files: {}, prepare: extractCorpus }],
      searchIndex: true,
      // Every file's symbols, however busy the machine (the ranking reads the files' Defines
      // lines); the budget itself is tested in search/build/symbol_budget_test.ts.
      symbolBudgetMs: 3_600_000,
    }),
});

async function pagingMatchesGitGrep(client: Client, work: string): Promise<void> {
  const grep = await new Deno.Command("git", {
    args: ["grep", "-n", "-I", "-F", "--full-name", LITERAL, "HEAD", "--", "."],
    cwd: work,
  }).output();
  const expected = new TextDecoder().decode(grep.stdout).trimEnd().split("\n")
    .map((line) => line.replace(/^HEAD:/, "").replace(/^(.*?:\d+):.*$/, "$1"));
  assert(expected.length > 1000, `${expected.length} lines`);
  const search = (args: Record<string, unknown>) =>
    callTool(client, "search", {
      repo: NAME,
      pattern: LITERAL,
      fixed_strings: true,
      max_lines_per_file: 1000,
      ...args,
    });
  for (const maxBytes of [undefined, 4096]) {
    const seen: string[] = [];
    const defining = new Set<string>();
    const definingWhole = new Set<string>();
    let after: string | undefined;
    let pages = 0;
    let commit: string | undefined;
    for (;;) {
      const outcome = await search({ max_bytes: maxBytes, after });
      assertEquals(outcome.code, "OK", outcome.texts[0]);
      const text = outcome.texts[0];
      const limit = maxBytes ?? 32 * 1024;
      assert(new TextEncoder().encode(text).length <= limit, `page ${pages} over ${limit}`);
      commit ??= header(text, "Commit");
      assertEquals(header(text, "Commit"), commit, "every page at the first page's commit");
      seen.push(...matches(text));
      for (const [, file, names] of text.matchAll(/^File: (".*")\nDefines: (.*)$/gm)) {
        defining.add(JSON.parse(file));
        if ((JSON.parse(names) as string[]).includes(LITERAL)) definingWhole.add(JSON.parse(file));
      }
      pages++;
      const next = header(text, "NextCursor");
      if (next === undefined) break;
      assertEquals(header(text, "Truncated"), "true");
      assert(header(text, "CutBy")!.includes("max_bytes"), header(text, "CutBy"));
      after = JSON.parse(next);
    }
    // The files that define the name itself come first (the search is ranked), then those
    // defining a longer name holding it, then the rest, each group in path order.
    assert(definingWhole.size > 0, "strbuf_addstr is defined somewhere");
    assert(defining.size > definingWhole.size, "and longer names holding it too");
    const file = (match: string) => match.replace(/:\d+$/, "");
    const ranked = [
      ...expected.filter((match) => definingWhole.has(file(match))),
      ...expected.filter((match) => defining.has(file(match)) && !definingWhole.has(file(match))),
      ...expected.filter((match) => !defining.has(file(match))),
    ];
    assertEquals(seen, ranked, `every match once, in git grep's order, ranked (${maxBytes})`);
    assert(pages >= (maxBytes === undefined ? 2 : 10), `${pages} pages`);
  }
  // A cursor that is not one is refused with a hint.
  const bad = await search({ after: "bm90IGEgY3Vyc29y" });
  assertEquals(bad.code, "INVALID_CURSOR");
}

// The ten files of the tree widest by the characters of their first 500 lines, widest first (a
// file's size bounds its width, so the smaller files are not read once ten are wider).
async function widestFiles(
  files: [string, number][],
  read: (path: string) => Promise<Uint8Array>,
): Promise<string[]> {
  const widths: [string, number][] = [];
  const widest = () =>
    widths.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 10);
  for (const [path, size] of files.toSorted((a, b) => b[1] - a[1])) {
    if (widths.length >= 10 && size < widest()[9][1]) break;
    const bytes = await read(path);
    if (bytes.includes(0)) continue;
    widths.push([path, new TextDecoder().decode(firstLines(bytes, 500)).length]);
  }
  return widest().map(([path]) => path);
}

// The bytes of the first `count` lines, without the newline after the last.
function firstLines(bytes: Uint8Array, count: number): Uint8Array {
  let end = -1;
  for (let line = 0; line < count; line++) {
    end = bytes.indexOf(10, end + 1);
    if (end === -1) return bytes;
  }
  return bytes.subarray(0, end);
}

async function largestAnswers(client: Client, work: string): Promise<void> {
  const listed = await new Deno.Command("git", { args: ["ls-files", "-z"], cwd: work }).output();
  const files: [string, number][] = [];
  for (const path of new TextDecoder().decode(listed.stdout).split("\0").filter(Boolean)) {
    files.push([path, await readSize(`${work}/${path}`)]);
  }
  const widest = await widestFiles(
    files,
    (path) => Deno.readFile(`${work}/${path}`).catch(() => new Uint8Array()),
  );
  const widestLines = Math.min(
    500,
    (await Deno.readTextFile(`${work}/${widest[0]}`)).trimEnd().split("\n").length,
  );
  const head = header(
    (await callTool(client, "search", { repo: NAME, pattern: LITERAL })).texts[0],
    "Commit",
  )!;
  const answers: [string, Record<string, unknown>][] = [
    ["repositories", {}],
    ["availability", { repo: NAME }],
    ["resolve", { repo: NAME }],
    ["search", { repo: NAME, pattern: "e" }],
    ["search", { repo: NAME, pattern: "e", context: 20 }],
    ["symbols", { repo: NAME, query: ".", match: "regex", first: 500 }],
    ["read", { repo: NAME, path: widest[0] }],
    ["read_many", { repo: NAME, files: widest.slice(0, 10).map((path) => ({ path })) }],
    ["list", { repo: NAME, path: "t", first: 1000 }],
    ["diff", { repo: NAME, base: "main", head: "main", first: 100 }],
    [
      "locate",
      {
        repo: NAME,
        commit: JSON.parse(head),
        path: widest[0],
        start_line: 1,
        end_line: widestLines,
      },
    ],
  ];
  for (const [tool, args] of answers) {
    const outcome = await callTool(client, tool, args);
    const label = `${tool} ${JSON.stringify(args).slice(0, 120)}`;
    assertEquals(outcome.code, "OK", `${label}: ${outcome.texts[0]?.slice(0, 300)}`);
    const characters = outcome.texts.join("").length;
    console.log(`largest default answer of ${tool}: ${characters} characters`);
    assert(characters <= 40_000, `${label}: ${characters} characters`);
  }
  // The widest read was cut by its budget and says where to go on.
  const read = (await callTool(client, "read", { repo: NAME, path: widest[0] })).texts[0];
  assert(/^Truncated: true; HasMore: true; NextStartLine: \d+$/m.test(read), read.slice(0, 600));
  const listing = JSON.parse(
    (await callTool(client, "list", { repo: NAME, path: "t", first: 1000 })).texts[0],
  );
  assertEquals(listing.has_more, true);
  assertEquals(listing.next_cursor, listing.entries.at(-1).path);
  await errorAnswers(client);
}

async function errorAnswers(client: Client): Promise<void> {
  const errors: [string, Record<string, unknown>][] = [
    ["read", { repo: "org/gti", path: "README.md" }],
    ["read", { repo: NAME, path: "builtin/comit.c" }],
    ["read", { repo: NAME, path: "README.md", revision: "mian" }],
    ["search", { repo: NAME, pattern: "(".repeat(8000) }],
    [
      "read",
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x${"y".repeat(300)}${i}`, i])),
    ],
    ["x".repeat(10_000), {}],
  ];
  for (const [tool, args] of errors) {
    const outcome = await callTool(client, tool, args);
    assert(outcome.code !== "OK", tool.slice(0, 20));
    const characters = outcome.texts.join("").length;
    assert(characters <= 4_000, `${tool.slice(0, 20)} error: ${characters} characters`);
  }
}
