/**
 * An anonymous call across repositories pays a unit for every repository it
 * searches, before searching it, on top of its base cost: through the MCP
 * tools (`search`, `symbols`, `commits`), the HTTP API and the site search page, for a first page and for a
 * continued one whose cursor pins many repositories. The buckets' clock is
 * frozen, so every unit is counted exactly (nothing refills during the test).
 */

import { assert, assertEquals } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  type InProcessWorld,
  withInProcessService,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";
import { encodeFanoutCursor } from "../../../sourcegraph/render/fanout_search_text.ts";
import { encodeFanoutSymbolCursor } from "../../../sourcegraph/render/symbols_json.ts";
import { FANOUT_CONCURRENCY } from "../../../sourcegraph/service/repository_fanout.ts";
import {
  FANOUT_REPOSITORY_COST,
  FANOUT_SEARCH_COST,
  FANOUT_SYMBOLS_COST,
} from "../../../sourcegraph/http/rate_limits.ts";

const COUNT = 12;
const NAMES = Array.from({ length: COUNT }, (_, i) => `org/r${String(i).padStart(2, "0")}`);
const REPOSITORIES: WorldRepository[] = NAMES.map((name) => ({
  name,
  publicRead: true,
  files: { "a.txt": "needle\n" },
}));
// A search of every repository (17 units) fits once with 15 to spare: each unit counted is a
// request of `unitsLeft`, and each search of every repository twelve searches of Git.
const PER_MINUTE = 32;
// One service for every case: each measures buckets of addresses of its own, and the
// buckets' clock is frozen.
const OPTIONS = {
  repositories: REPOSITORIES,
  settings: { anonymousPerMinute: PER_MINUTE },
  rateLimitClock: () => 0,
};

// Units an address has left: 1-unit requests until one is refused (the clock never moves).
// The protected resource's metadata is the cheapest of them: the repository list, a unit
// too, read every repository's summary (4 of the file's 8.7 processor-seconds went there).
async function unitsLeft(world: InProcessWorld, address: string): Promise<number> {
  const fetchPath = inProcessFetch(world.handle, { address });
  for (let left = 0; left <= PER_MINUTE; left++) {
    const response = await fetchPath("/.well-known/oauth-protected-resource");
    await response.body?.cancel();
    if (response.status === 429) return left;
    assertEquals(response.status, 200);
  }
  throw new Error("the bucket never emptied");
}

// What `work` cost an address of its own (what the bucket lost).
async function unitsOf(
  world: InProcessWorld,
  work: (address: string) => Promise<void>,
): Promise<number> {
  const address = `10.0.0.${++addresses}`;
  await work(address);
  return PER_MINUTE - await unitsLeft(world, address);
}
let addresses = 0;

// One MCP tool call from `address` through the SDK client; its outcome code.
async function mcpCall(
  world: InProcessWorld,
  address: string,
  call: { name: string; args: Record<string, unknown> } | null,
): Promise<string> {
  const client = await connectInProcess(world.handle, { address });
  try {
    return call === null ? "OK" : (await callTool(client, call.name, call.args)).code;
  } finally {
    await client.close();
  }
}

// A POST of the HTTP API from `address`: status and code.
async function apiPost(
  world: InProcessWorld,
  address: string,
  request: { path: string; body: unknown },
): Promise<string> {
  const response = await inProcessFetch(world.handle, { address })(
    `/sourcegraph${request.path}`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request.body),
    },
  );
  const answer = await response.json();
  return `${response.status} ${answer.Meta?.Code ?? answer.code ?? "ok"}`;
}

Deno.test("calls across repositories: one service of twelve repositories, case by case", (t) =>
  withInProcessService(async (world) => {
    await t.step(
      "calls across repositories: each repository searched costs a unit, first pages and forged cursors alike",
      async () => {
        const pins = NAMES.map((repo) => ({ repo, commit: world.heads.get(repo)! }));
        const fromStart = encodeFanoutCursor({ pins, index: 0, position: null });
        const atLast = encodeFanoutCursor({ pins, index: COUNT - 1, position: null });
        const symbolsCursor = encodeFanoutSymbolCursor({ pins, offset: 1 });
        const search = (args: Record<string, unknown>) => ({
          name: "search",
          args: { pattern: "needle", ...args },
        });
        const perRepository = (n: number) => n * FANOUT_REPOSITORY_COST;

        // MCP: what connecting costs is measured, then each call on top of it.
        const connecting = await unitsOf(world, async (at) => {
          assertEquals(await mcpCall(world, at, null), "OK");
        });
        const mcp = async (call: { name: string; args: Record<string, unknown> }, code = "OK") =>
          await unitsOf(world, async (at) => {
            assertEquals(await mcpCall(world, at, call), code);
          }) - connecting;
        assertEquals(
          await mcp(search({ repo: [NAMES[0]] })),
          FANOUT_SEARCH_COST + perRepository(1),
        );
        assertEquals(await mcp(search({})), FANOUT_SEARCH_COST + perRepository(COUNT));
        assertEquals(
          await mcp(search({ repo: "org/*" })),
          FANOUT_SEARCH_COST + perRepository(COUNT),
        );
        // A continued page pays for the repositories its cursor has it search.
        assertEquals(
          await mcp(search({ after: fromStart })),
          FANOUT_SEARCH_COST + perRepository(COUNT),
        );
        assertEquals(await mcp(search({ after: atLast })), FANOUT_SEARCH_COST + perRepository(1));
        assertEquals(
          await mcp({ name: "symbols", args: { query: "needle" } }),
          FANOUT_SYMBOLS_COST + perRepository(COUNT),
        );
        // A symbols cursor past the list (no index: no definitions) is refused once it has
        // looked every repository up, and has paid for each.
        assertEquals(
          await mcp(
            { name: "symbols", args: { query: "needle", after: symbolsCursor } },
            "INVALID_CURSOR",
          ),
          FANOUT_SYMBOLS_COST + perRepository(COUNT),
        );
        // A search of one repository costs what it did.
        assertEquals(await mcp(search({ repo: NAMES[0] })), 5);
        // A commit search: a history's 5, and across repositories a unit per repository searched.
        const commits = (args: Record<string, unknown>) => ({
          name: "commits",
          args: { message: "initial", ...args },
        });
        assertEquals(await mcp(commits({ repo: NAMES[0] })), 5);
        assertEquals(await mcp(commits({ repo: [NAMES[0]] })), 5 + perRepository(1));
        assertEquals(await mcp(commits({})), 5 + perRepository(COUNT));

        // The HTTP API.
        const api = async (path: string, body: unknown) =>
          await unitsOf(world, async (at) => {
            assertEquals(await apiPost(world, at, { path, body }), "200 ok");
          });
        assertEquals(
          await api("/v1/search", { Pattern: "needle", Repos: [NAMES[0]] }),
          FANOUT_SEARCH_COST + perRepository(1),
        );
        assertEquals(
          await api("/v1/search", { Pattern: "needle" }),
          FANOUT_SEARCH_COST + perRepository(COUNT),
        );
        assertEquals(
          await api("/v1/search", { Pattern: "needle", After: fromStart }),
          FANOUT_SEARCH_COST + perRepository(COUNT),
        );
        assertEquals(
          await api("/v1/symbols", { Query: "needle" }),
          FANOUT_SYMBOLS_COST + perRepository(COUNT),
        );

        // The site search page.
        const page = async (query: string) =>
          await unitsOf(world, async (at) => {
            const response = await inProcessFetch(world.handle, { address: at })(
              `/sourcegraph/-/search?${query}`,
            );
            await response.body?.cancel();
            assertEquals(response.status, 200);
          });
        assertEquals(await page("q=needle"), FANOUT_SEARCH_COST + perRepository(COUNT));
        assertEquals(
          await page(`q=needle&after=${encodeURIComponent(atLast)}`),
          FANOUT_SEARCH_COST + perRepository(1),
        );
      },
    );
    await t.step(
      "calls across repositories: a bucket runs out by the repositories searched, RATE_LIMITED before the next ones",
      async () => {
        const full = FANOUT_SEARCH_COST + COUNT * FANOUT_REPOSITORY_COST; // 17
        const window = FANOUT_CONCURRENCY * FANOUT_REPOSITORY_COST; // 4
        // The HTTP API: a search of every repository takes 17 units of 32; the
        // second pays its base (10 left) and two windows of repositories (2 left),
        // and is refused before the third window is searched.
        const address = "10.1.0.1";
        const codes: string[] = [];
        for (let i = 0; i < 2; i++) {
          codes.push(
            await apiPost(world, address, { path: "/v1/search", body: { Pattern: "needle" } }),
          );
        }
        assertEquals(codes, ["200 ok", "429 RATE_LIMITED"]);
        assertEquals(await unitsLeft(world, address), 2);

        // The site search page: the same, as its error page with 429.
        const pageAddress = "10.1.0.4";
        const pageCodes: number[] = [];
        for (let i = 0; i < 2; i++) {
          const response = await inProcessFetch(world.handle, { address: pageAddress })(
            "/sourcegraph/-/search?q=needle",
          );
          const html = await response.text();
          pageCodes.push(response.status);
          if (response.status === 429) assert(html.includes("RATE_LIMITED"), html);
        }
        assertEquals(pageCodes, [200, 429]);
        assertEquals(await unitsLeft(world, pageAddress), 2);

        // MCP: the same, as the tool's RATE_LIMITED error.
        await mcpCall(world, "10.1.0.2", null);
        const connecting = PER_MINUTE - await unitsLeft(world, "10.1.0.2");
        const client = await connectInProcess(world.handle, { address: "10.1.0.3" });
        try {
          const outcomes: string[] = [];
          for (let i = 0; i < 10 && outcomes.at(-1) !== "RATE_LIMITED"; i++) {
            outcomes.push((await callTool(client, "search", { pattern: "needle" })).code);
          }
          const searches = Math.floor((PER_MINUTE - connecting) / full);
          assertEquals(outcomes, [...Array(searches).fill("OK"), "RATE_LIMITED"]);
          assert(await unitsLeft(world, "10.1.0.3") < window);
        } finally {
          await client.close();
        }
      },
    );
  }, OPTIONS));
