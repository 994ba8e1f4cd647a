/**
 * `search` across repositories: every visible repository, a glob, a list;
 * each repository's block is exactly its single-repository answer; a
 * private repository never shows or counts; pages continue across
 * repositories; repositories that cannot be searched are named.
 */

import { assert, assertEquals, assertIncludes, waitFor } from "../../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

const REPOSITORIES = [
  {
    name: "org/alpha",
    publicRead: true,
    files: { "a.txt": "needle one\nnothing\nneedle two\n", "src/x.ts": "const needle = 1;\n" },
  },
  { name: "org/beta", publicRead: true, files: { "b.txt": "no match here\n" } },
  {
    name: "org/gamma",
    publicRead: true,
    files: Object.fromEntries(
      Array.from(
        { length: 30 },
        (_, i) => [`g/f${i}.txt`, `needle in gamma ${i} ${"x".repeat(200)}\n`],
      ),
    ),
  },
  { name: "team/delta", publicRead: true, files: { "d.txt": "needle delta\n" } },
  { name: "org/secret", publicRead: false, files: { "s.txt": "needle secret\n" } },
];

const PUBLIC_NAMES = REPOSITORIES.filter((r) => r.publicRead).map((r) => r.name);

// The answer's matches as `repo path:line`, in order.
function matches(text: string): string[] {
  const out: string[] = [];
  let repo = "";
  let path = "";
  for (const line of text.split("\n")) {
    const named = /^Repository: (".*")$/.exec(line);
    if (named) repo = JSON.parse(named[1]);
    const file = /^File: (".*")$/.exec(line);
    if (file) path = JSON.parse(file[1]);
    const row = /^(\d+): /.exec(line);
    if (row) out.push(`${repo} ${path}:${row[1]}`);
  }
  return out;
}

// Waits until every named repository answers through its index, so that two
// searches in a row read the same state (an index turning ready between them
// changes the `Index:` line).
async function indexesReady(client: Client, repositories: string[]): Promise<void> {
  for (const repo of repositories) {
    await waitFor(
      async () =>
        (await callText(client, "search", { repo, pattern: "needle" })).includes('Index: "ready"'),
      {
        what: `the index of ${repo}`,
      },
    );
  }
}

function header(text: string, label: string): string | undefined {
  return new RegExp(`^${label}: (.*)$`, "m").exec(text)?.[1];
}

Deno.test("search across repositories: one service of five repositories, case by case", (t) =>
  withInProcessService(async ({ handle }) => {
    await t.step(
      "search across repositories: every visible one, globs and lists; private ones never show",
      async () => {
        const anonymous = await connectInProcess(handle);
        const member = await connectInProcess(handle, { token: WORLD_TOKEN });
        try {
          await indexesReady(anonymous, PUBLIC_NAMES);
          const everything = await callText(anonymous, "search", { pattern: "needle" });
          assert(!everything.includes("secret"), everything);
          assertEquals(
            header(everything, "Repositories"),
            "4; Searched: 4; WithMatches: 3; FileCount: 33; MatchCount: 34",
          );
          // Every visible repository is the same selection as naming them: the same answer, byte for byte.
          const listed = await callText(anonymous, "search", {
            repo: ["org/alpha", "org/beta", "org/gamma", "team/delta"],
            pattern: "needle",
          });
          assertEquals(listed, everything);
          // The member sees the private repository too.
          const all = await callText(member, "search", { pattern: "needle" });
          assertIncludes(all, 'Repository: "org/secret"');
          const glob = await callText(anonymous, "search", { repo: "org/*", pattern: "needle" });
          assertEquals([...new Set(matches(glob).map((m) => m.split(" ")[0]))], [
            "org/alpha",
            "org/gamma",
          ]);
          // A private name is as unknown to the anonymous caller as a missing one.
          assertEquals(
            (await callTool(anonymous, "search", {
              repo: ["org/alpha", "org/secret"],
              pattern: "x",
            }))
              .code,
            "REPOSITORY_NOT_FOUND",
          );
          assertEquals(
            (await callTool(anonymous, "search", { repo: ["org/alpha", "org/nope"], pattern: "x" }))
              .code,
            "REPOSITORY_NOT_FOUND",
          );
          // A repository's block is its single-repository answer's file rows.
          const single = await callText(anonymous, "search", {
            repo: "org/alpha",
            pattern: "needle",
          });
          const singleRows = single.slice(single.indexOf('File: "'));
          const block = glob.slice(
            glob.indexOf('File: "'),
            glob.indexOf('Repository: "org/gamma"'),
          );
          assertEquals(block, singleRows);
          assertEquals(header(glob, "Commit"), header(single, "Commit"));
          // A branch some repositories lack: they are named as skipped, never silently missing.
          const branch = await callText(anonymous, "search", {
            pattern: "needle",
            revision: "dev",
          });
          assertEquals(branch.match(/^Skipped: /gm)?.length, 4);
          assertIncludes(branch, 'Skipped: "org/alpha"; "BRANCH_NOT_MONITORED"');
        } finally {
          await anonymous.close();
          await member.close();
        }
      },
    );
    await t.step(
      "search across repositories: pages continue across repositories, each match once",
      async () => {
        const client = await connectInProcess(handle);
        try {
          await indexesReady(client, PUBLIC_NAMES);
          const whole = matches(await callText(client, "search", { pattern: "needle" }));
          assertEquals(whole.length, 34);
          const seen: string[] = [];
          let after: string | undefined;
          let pages = 0;
          for (; pages < 40; pages++) {
            const text = await callText(client, "search", {
              pattern: "needle",
              max_bytes: 4096,
              ...(after ? { after } : {}),
            });
            assert(new TextEncoder().encode(text).length <= 4096);
            seen.push(...matches(text));
            const next = header(text, "NextCursor");
            if (next === undefined) break;
            after = JSON.parse(next);
          }
          assert(pages >= 1, "the answer took more than one page");
          assertEquals(seen, whole);
          const bad = await callTool(client, "search", {
            pattern: "needle",
            after: "bm90IGEgY3Vyc29y",
          });
          assertEquals(bad.code, "INVALID_CURSOR");
        } finally {
          await client.close();
        }
      },
    );
  }, { repositories: REPOSITORIES, searchIndex: true }));

// One service of both cases' repositories: each case's pattern is found in its own
// repositories only, and a repository without a match has no block and no row.
Deno.test("search across repositories: one service of seven repositories, case by case", (t) =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      await t.step(
        "search across repositories: a repository past its per-repository cap continues on the next page, in order",
        async () => {
          await indexesReady(client, ["org/many", "org/zed"]);
          const pages: string[][] = [];
          let after: string | undefined;
          for (let page = 0; page < 10; page++) {
            const text = await callText(client, "search", {
              pattern: "needle",
              max_bytes: 256 * 1024,
              ...(after ? { after } : {}),
            });
            pages.push(matches(text));
            const next = header(text, "NextCursor");
            if (next === undefined) break;
            after = JSON.parse(next);
          }
          // org/many has 250 matching files: 200 on the first page, then the rest, then org/zed.
          assertEquals(pages.map((page) => page.length), [200, 51]);
          const seen = pages.flat();
          const many = Array.from(
            { length: 250 },
            (_, i) => `org/many m/f${String(i).padStart(3, "0")}.txt:1`,
          );
          assertEquals(seen, [...many, "org/zed z.txt:1"]);
        },
      );
      await t.step(
        "search across repositories: repositories come by their best file, each block its own answer",
        async () => {
          await indexesReady(client, [
            "org/aa-mentions",
            "org/bb-mentions",
            "org/mm-named",
            "org/zz-defines",
          ]);
          const text = await callText(client, "search", { pattern: "frobnicateWidget" });
          const blocks = [...text.matchAll(/^Repository: "(.*)"$/gm)].map((m) => m[1]);
          // The definition first, then the file named like the pattern, then the mentions (by name).
          assertEquals(blocks, [
            "org/zz-defines",
            "org/mm-named",
            "org/aa-mentions",
            "org/bb-mentions",
          ]);
          assertIncludes(text, "Ranking: repositories by their best file");
          // Each block is the repository's own answer, content and order.
          const each = [];
          for (const repo of blocks) {
            each.push(
              ...matches(await callText(client, "search", { repo, pattern: "frobnicateWidget" }))
                .map((match) => `${repo} ${match.slice(match.indexOf(" ") + 1)}`),
            );
          }
          assertEquals(matches(text), each);
          // Pages keep the ranked order.
          const paged: string[] = [];
          let after: string | undefined;
          let pages = 1;
          for (; pages < 20; pages++) {
            const part = await callText(client, "search", {
              pattern: "frobnicateWidget",
              max_bytes: 4096,
              ...(after ? { after } : {}),
            });
            paged.push(...matches(part));
            const next = header(part, "NextCursor");
            if (next === undefined) break;
            after = JSON.parse(next);
          }
          assertEquals(paged, matches(text));
          assert(pages > 1, "the answer took more than one page");
        },
      );
    } finally {
      await client.close();
    }
  }, {
    repositories: [
      {
        name: "org/many",
        publicRead: true,
        files: Object.fromEntries(
          Array.from(
            { length: 250 },
            (_, i) => [`m/f${String(i).padStart(3, "0")}.txt`, "needle\n"],
          ),
        ),
      },
      { name: "org/zed", publicRead: true, files: { "z.txt": "needle zed\n" } },
      {
        name: "org/aa-mentions",
        publicRead: true,
        files: {
          "a.ts": "frobnicateWidget(1);\nfrobnicateWidget(2);\n",
          ...Object.fromEntries(
            Array.from(
              { length: 30 },
              (_, i) => [`m/f${i}.txt`, `frobnicateWidget ${i} ${"x".repeat(200)}\n`],
            ),
          ),
        },
      },
      { name: "org/bb-mentions", publicRead: true, files: { "b.ts": "frobnicateWidget(3);\n" } },
      {
        name: "org/mm-named",
        publicRead: true,
        files: {
          "lib/frobnicateWidget.md": "About frobnicateWidget.\n",
          "a.ts": "frobnicateWidget(4);\n",
        },
      },
      {
        name: "org/zz-defines",
        publicRead: true,
        files: {
          "a.ts": "frobnicateWidget(5);\n",
          "src/widget.ts": "export function frobnicateWidget(): void {}\n",
        },
      },
      {
        name: "org/zz-secret",
        publicRead: false,
        files: { "w.ts": "function frobnicateWidget() {}\n" },
      },
    ],
    searchIndex: true,
  }));
