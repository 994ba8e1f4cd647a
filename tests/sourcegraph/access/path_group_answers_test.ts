/**
 * A repository whose path groups show only `docs/public`: what lies outside
 * them is never searched, so an anonymous caller's answer to a pattern held
 * only by hidden files is the answer to one held nowhere, byte for byte
 * (search, its zero-result counts and suggestion, symbols, the HTTP API and
 * the pages), and every count is of visible files only.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  inProcessPost,
  type InProcessWorld,
  withInProcessService,
} from "../../support/in_process_service.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import { callText } from "../../support/tool_calls.ts";
import { SEARCH_MAX_MATCHES } from "../../../sourcegraph/search/code_search.ts";
import {
  SYMBOL_MAX_DEFINITIONS,
  SYMBOL_MAX_NAMES,
} from "../../../sourcegraph/search/symbol_search.ts";

const VISIBLE_LINE =
  "export function HiddenVisible(): void {} export function HiddexVisible(): void {}";

const FILES = {
  "docs/public/guide.md": "Public guide.\nCall HiddenName or OtherNames here.\n",
  "docs/public/notes.md": "More public notes.\n",
  "docs/private/secret.md": "token=hunter2\nHUNTER3 shouted\n",
  "docs/private/defs.ts": "export function HiddenName(): void {}\nexport class HiddenType {}\n",
  "src/app.ts": "export const hunter2 = 1;\n",
  // More definitions of one name than a lookup collects, all hidden.
  "docs/private/many.ts": "function Dup(): void {}\n".repeat(SYMBOL_MAX_DEFINITIONS + 1),
  "docs/public/dup.ts": "export function Dup(): void {}\n",
  "docs/public/dun.ts": "export function Dun(): void {}\n",
  // More names holding `Hidden` than a lookup selects or a search ranks by, all hidden.
  "docs/private/names.ts": Array.from(
    { length: SYMBOL_MAX_NAMES + 1 },
    (_, i) => `export function HiddenFn${i}(): void {}\n`,
  ).join(""),
  "docs/public/visible.ts": `${VISIBLE_LINE}\n`,
};

const WORLD = {
  repositories: [{
    name: "org/mono",
    publicRead: true,
    files: FILES,
    pathGroups: [{ name: "public", paths: ["docs/public"] }],
  }],
  searchIndex: true,
};

// The cases on one world of WORLD (indexed), in order.
const worldCases = new SharedCases<InProcessWorld>();

Deno.test("path groups on one indexed world of org/mono", (t) =>
  withInProcessService((world) => worldCases.run(t, world), WORLD));

// Search arguments with a pattern held only by hidden files, and the same
// with a pattern held nowhere.
type Pair = [Record<string, unknown>, Record<string, unknown>];

function pair(hidden: string, nowhere: string, scope: Record<string, unknown> = {}): Pair {
  return [{ pattern: hidden, ...scope }, { pattern: nowhere, ...scope }];
}

// Hidden only against nowhere over every scope a caller may name, asked of
// the index and of Git alike.
const HIDDEN_AGAINST_NOWHERE: Pair[] = [
  pair("hunter2", "hunted9"),
  pair("hunter2", "hunted9", { paths: ["docs"] }),
  pair("hunter2", "hunted9", { paths: ["docs/"] }),
  pair("hunter2", "hunted9", { paths: ["docs"], glob: ["*.md"] }),
  pair("hunter[0-9]", "hunted[0-9]", { paths: ["docs"] }),
  pair("HUNTER2", "HUNTED9", { paths: ["docs"] }),
  pair("token=h[a-m]", "tokez=h[a-m]", { paths: ["docs"] }),
  pair("HiddenType", "HiddenTypo", { paths: ["docs"], output: "files" }),
];

// The answer with `pattern` (and the two names used in one visible line)
// written as a placeholder, and a `Hiddex…` twin named as its `Hidden…`
// original: answers echo the pattern, and request ids differ.
function neutral(answer: string, pattern: string): string {
  return [pattern, "HiddenName", "OtherNames"].reduce(
    (text, word) => text.replaceAll(word, "<pattern>"),
    answer,
  ).replaceAll("Hiddex", "Hidden").replace(/"RequestID":"[^"]*"/g, "");
}

worldCases.add(
  "path groups: hidden content answers as absent content in search and its zero-result counts",
  async ({ handle }) => {
    const client = await connectInProcess(handle);
    const search = (args: Record<string, unknown>) =>
      callText(client, "search", { repo: "org/mono", ...args });
    try {
      await waitFor(async () => (await search({ pattern: "absent" })).includes('Index: "ready"'));
      // Hidden only (left) against nowhere (right), over every scope a caller may name.
      const pairs: Pair[] = [
        ...HIDDEN_AGAINST_NOWHERE,
        pair("token=h[n-z]", "tokez=h[n-z]", { paths: ["docs"] }),
      ];
      for (const [hidden, nowhere] of pairs) {
        const seen = await search(hidden);
        assert(seen.includes("No matches."), seen);
        assertEquals(
          neutral(seen, hidden.pattern as string),
          neutral(await search(nowhere), nowhere.pattern as string),
          JSON.stringify(hidden),
        );
      }
      // Every figure counts visible files only: five are visible, all text.
      const counts = await search({ pattern: "hunted9", paths: ["docs"] });
      assert(
        counts.includes("FilesAtCommit: 5; InPathsAndGlobs: 5; HoldingLiteralsAnyCase: 0"),
        counts,
      );
      // The folder leading into the group stands for the group.
      assert(
        (await search({ pattern: "Public", paths: ["docs"] })).includes(
          'Paths: ["docs/public"]',
        ),
      );
    } finally {
      await client.close();
    }
  },
);

worldCases.add(
  "path groups: hidden definitions neither rank a search nor count in symbols (MCP, HTTP, pages)",
  async ({ handle }) => {
    const client = await connectInProcess(handle);
    const fetchPath = inProcessFetch(handle);
    const postJson = inProcessPost(handle);
    const post = async (path: string, body: unknown): Promise<string> => {
      const response = await postJson(`/sourcegraph${path}`, body);
      return `${response.status} ${await response.text()}`;
    };
    const page = async (path: string): Promise<string> => {
      const response = await fetchPath(`/sourcegraph/org/mono/-/${path}`);
      return `${response.status} ${await response.text()}`;
    };
    try {
      await waitFor(async () =>
        (await callText(client, "search", { repo: "org/mono", pattern: "absent" }))
          .includes('Index: "ready"')
      );
      // `HiddenName` is defined only in a hidden file, `OtherNames` nowhere; both are used visibly.
      const api = (pattern: string) =>
        post("/api/search?repo=org/mono", { Pattern: pattern, Paths: ["docs"] });
      const ranked = JSON.parse((await api("HiddenName")).slice(4));
      assertEquals([ranked.Meta.Ranked, ranked.Result.Files[0].Defines], [false, null]);
      assertEquals(
        neutral(await api("HiddenName"), "HiddenName"),
        neutral(await api("OtherNames"), "OtherNames"),
      );
      assertEquals(
        neutral(
          await callText(client, "search", {
            repo: "org/mono",
            pattern: "HiddenName",
            paths: ["docs"],
          }),
          "HiddenName",
        ),
        neutral(
          await callText(client, "search", {
            repo: "org/mono",
            pattern: "OtherNames",
            paths: ["docs"],
          }),
          "OtherNames",
        ),
      );
      assertEquals(
        neutral(await page("search?q=hunter2"), "hunter2"),
        neutral(await page("search?q=hunted9"), "hunted9"),
      );
      for (
        const [hidden, nowhere, extra] of [
          ["HiddenName", "HiddenNamf", {}],
          ["Hidden", "Hiddex", { match: "prefix" }],
          ["^Hidden", "^Hiddex", { match: "regex" }],
          ["hiddenname", "hiddennamf", { ignore_case: true }],
        ] as const
      ) {
        // The visible line defines both twins: its signature reads alike for either.
        const symbols = async (query: string) =>
          (await callText(client, "symbols", { repo: "org/mono", query, ...extra }))
            .replaceAll(VISIBLE_LINE, "<visible line>");
        assertEquals(
          neutral(await symbols(hidden), hidden),
          neutral(await symbols(nowhere), nowhere),
        );
        const wire = (query: string) =>
          post("/v1/repo/symbols?repo=org/mono", {
            Query: query,
            ...("match" in extra ? { Match: extra.match } : {}),
            ...("ignore_case" in extra ? { IgnoreCase: true } : {}),
          });
        const line = (answer: string) => answer.replaceAll(VISIBLE_LINE, "<visible line>");
        assertEquals(
          neutral(line(await wire(hidden)), hidden),
          neutral(line(await wire(nowhere)), nowhere),
        );
      }
      // No hidden name is ever suggested: a near miss, a case-only miss and a prefix of hidden
      // names answer exactly as a name near nothing (the answer does not echo the query).
      for (
        const [nearHidden, nearNothing] of [
          ["HiddenNamf", "Qz9Wv7Xk2y"],
          ["hiddenname", "qz9wv7xk2y"],
          ["HiddenNa", "Qz9Wv7Xk"],
          ["HiddenFn", "Qz9Wv7Xk"],
          ["hiddentype", "qz9wv7xk2y"],
        ]
      ) {
        const mcp = (query: string) => callText(client, "symbols", { repo: "org/mono", query });
        assertEquals(await mcp(nearHidden), await mcp(nearNothing), nearHidden);
        const wire = (query: string) =>
          post("/v1/repo/symbols?repo=org/mono", { Query: query }).then((answer) =>
            answer.replace(/"RequestID":"[^"]*"/g, "")
          );
        assertEquals(await wire(nearHidden), await wire(nearNothing), nearHidden);
      }
      // Hidden definitions use up no cap: `Dup` answers as `Dun` (one visible definition each).
      const dup = (query: string) =>
        post("/v1/repo/symbols?repo=org/mono", { Query: query }).then((answer) =>
          answer.replaceAll(query, "<pattern>").replace(/"RequestID":"[^"]*"/g, "")
            .replaceAll("dup.ts", "<file>").replaceAll("dun.ts", "<file>")
        );
      assertEquals(await dup("Dup"), await dup("Dun"));
      // Hidden names take no place under the name caps: the visible definition is selected and
      // ranks its file, as its twin `Hiddex…` (no hidden name holds that) does.
      const twin = (answer: string) => answer.replaceAll("Hiddex", "Hidden");
      const prefix = await post("/v1/repo/symbols?repo=org/mono", {
        Query: "Hidden",
        Match: "prefix",
      });
      assertEquals(
        JSON.parse(prefix.slice(4)).Symbols.map((symbol: { Name: string }) => symbol.Name),
        ["HiddenVisible"],
      );
      const rankedBy = (pattern: string) =>
        post("/api/search?repo=org/mono", { Pattern: pattern, Paths: ["docs"] }).then((answer) =>
          answer.replace(/"RequestID":"[^"]*"/g, "")
        );
      const byName = JSON.parse(
        (await post("/api/search?repo=org/mono", { Pattern: "Hidden[FV]", Paths: ["docs"] }))
          .slice(4),
      );
      assertEquals([byName.Meta.Ranked, byName.Result.Files[0].Defines], [true, ["HiddenVisible"]]);
      assertEquals(await rankedBy("Hidden[FV]"), twin(await rankedBy("Hiddex[FV]")));
      assert((await dup("Dup")).includes('"Truncated":false'));
      assertEquals(
        neutral(await page("symbols?q=HiddenName"), "HiddenName"),
        neutral(await page("symbols?q=HiddenNamf"), "HiddenNamf"),
      );
      const folder = await callText(client, "symbols", {
        repo: "org/mono",
        query: "Hidden",
        match: "prefix",
        paths: ["docs"],
      });
      assert(!folder.includes("docs/private"), folder);
    } finally {
      await client.close();
    }
  },
);

Deno.test("path groups: locate follows a rename among visible files only", () =>
  withInProcessService(async ({ handle, heads, sources, store, scheduler }) => {
    const text = "# Guide\nstep one\nstep two\nstep three\n";
    const located: string[] = [];
    const client = await connectInProcess(handle);
    try {
      for (const name of ["org/hidden-copy", "org/no-copy"]) {
        const source = sources.get(name)!;
        // The cited file moves within the group; one repository also gets a
        // hidden copy under the same file name (Git's favourite rename target).
        await source.git("rm", "-q", "docs/public/guide.md");
        await source.write({
          "docs/public/moved.md": text,
          ...(name === "org/hidden-copy" ? { "docs/private/guide.md": text } : {}),
        });
        const second = await source.commit("move");
        await scheduler.sync(store.repository(name)!);
        const answer = await callText(client, "locate", {
          repo: name,
          commit: heads.get(name)!,
          path: "docs/public/guide.md",
          start_line: 2,
          end_line: 3,
        });
        located.push(
          answer.replaceAll(name, "<repo>").replaceAll(heads.get(name)!, "<first>")
            .replaceAll(second, "<second>"),
        );
      }
      assert(located[1].includes('"docs/public/moved.md"'), located[1]);
      assertEquals(located[0], located[1]);
    } finally {
      await client.close();
    }
  }, {
    repositories: ["org/hidden-copy", "org/no-copy"].map((name) => ({
      name,
      publicRead: true,
      files: {
        "docs/public/guide.md": "# Guide\nstep one\nstep two\nstep three\n",
        "docs/private/keep.md": "kept\n",
      },
      pathGroups: [{ name: "public", paths: ["docs/public"] }],
    })),
  }));

Deno.test("path groups: reads, listings, diffs and pages answer for a hidden path as for a missing one", () =>
  withInProcessService(async ({ handle, heads, sources, store, scheduler }) => {
    const first = heads.get("org/mono")!;
    const source = sources.get("org/mono")!;
    // Only hidden files change.
    await source.write({ "docs/private/secret.md": "token=hunter3\n", "src/app.ts": "changed\n" });
    const second = await source.commit("hidden change");
    await scheduler.sync(store.repository("org/mono")!);
    const client = await connectInProcess(handle);
    const fetchPath = inProcessFetch(handle);
    const get = async (path: string): Promise<string> => {
      const response = await fetchPath(`/sourcegraph${path}`);
      return `${response.status} ${await response.text()}`.replace(/"RequestID":"[^"]*"/g, "")
        .replace(/request[_ -]?id[^<\n]*/gi, "");
    };
    const call = (tool: string, args: Record<string, unknown>) =>
      callText(client, tool, { repo: "org/mono", ...args });
    try {
      const same = async (hidden: () => Promise<string>, missing: () => Promise<string>) =>
        assertEquals(
          (await hidden()).replaceAll("private", "<dir>"),
          (await missing()).replaceAll("nothing", "<dir>"),
        );
      await same(
        () => call("read", { path: "docs/private/secret.md" }),
        () => call("read", { path: "docs/nothing/secret.md" }),
      );
      await same(
        () => call("list", { path: "docs/private", first: 10 }),
        () => call("list", { path: "docs/nothing", first: 10 }),
      );
      await same(
        () =>
          call("read_many", {
            files: [{ path: "docs/private/secret.md" }, { path: "docs/public/secre.md" }],
          }),
        () =>
          call("read_many", {
            files: [{ path: "docs/nothing/secret.md" }, { path: "docs/public/secre.md" }],
          }),
      );
      const listed = JSON.parse(await call("list", { path: "docs", first: 10 }));
      assertEquals(listed.entries.map((entry: { path: string }) => entry.path), ["docs/public"]);
      // A diff where only hidden files changed is the diff of nothing, whatever folder is named.
      for (const paths of [undefined, ["docs"], ["docs/public"]]) {
        const changed = JSON.parse(
          await call("diff", { base: first, head: second, first: 10, ...(paths ? { paths } : {}) }),
        );
        assertEquals([changed.changes, changed.has_more], [[], false], JSON.stringify(paths));
      }
      const postJson = inProcessPost(handle);
      const post = async (path: string, body: unknown): Promise<string> => {
        const response = await postJson(`/sourcegraph${path}`, body);
        return `${response.status} ${await response.text()}`.replace(/"RequestID":"[^"]*"/g, "");
      };
      await same(
        () => post("/v1/repo/read?repo=org/mono", { Path: "docs/private/secret.md" }),
        () => post("/v1/repo/read?repo=org/mono", { Path: "docs/nothing/secret.md" }),
      );
      await same(
        () => post("/v1/repo/list?repo=org/mono", { Path: "docs/private", First: 10 }),
        () => post("/v1/repo/list?repo=org/mono", { Path: "docs/nothing", First: 10 }),
      );
      await same(
        () =>
          post("/v1/repo/diff?repo=org/mono", {
            Base: first,
            Head: second,
            First: 10,
            Paths: ["docs"],
          }).then((answer) => answer.replaceAll(first, "<a>").replaceAll(second, "<b>")),
        () =>
          post("/v1/repo/diff?repo=org/mono", {
            Base: first,
            Head: first,
            First: 10,
            Paths: ["docs"],
          }).then((answer) =>
            answer.replaceAll(first, "<a>").replace('"Head":"<a>"', '"Head":"<b>"')
          ),
      );
      for (const page of ["tree", "blob", "raw"]) {
        const url = (dir: string) =>
          get(`/org/mono/-/${page}/${first}/docs/${dir}${page === "tree" ? "" : "/secret.md"}`);
        await same(() => url("private"), () => url("nothing"));
      }
    } finally {
      await client.close();
    }
  }, WORLD));

Deno.test("path groups: before the commit is indexed (git grep), hidden content answers as absent content", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    const search = (args: Record<string, unknown>) =>
      callText(client, "search", { repo: "org/mono", ...args });
    const postJson = inProcessPost(handle);
    const api = async (body: Record<string, unknown>): Promise<string> => {
      const response = await postJson("/sourcegraph/api/search?repo=org/mono", body);
      return `${response.status} ${await response.text()}`;
    };
    try {
      // Searches go through Git: no index is built for this world.
      assert(!(await search({ pattern: "absent" })).includes('Index: "ready"'));
      const pairs: Pair[] = [
        ...HIDDEN_AGAINST_NOWHERE,
        pair("hunter2", "hunted9", { ignore_case: true }),
        pair("hunter2", "hunted9", { fixed_strings: true }),
        // Without a literal Git cannot narrow by: every visible file is read.
        pair("t.k.n=h[n-z]", "t.k.z=h[n-z]"),
        // More hidden matches than a search collects: no cap is reached.
        pair("flood7", "floox7"),
        pair("flood7", "floox7", { paths: ["docs"] }),
      ];
      for (const [hidden, nowhere] of pairs) {
        const seen = await search(hidden);
        assert(seen.includes("No matches.") && seen.includes("Truncated: false"), seen);
        assertEquals(
          neutral(seen, hidden.pattern as string),
          neutral(await search(nowhere), nowhere.pattern as string),
          JSON.stringify(hidden),
        );
        const wire = (args: Record<string, unknown>) =>
          api({
            Pattern: args.pattern,
            ...(args.paths ? { Paths: args.paths } : {}),
            ...(args.glob ? { Glob: args.glob } : {}),
            ...(args.ignore_case ? { IgnoreCase: true } : {}),
            ...(args.fixed_strings ? { FixedStrings: true } : {}),
          });
        assertEquals(
          neutral(await wire(hidden), hidden.pattern as string),
          neutral(await wire(nowhere), nowhere.pattern as string),
          `HTTP ${JSON.stringify(hidden)}`,
        );
      }
    } finally {
      await client.close();
    }
  }, {
    repositories: [{
      ...WORLD.repositories[0],
      files: { ...FILES, "docs/private/flood.txt": "flood7\n".repeat(SEARCH_MAX_MATCHES + 1) },
    }],
    searchIndex: false,
  }));
