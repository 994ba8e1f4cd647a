/**
 * Uploading SCIP indexes through the admin API of an in-process service
 * over real Git repositories, then `references` through a real MCP client:
 * an index of a retained commit is stored and from then on `references` at
 * that commit is precise (its tool and commit in the header, rows with the
 * index's roles, across files), `availability` names the commits with an
 * index, and path groups hide what they hide (never named, never counted).
 * Hostile uploads are refused with one code each and store nothing: `../`
 * and absolute paths, a file of another repository, a truncated or deeply
 * nested protobuf, a body over the cap (declared or streamed), a forged
 * token or a personal key, an unknown commit.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
import { SCIP_MAX_BYTES } from "../../../sourcegraph/search/scip/scip_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import { deeplyNested, encodeScip, type FixtureDocument } from "../../support/scip_fixtures.ts";
import { callTool } from "../../support/tool_calls.ts";

const PARSE = "npm app 1.0.0 src/`a.ts`/parse().";
const OTHER = "npm app 1.0.0 src/`b.ts`/parse().";

const FILES = {
  "src/a.ts": "export function parse(text: string) {\n  return text;\n}\n",
  "src/b.ts": [
    'import { parse } from "./a";',
    "// parse in a comment",
    'parse("x");',
    "function inner() { const parse = 1; return parse; }",
    "",
  ].join("\n"),
};

// What scip-typescript would write for FILES: the local `parse` of b.ts is another symbol.
const APP_INDEX: FixtureDocument[] = [
  {
    path: "src/a.ts",
    occurrences: [{ range: [0, 16, 21], symbol: PARSE, roles: SCIP_ROLES.definition }],
    symbols: [{
      symbol: PARSE,
      documentation: ["```ts\nfunction parse(text: string): string\n```"],
    }],
  },
  {
    path: "src/b.ts",
    occurrences: [
      { range: [0, 9, 14], symbol: PARSE, roles: SCIP_ROLES.import },
      { range: [2, 0, 5], symbol: PARSE },
      { range: [3, 25, 30], symbol: OTHER, roles: SCIP_ROLES.definition },
      { range: [3, 43, 48], symbol: OTHER, roles: SCIP_ROLES.read },
    ],
  },
];

const MONO_INDEX: FixtureDocument[] = [
  { path: "docs/a.ts", occurrences: [{ range: [0, 0, 6], symbol: "npm m 1 shared." }] },
  { path: "docs/b.ts", occurrences: [{ range: [0, 0, 6], symbol: "npm m 1 shared." }] },
  {
    path: "secret/s.ts",
    occurrences: [{ range: [0, 0, 6], symbol: "npm m 1 shared.", roles: SCIP_ROLES.definition }],
  },
];

// What the world logged.
const logged: string[] = [];

// The cases run as steps of one world, in this order: the hostile uploads and the streamed body
// first (org/app has no index yet), the damaged index last (it damages org/app's).
const CASES: [string, (world: InProcessWorld, client: Client) => Promise<void>][] = [];
function worldCase(
  name: string,
  fn: (world: InProcessWorld, client: Client) => Promise<void>,
): void {
  CASES.push([name, fn]);
}

Deno.test("SCIP upload over one world of four repositories", (t) =>
  withWorld(async (world, client) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world, client));
  }));

function withWorld(fn: (world: InProcessWorld, client: Client) => Promise<void>): Promise<void> {
  return withInProcessService(async (world) => {
    const client = await connectInProcess(world.handle);
    try {
      await fn(world, client);
    } finally {
      await client.close();
    }
  }, {
    repositories: [
      { name: "org/app", publicRead: true, files: FILES },
      { name: "org/other", publicRead: true, files: { "other/only.ts": "shared();\n" } },
      {
        name: "org/mono",
        publicRead: true,
        files: {
          "docs/a.ts": "shared();\n",
          "docs/b.ts": "shared();\n",
          "secret/s.ts": "shared();\n",
        },
        pathGroups: [{ name: "docs", paths: ["docs"] }],
      },
      { name: "org/many", publicRead: true, files: MANY_FILES },
    ],
    log: (line) => logged.push(line),
  });
}

function upload(
  world: InProcessWorld,
  at: { repo: string; commit: string; token?: string },
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<Response> {
  const query = `repo=${encodeURIComponent(at.repo)}&commit=${at.commit}`;
  return inProcessFetch(world.handle)(`/sourcegraph/api/admin/v1/repo/scip?${query}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${at.token ?? WORLD_TOKEN}`,
      "content-type": "application/octet-stream",
      ...headers,
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

async function code(response: Response): Promise<string> {
  return `${response.status} ${(await response.json()).code}`;
}

function rows(answer: string): string[] {
  return answer.split("\n").filter((line) => /^(File|Parse): |^\d+ \[/.test(line));
}

async function stored(world: InProcessWorld, repo: string): Promise<string[]> {
  return Object.keys(await world.localCalls.versionScip({ kind: "service" }, { repo }));
}

worldCase(
  "SCIP upload: hostile uploads are refused with one code each and store nothing",
  async (world) => {
    const commit = world.heads.get("org/app")!;
    const app = { repo: "org/app", commit };
    const good = encodeScip(APP_INDEX);
    const cases: [string, Promise<Response>, string][] = [
      [
        "../ path",
        upload(world, app, encodeScip([{ path: "../etc/passwd", occurrences: [] }])),
        "400 SCIP_PATH_INVALID",
      ],
      [
        "inner ..",
        upload(world, app, encodeScip([{ path: "src/../../x.ts", occurrences: [] }])),
        "400 SCIP_PATH_INVALID",
      ],
      [
        "absolute",
        upload(world, app, encodeScip([{ path: "/etc/passwd", occurrences: [] }])),
        "400 SCIP_PATH_INVALID",
      ],
      [
        "another repository's file",
        upload(world, app, encodeScip([...APP_INDEX, { path: "other/only.ts", occurrences: [] }])),
        "422 SCIP_UNKNOWN_FILE",
      ],
      ["truncated", upload(world, app, good.subarray(0, good.length - 3)), "400 SCIP_INVALID"],
      ["nested", upload(world, app, deeplyNested(100_000)), "400 SCIP_INVALID"],
      ["empty", upload(world, app, new Uint8Array(0)), "400 SCIP_INVALID"],
      [
        "declared over the cap",
        upload(world, app, good, { "content-length": String(SCIP_MAX_BYTES + 1) }),
        "413 REQUEST_TOO_LARGE",
      ],
      [
        "forged token",
        upload(world, { ...app, token: "f".repeat(40) }, good),
        "401 AUTHENTICATION_REQUIRED",
      ],
      [
        "personal key",
        upload(world, { ...app, token: WORLD_KEY }, good),
        "401 AUTHENTICATION_REQUIRED",
      ],
      [
        "unknown commit",
        upload(world, { ...app, commit: "0".repeat(40) }, good),
        "404 REVISION_NOT_ELIGIBLE",
      ],
      [
        "short commit",
        upload(world, { ...app, commit: commit.slice(0, 12) }, good),
        "400 INVALID_REQUEST",
      ],
      [
        "unknown repository",
        upload(world, { ...app, repo: "org/none" }, good),
        "404 REPOSITORY_NOT_FOUND",
      ],
    ];
    for (const [what, response, expected] of cases) {
      assertEquals(await code(await response), expected, what);
    }
    assertEquals(await stored(world, "org/app"), [], "nothing was stored");
  },
);

worldCase(
  "SCIP upload: a streamed body past the cap is refused while it is read",
  async (world) => {
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Never more than the cap and two chunks: the reader stops at the cap.
        if (sent > SCIP_MAX_BYTES + 2 * chunk.length) controller.close();
        else {
          sent += chunk.length;
          controller.enqueue(chunk);
        }
      },
    });
    const commit = world.heads.get("org/app")!;
    const response = await upload(world, { repo: "org/app", commit }, body);
    assertEquals(await code(response), "413 REQUEST_TOO_LARGE");
    assert(sent <= SCIP_MAX_BYTES + 2 * chunk.length, `read ${sent} bytes`);
    assertEquals(await stored(world, "org/app"), []);
  },
);

worldCase(
  "SCIP upload: references at the commit become precise, across files, with the index's roles",
  async (world, client) => {
    const commit = world.heads.get("org/app")!;
    const before = await callTool(client, "references", {
      repo: "org/app",
      path: "src/b.ts",
      line: 3,
      column: 1,
    });
    assert(before.texts[0].includes('Precision: "search-based"'), before.texts[0]);
    const response = await upload(world, { repo: "org/app", commit }, encodeScip(APP_INDEX));
    assertEquals(response.status, 201);
    assertEquals(await response.json(), {
      repo: "org/app",
      commit,
      tool: { name: "test-indexer", version: "1.2.3" },
      documents: 2,
      symbols: 2,
      occurrences: 5,
    });
    const outcome = await callTool(client, "references", {
      repo: "org/app",
      path: "src/b.ts",
      line: 3,
      column: 1,
    });
    const answer = outcome.texts[0];
    assert(
      answer.includes(
        `Precision: "precise"; Tool: "test-indexer 1.2.3"; IndexCommit: "${commit}"`,
      ),
      answer,
    );
    assertEquals(rows(answer), [
      'File: "src/a.ts"',
      "1 [definition]: export function parse(text: string) {",
      'File: "src/b.ts"',
      '1 [import]: import { parse } from "./a";',
      '3 [reference]: parse("x");',
    ]);
    const local = await callTool(client, "references", {
      repo: "org/app",
      path: "src/b.ts",
      line: 4,
      column: 45,
      include_declaration: false,
    });
    assertEquals(rows(local.texts[0]), [
      'File: "src/b.ts"',
      "4 [read]: function inner() { const parse = 1; return parse; }",
    ]);
    const definition = await world.localCalls.scipDefinition({ kind: "anonymous" }, {
      repo: "org/app",
      path: "src/b.ts",
      line: 3,
      column: 2,
    });
    assertEquals(definition, {
      path: "src/a.ts",
      line: 1,
      column: 17,
      endLine: 1,
      endColumn: 22,
      symbol: PARSE,
      kind: null,
      signature: "function parse(text: string): string",
      source: { tool: "test-indexer", version: "1.2.3", commit },
    });
    const plain = await (await inProcessFetch(world.handle)(
      "/sourcegraph/v1/repo/availability?repo=org/app",
    )).json();
    assertEquals(plain.Versions[0].Scip, { Tool: "test-indexer", Version: "1.2.3" });
    const availability = await callTool(client, "availability", { repo: "org/app" });
    assert(
      availability.texts[0].includes('"scip":{"tool":"test-indexer","version":"1.2.3"}'),
      availability.texts[0],
    );
  },
);

worldCase(
  "SCIP upload: path groups hide what they hide from precise references, names and counts",
  async (world, client) => {
    const commit = world.heads.get("org/mono")!;
    const response = await upload(world, { repo: "org/mono", commit }, encodeScip(MONO_INDEX));
    assertEquals(response.status, 201);
    const outcome = await callTool(client, "references", {
      repo: "org/mono",
      path: "docs/a.ts",
      line: 1,
      column: 1,
    });
    const answer = outcome.texts[0];
    assert(answer.includes('Precision: "precise"'), answer);
    assertEquals(rows(answer), [
      'File: "docs/a.ts"',
      "1 [reference]: shared();",
      'File: "docs/b.ts"',
      "1 [reference]: shared();",
    ]);
    assert(!answer.includes("secret"), answer);
    assertEquals(
      await world.localCalls.scipDefinition({ kind: "anonymous" }, {
        repo: "org/mono",
        path: "docs/a.ts",
        line: 1,
        column: 1,
      }),
      null,
      "a definition in a hidden path is not named",
    );
  },
);

// org/many: 70 files that each call `shared` twice, and their index.
const MANY_FILES: Record<string, string> = {};
const MANY_INDEX: FixtureDocument[] = [];
for (let i = 0; i < 70; i++) {
  const path = `src/f${String(i).padStart(2, "0")}.ts`;
  MANY_FILES[path] = `shared(${i});\nnoise();\nshared(${i} + 1); // ${"x".repeat(80)}\n`;
  MANY_INDEX.push({
    path,
    occurrences: [
      { range: [0, 0, 6], symbol: "npm m 1 shared.", roles: i === 0 ? SCIP_ROLES.definition : 0 },
      { range: [2, 0, 6], symbol: "npm m 1 shared.", roles: SCIP_ROLES.read },
    ],
  });
}

worldCase(
  "SCIP upload: precise pages of 50 files, cut by max_bytes, continue with NextCursor and meet exactly",
  async (world, client) => {
    const commit = world.heads.get("org/many")!;
    const response = await upload(world, { repo: "org/many", commit }, encodeScip(MANY_INDEX));
    assertEquals(response.status, 201);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await callTool(client, "references", {
        repo: "org/many",
        path: "src/f00.ts",
        line: 1,
        column: 1,
        max_bytes: 4096,
        ...(after === undefined ? {} : { after }),
      });
      const text = page.texts[0];
      assert(text.includes('Precision: "precise"'), text);
      assert(new TextEncoder().encode(text).length <= 4096, text);
      let file = "";
      for (const line of text.split("\n")) {
        if (line.startsWith("File: ")) file = line;
        if (/^\d+ \[/.test(line)) seen.push(`${file} ${line}`);
      }
      const next = /^NextCursor: (".*")$/m.exec(text)?.[1];
      after = next === undefined ? undefined : JSON.parse(next);
      pages++;
    } while (after !== undefined && pages < 100);
    assert(pages > 2, String(pages));
    assertEquals(new Set(seen).size, seen.length, "no row twice");
    assertEquals(seen.length, 140);
    assertEquals(seen[0], 'File: "src/f00.ts" 1 [definition]: shared(0);');
    assertEquals(seen.at(-1)!.slice(0, 32), 'File: "src/f69.ts" 3 [read]: sha');
    // With room for every row, a page holds 50 files and the next the other 20.
    const at = { repo: "org/many", path: "src/f00.ts", line: 1, column: 1 };
    const first = (await callTool(client, "references", at)).texts[0];
    const cursor = /^NextCursor: (".*")$/m.exec(first)?.[1];
    assert(cursor !== undefined, first);
    assertEquals(first.match(/^File: /gm)?.length, 50);
    const second = (await callTool(client, "references", { ...at, after: JSON.parse(cursor) }))
      .texts[0];
    assertEquals(second.match(/^File: /gm)?.length, 20);
    assert(!second.includes("NextCursor"), second);
  },
);

worldCase(
  "SCIP upload: a stored index damaged on disk is refused with one log line; answers are search-based",
  async (world, client) => {
    const commit = world.heads.get("org/app")!;
    const response = await upload(world, { repo: "org/app", commit }, encodeScip(APP_INDEX));
    assertEquals(response.status, 201);
    const id = world.store.repository("org/app")!.id;
    Deno.writeTextFileSync(`${world.data}/scip_index/${id}/${commit}.json`, "{");
    for (let i = 0; i < 2; i++) {
      const outcome = await callTool(client, "references", {
        repo: "org/app",
        path: "src/b.ts",
        line: 3,
        column: 1,
      });
      assert(outcome.texts[0].includes('Precision: "search-based"'), outcome.texts[0]);
    }
    assertEquals(logged.filter((line) => line.includes("cannot be read: refused")).length, 1);
  },
);
