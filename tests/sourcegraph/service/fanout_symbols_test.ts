/**
 * `symbols` across repositories through an SDK client, on symbols the real
 * builder extracted: every visible repository, a glob, a list; one
 * repository's definitions keep its own lookup's order; a private
 * repository never shows or counts; pages continue by cursor; repositories
 * that cannot be looked up are named.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  WORLD_TOKEN,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";

const REPOSITORIES: WorldRepository[] = [
  {
    name: "org/alpha",
    publicRead: true,
    files: {
      "src/config.ts":
        "export function parseConfig(text: string) {\n  return text;\n}\nexport class Loader {\n  parseConfig() {}\n}\n",
      "tests/config_test.ts": "function parseConfig() {}\n",
    },
  },
  {
    name: "org/beta",
    publicRead: true,
    files: { "lib/config.py": "def parseConfig(text):\n    return text\n" },
  },
  { name: "org/plain", publicRead: true, files: { "README.md": "parseConfig is documented.\n" } },
  {
    name: "team/delta",
    publicRead: true,
    files: { "pkg/config.go": "package pkg\n\nfunc parseConfig() {}\n" },
  },
  {
    name: "org/secret",
    publicRead: false,
    files: { "s.ts": "export function parseConfig() {}\n" },
  },
];

interface Answer {
  repos: Record<string, string>;
  symbols: { repo: string; path: string; start_line: number; kind: string; signature?: string }[];
  total: number;
  has_more: boolean;
  next_cursor?: string;
  skipped?: { repo: string; code: string }[];
}

function rows(answer: Answer): string[] {
  return answer.symbols.map((s) => `${s.repo} ${s.path}:${s.start_line} ${s.kind}`);
}

Deno.test("symbols across repositories: one service of its repositories, case by case", (t) =>
  withInProcessService(async ({ handle }) => {
    await t.step(
      "symbols across repositories: every visible one, globs and lists, ranked; private ones never show",
      async () => {
        const anonymous = await connectInProcess(handle);
        const member = await connectInProcess(handle, { token: WORLD_TOKEN });
        const run = async (client = anonymous, args: Record<string, unknown> = {}) =>
          JSON.parse(
            await callText(client, "symbols", { query: "parseConfig", ...args }),
          ) as Answer;
        try {
          await waitFor(async () => (await run()).skipped === undefined);
          const everything = await run();
          assertEquals(Object.keys(everything.repos), [
            "org/alpha",
            "org/beta",
            "org/plain",
            "team/delta",
          ]);
          assert(!JSON.stringify(everything).includes("secret"), JSON.stringify(everything));
          // Code before tests; ties in repository order, each repository in its own order.
          assertEquals(rows(everything), [
            "org/alpha src/config.ts:1 function",
            "org/alpha src/config.ts:5 method",
            "org/beta lib/config.py:1 function",
            "team/delta pkg/config.go:3 function",
            "org/alpha tests/config_test.ts:1 function",
          ]);
          assertEquals(everything.total, 5);
          const alpha = everything.repos["org/alpha"];
          // Each definition carries its first line, whatever its repository and language.
          assertEquals(everything.symbols.map((s) => s.signature), [
            "export function parseConfig(text: string) {",
            "parseConfig() {}",
            "def parseConfig(text):",
            "func parseConfig() {}",
            "function parseConfig() {}",
          ]);
          // Naming every visible repository is the same selection: the same answer, byte for byte.
          assertEquals(
            await callText(anonymous, "symbols", {
              query: "parseConfig",
              repo: ["org/alpha", "org/beta", "org/plain", "team/delta"],
            }),
            await callText(anonymous, "symbols", { query: "parseConfig" }),
          );
          // One repository's definitions keep its own lookup's order and commit.
          const single = JSON.parse(
            await callText(anonymous, "symbols", { query: "parseConfig", repo: "org/alpha" }),
          );
          assertEquals(single.commit, alpha);
          const place = (s: Answer["symbols"][number]) =>
            `${s.path}:${s.start_line} ${s.signature}`;
          assertEquals(
            everything.symbols.filter((s) => s.repo === "org/alpha").map(place),
            (single.symbols as Answer["symbols"]).map(place),
          );
          const glob = await run(anonymous, { repo: "org/*" });
          assertEquals(Object.keys(glob.repos), ["org/alpha", "org/beta", "org/plain"]);
          // The member sees the private repository (once indexed); the anonymous caller cannot name it.
          await waitFor(async () => (await run(member)).skipped === undefined);
          const seenByMember = rows(await run(member));
          assert(seenByMember.includes("org/secret s.ts:1 function"), seenByMember.join("\n"));
          assertEquals(
            (await callTool(anonymous, "symbols", {
              query: "parseConfig",
              repo: ["org/alpha", "org/secret"],
            })).code,
            "REPOSITORY_NOT_FOUND",
          );
          // A branch the repositories lack: each is named as skipped.
          const branch = await run(anonymous, { revision: "dev" });
          assertEquals(branch.symbols, []);
          assertEquals(branch.skipped?.map((s) => s.code), Array(4).fill("BRANCH_NOT_MONITORED"));
        } finally {
          await anonymous.close();
          await member.close();
        }
      },
    );
    await t.step(
      "symbols across repositories: pages continue by cursor, each definition once",
      async () => {
        const client = await connectInProcess(handle);
        const run = async (args: Record<string, unknown>) =>
          JSON.parse(
            await callText(client, "symbols", { query: "parseConfig", ...args }),
          ) as Answer;
        try {
          await waitFor(async () => (await run({})).skipped === undefined);
          const whole = rows(await run({}));
          const seen: string[] = [];
          let after: string | undefined;
          for (let page = 0; page < 10; page++) {
            const answer = await run({ first: 2, ...(after ? { after } : {}) });
            seen.push(...rows(answer));
            if (answer.next_cursor === undefined) break;
            assert(answer.has_more);
            after = answer.next_cursor;
          }
          assertEquals(seen, whole);
          // By bytes: a small page still continues where it was cut.
          const small = await run({ max_bytes: 1024 });
          assert(small.symbols.length < whole.length && small.next_cursor !== undefined);
          const rest = await run({ after: small.next_cursor });
          assertEquals([...rows(small), ...rows(rest)], whole);
          for (const after of ["bm90IGEgY3Vyc29y", "WyJzeW1ib2xzIiwiYSIsMV0"]) {
            assertEquals(
              (await callTool(client, "symbols", { query: "x", after })).code,
              "INVALID_CURSOR",
            );
          }
          // A single repository's cursor does not continue a lookup across repositories.
          const one = JSON.parse(
            await callText(client, "symbols", {
              query: "parseConfig",
              repo: "org/alpha",
              first: 1,
            }),
          );
          assertEquals(
            (await callTool(client, "symbols", { query: "parseConfig", after: one.next_cursor }))
              .code,
            "INVALID_CURSOR",
          );
        } finally {
          await client.close();
        }
      },
    );
  }, { repositories: REPOSITORIES, searchIndex: true }));
