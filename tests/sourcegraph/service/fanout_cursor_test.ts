/**
 * A continued page across repositories searches what its cursor pins, so a
 * cursor naming one repository many times is refused (INVALID_CURSOR) before
 * anything is searched, through the tools, the HTTP API and the service; a
 * cursor may pin only repositories its request selects among those the
 * caller sees, each once, at retained versions, and a symbols cursor only
 * offsets inside the list: any other is INVALID_CURSOR. A page reads each
 * repository's record from the store once for its selection (and again
 * only in each repository's own search), and no branch heads for pins.
 */

import { assert, assertEquals, assertIncludes, waitFor } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessPost,
  withInProcessService,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";
import { encodeToken } from "../../../sourcegraph/render/search_cursor.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  RepositoryFanout,
  type SearchOne,
} from "../../../sourcegraph/service/repository_fanout.ts";
import { FANOUT_MAX_REPOSITORIES } from "../../../sourcegraph/service/repository_pins.ts";
import { Visibility } from "../../../sourcegraph/access/visibility.ts";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";

const NEEDLE_TS = "export function needle(): void {}\n";
const REPOSITORIES: WorldRepository[] = [
  { name: "org/one", publicRead: true, files: { "a.txt": "needle\n", "one.ts": NEEDLE_TS } },
  { name: "org/two", publicRead: true, files: { "b.txt": "needle\n", "two.ts": NEEDLE_TS } },
  { name: "org/hidden", publicRead: false, files: { "c.txt": "needle\n" } },
];

// POSTs a body below `/sourcegraph` of the service: the status and the
// answer's code ("ok" when it has none).
function codePoster(handle: Handler): (path: string, body: unknown) => Promise<string> {
  const post = inProcessPost(handle);
  return async (path, body) => {
    const response = await post(`/sourcegraph${path}`, body);
    const answer = await response.json();
    return `${response.status} ${answer.Meta?.Code ?? "ok"}`;
  };
}

// A token of `value`, and the code an answer through MCP and the HTTP API gives for it.
type Ask = (after: string) => Promise<[string, string]>;

// One service (its three repositories synced and indexed once) for both cases.
Deno.test("search across repositories: one service of three repositories, case by case", (t) =>
  withInProcessService(async (world) => {
    await t.step(
      "search across repositories: a cursor pinning a repository twice is refused, nothing searched",
      async () => {
        const { handle, heads, store } = world;
        const one = heads.get("org/one")!;
        const two = heads.get("org/two")!;
        const repeated = Array.from({ length: FANOUT_MAX_REPOSITORIES }, () => ["org/one", one]);
        const forged = encodeToken(["repos", repeated, 0, null]);
        const twice = encodeToken([
          "repos",
          [["org/one", one], ["org/two", two], ["org/one", one]],
          0,
          null,
        ]);
        const hidden = encodeToken([
          "repos",
          [["org/one", one], ["org/hidden", heads.get("org/hidden")!]],
          0,
          null,
        ]);
        const symbols = encodeToken(["symbols-repos", repeated, 1]);
        const client = await connectInProcess(handle);
        const post = codePoster(handle);
        try {
          for (const after of [forged, twice]) {
            assertEquals(
              (await callTool(client, "search", { pattern: "needle", after })).code,
              "INVALID_CURSOR",
            );
            assertEquals(
              await post("/v1/search", { Pattern: "needle", After: after }),
              "400 INVALID_CURSOR",
            );
          }
          assertEquals(
            (await callTool(client, "symbols", { query: "needle", after: symbols })).code,
            "INVALID_CURSOR",
          );
          assertEquals(
            await post("/v1/symbols", { Query: "needle", After: symbols }),
            "400 INVALID_CURSOR",
          );
          // A repository the caller cannot see is not searched through a cursor either.
          assertEquals(
            (await callTool(client, "search", { pattern: "needle", after: hidden })).code,
            "INVALID_CURSOR",
          );
          // A cursor of distinct visible repositories is a page like any other.
          const fine = encodeToken(["repos", [["org/one", one], ["org/two", two]], 0, null]);
          assertEquals(
            (await callTool(client, "search", { pattern: "needle", after: fine })).code,
            "OK",
          );

          // The service itself refuses repeated pins handed to it, before any search.
          let searched = 0;
          const fanout = new RepositoryFanout(store, {
            visibility: new Visibility(store, { publicRead: true }),
            searchOne: () => {
              searched++;
              return Promise.reject(new Error("not reached"));
            },
          });
          const refused = await fanout.search({ kind: "anonymous" }, {
            repos: null,
            pattern: "needle",
            after: {
              pins: repeated.map(([repo, commit]) => ({ repo, commit })),
              index: 0,
              position: null,
            },
          }).then(() => null, (error) => error);
          assertEquals([(refused as SourcegraphError).code, searched], ["INVALID_CURSOR", 0]);
        } finally {
          await client.close();
        }
      },
    );
    await t.step(
      "cursors across repositories the service never issued are INVALID_CURSOR (MCP, HTTP): hidden, unknown, unretained, unselected pins and offsets past the list",
      async () => {
        const { handle, heads } = world;
        const one = heads.get("org/one")!;
        const two = heads.get("org/two")!;
        const client = await connectInProcess(handle);
        const post = codePoster(handle);
        const search = (repos?: string[]): Ask => async (after) => [
          (await callTool(client, "search", { pattern: "needle", after, repo: repos })).code,
          await post("/v1/search", { Pattern: "needle", After: after, Repos: repos }),
        ];
        const symbols = (repos?: string[]): Ask => async (after) => [
          (await callTool(client, "symbols", { query: "needle", after, repo: repos })).code,
          await post("/v1/symbols", { Query: "needle", After: after, Repos: repos }),
        ];
        const refused: [string, string] = ["INVALID_CURSOR", "400 INVALID_CURSOR"];
        const accepted: [string, string] = ["OK", "200 ok"];
        try {
          await waitFor(async () => {
            const answer = JSON.parse(await callText(client, "symbols", { query: "needle" }));
            return answer.total === 2;
          }, { what: "both symbol indexes" });
          const searchToken = (pins: string[][], index = 0) =>
            encodeToken(["repos", pins, index, null]);
          const symbolsToken = (pins: string[][], offset = 1) =>
            encodeToken(["symbols-repos", pins, offset]);
          const unretained = "0123456789abcdef0123456789abcdef01234567";
          const both = [["org/one", one], ["org/two", two]];
          const single = (): Ask => async (after) => [
            (await callTool(client, "symbols", { repo: "org/one", query: "needle", after })).code,
            await post("/v1/repo/symbols?repo=org/one", { Query: "needle", After: after }),
          ];
          // Every case's answers in one table, so a failure shows each case that went wrong.
          const cases: [string, Ask, string, [string, string]][] = [
            ...[
              ["a private pin", [["org/one", one], ["org/hidden", heads.get("org/hidden")!]]],
              ["an unknown pin", [["org/one", one], ["org/nope", one]]],
              ["an unretained pin", [["org/one", one], ["org/two", unretained]]],
            ].flatMap(([name, pins]): [string, Ask, string, [string, string]][] => [
              [`search, ${name}`, search(), searchToken(pins as string[][]), refused],
              [`symbols, ${name}`, symbols(), symbolsToken(pins as string[][]), refused],
            ]),
            // A cursor must match its request: pins outside the request's repositories are refused.
            [
              "search, another request's pin",
              search(["org/two"]),
              searchToken([["org/one", one]]),
              refused,
            ],
            [
              "symbols, another request's pin",
              symbols(["org/two"]),
              symbolsToken([["org/one", one]]),
              refused,
            ],
            [
              "search, the request's pin",
              search(["org/two"]),
              searchToken([["org/two", two]]),
              accepted,
            ],
            [
              "search, ranked pins of a glob",
              search(["org/*"]),
              searchToken([both[1], both[0]]),
              accepted,
            ],
            // Offsets past the list (2 definitions) or past the cap were never issued.
            ...[2, 3, 10_000, 1e15].map((offset): [string, Ask, string, [string, string]] => [
              `symbols, offset ${offset}`,
              symbols(),
              symbolsToken(both, offset),
              refused,
            ]),
            ["symbols, offset 1", symbols(), symbolsToken(both, 1), accepted],
            ...[1, 1e15].map((offset): [string, Ask, string, [string, string]] => [
              `one repository's symbols, offset ${offset}`,
              single(),
              encodeToken(["symbols", one, offset]),
              refused,
            ]),
          ];
          const answers: Record<string, [string, string]> = {};
          for (const [name, ask, after] of cases) answers[name] = await ask(after);
          assertEquals(
            answers,
            Object.fromEntries(cases.map(([name, , , expected]) => [name, expected])),
          );
          // Versions may age out between pages: the refusal says so, and how to recover.
          const aged = await callTool(client, "search", {
            pattern: "needle",
            after: searchToken([["org/one", one], ["org/two", unretained]]),
          });
          assertIncludes(aged.texts.join("\n"), "the cursor's version of org/two is not retained");
          assertIncludes(aged.texts.join("\n"), "start again without after");
          // Legitimate pages still continue, one definition a page.
          const first = JSON.parse(
            await callText(client, "symbols", { query: "needle", first: 1 }),
          );
          assert(typeof first.next_cursor === "string", JSON.stringify(first));
          const second = JSON.parse(
            await callText(client, "symbols", {
              query: "needle",
              first: 1,
              after: first.next_cursor,
            }),
          );
          assertEquals([first.symbols[0].repo, second.symbols[0].repo, second.has_more], [
            "org/one",
            "org/two",
            false,
          ]);
        } finally {
          await client.close();
        }
      },
    );
    await t.step(
      "search across repositories: each record is read once a page, and a pinned SHA reads no heads",
      async () => {
        const { store } = world;
        const reads = { repositories: 0, repository: 0, heads: 0 };
        // The store with its record and head reads counted.
        const counted = new Proxy(store, {
          get(target, key) {
            const value = Reflect.get(target, key);
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              if (typeof key === "string" && key in reads) reads[key as keyof typeof reads]++;
              return value.apply(target, args);
            };
          },
        });
        const visibility = new Visibility(counted, { publicRead: true });
        // A single-repository search resolves its pin as the real one does, and finds nothing.
        const searchOne: SearchOne = (caller, request) => {
          const { commit } = visibility.resolve(caller, request);
          const outcome = {
            files: [],
            fileCount: 0,
            matchCount: 0,
            truncated: false,
            partial: false,
            index: "ready" as const,
          };
          return Promise.resolve({ repo: request.repo, commit, outcome, scope: null });
        };
        const fanout = new RepositoryFanout(counted, { visibility, searchOne });
        const first = await fanout.search({ kind: "anonymous" }, { repos: null, pattern: "x" });
        assertEquals(first.pins.map((pin) => pin.repo), ["org/one", "org/two"]);
        // One listing for the selection; by name only the searches' own; heads for the pins only.
        assertEquals(reads, { repositories: 1, repository: 2, heads: 2 });
        Object.assign(reads, { repositories: 0, repository: 0, heads: 0 });
        await fanout.search({ kind: "anonymous" }, {
          repos: null,
          pattern: "x",
          after: { pins: first.pins, index: 0, position: null },
        });
        assertEquals(reads, { repositories: 1, repository: 2, heads: 0 });
      },
    );
  }, { repositories: REPOSITORIES, searchIndex: true }));
