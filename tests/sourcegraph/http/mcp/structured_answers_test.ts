/**
 * Structured answers agree with their text where the text is cut: a page
 * that `max_bytes` ends early (a search of one repository and of all, its
 * next page, paths only, references, blame, a read) names in its
 * structured content exactly the rows its text shows, and the same cursor;
 * reads of several files, symbols and a listing agree too. Links are
 * absolute: from `SOURCEGRAPH_PUBLIC_URL` when it is set, else from the
 * request's origin, and each leads to a page; without pages there are none.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Handler } from "../../../../sourcegraph/http/edge_env.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN,
  type WorldRepository,
} from "../../../support/in_process_service.ts";
import { toolOutcome } from "../../../support/tool_calls.ts";
import { assertAgrees, assertValidAnswer, linksOf } from "../../../support/tool_structured.ts";

const LINES = Array.from(
  { length: 400 },
  (_, i) => `export const value${i} = shared(${i}); // ${"x".repeat(60)}`,
);
const REPOSITORIES: WorldRepository[] = [
  {
    name: "org/one",
    publicRead: true,
    files: {
      "src/many.ts": `export function shared(n: number): number {\n  return n;\n}\n${
        LINES.join("\n")
      }\n`,
      "README.md": "# One\n\nshared notes\n",
    },
  },
  {
    name: "org/two",
    publicRead: true,
    files: { "lib/other.ts": `${LINES.slice(0, 100).join("\n")}\n` },
  },
];

// Calls a tool; its structured content validates and agrees with its text.
async function agreed(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ texts: string[]; structured: Record<string, unknown> }> {
  const result = await client.callTool({ name, arguments: args });
  const outcome = toolOutcome(result);
  assertEquals(outcome.code, "OK", outcome.texts.join("\n"));
  const structured = result.structuredContent as Record<string, unknown>;
  assertValidAnswer(name, structured);
  assertAgrees(name, outcome.texts, structured);
  return { texts: outcome.texts, structured };
}

async function pageCutNamesItsRows(handle: Handler): Promise<void> {
  const client = await connectInProcess(handle, { token: WORLD_TOKEN });
  try {
    await client.listTools(); // the SDK client then checks every answer against its outputSchema
    const first = await agreed(client, "search", {
      repo: "org/one",
      pattern: "shared",
      max_lines_per_file: 1000,
      max_bytes: 4096,
    });
    assert(first.texts[0].includes('CutBy: ["max_bytes"]'), first.texts[0]);
    const cursor = first.structured.next_cursor as string;
    assert(cursor.length > 0, "a cut page continues");
    const second = await agreed(client, "search", {
      repo: "org/one",
      pattern: "shared",
      max_lines_per_file: 1000,
      max_bytes: 4096,
      after: cursor,
    });
    const lines = (answer: typeof first) =>
      (answer.structured.results as { files: { lines: number[] }[] }[])
        .flatMap((result) => result.files.flatMap((file) => file.lines));
    assert(Math.min(...lines(second)) > Math.max(...lines(first)), "the next page goes on");
    const everywhere = await agreed(client, "search", {
      pattern: "shared",
      max_lines_per_file: 1000,
      max_bytes: 4096,
    });
    assert(everywhere.structured.next_cursor !== undefined, "the search of all is cut too");
    await agreed(client, "search", { pattern: "value1", output: "files" });
    await agreed(client, "search", { pattern: "value1\\d", context: 1, max_bytes: 4096 });
    const references = await agreed(client, "references", {
      repo: "org/one",
      path: "src/many.ts",
      line: 1,
      symbol: "shared",
      max_bytes: 4096,
    });
    assert(references.structured.next_cursor !== undefined, "references are cut");
    const blame = await agreed(client, "blame", {
      repo: "org/one",
      path: "src/many.ts",
      max_bytes: 8192,
    });
    assert(blame.structured.next_start_line !== null, "blame is cut");
    await agreed(client, "read", { repo: "org/one", path: "src/many.ts", max_bytes: 8192 });
    await agreed(client, "read_many", {
      repo: "org/one",
      files: [{ path: "README.md" }, { path: "missing.ts" }, { path: "src/many.ts" }],
      max_bytes: 8192,
    });
    await agreed(client, "symbols", { query: "value", match: "prefix", max_bytes: 1024 });
    await agreed(client, "list", { repo: "org/one", first: 10, path: "src" });
  } finally {
    await client.close();
  }
}

// Links start with `publicUrl` when set, else with the request's origin, and lead to pages.
async function linksLeadToPages(handle: Handler, publicUrl: string | undefined): Promise<void> {
  const client = await connectInProcess(handle, { token: WORLD_TOKEN });
  const fetchPage = inProcessFetch(handle);
  try {
    const origin = publicUrl ?? "http://127.0.0.1";
    const answers = await Promise.all([
      agreed(client, "search", { repo: "org/one", pattern: "shared", max_bytes: 4096 }),
      agreed(client, "symbols", { query: "shared" }),
      agreed(client, "blame", { repo: "org/one", path: "README.md" }),
      agreed(client, "history", { repo: "org/one", path: "README.md" }),
      agreed(client, "resolve", { repo: "org/one" }),
    ]);
    const links = answers.flatMap((answer) => linksOf(answer.structured));
    assert(links.length >= 5, `links: ${links.join(", ")}`);
    for (const link of new Set(links)) {
      assert(link.startsWith(`${origin}/sourcegraph/org/one/-/`), link);
      // The page is served at the same path here (a proxy maps the public URL to it).
      const served = new URL(link.slice(origin.length), "http://127.0.0.1");
      const page = await fetchPage(`${served.pathname}${served.search}`, {
        headers: { accept: "text/html" },
      });
      await page.body?.cancel();
      assertEquals(page.status, 200, link);
    }
  } finally {
    await client.close();
  }
}

Deno.test("structured answers over the default world", (t) =>
  withInProcessService(async ({ handle }) => {
    await t.step(
      "structured answers: a page cut by max_bytes names exactly the rows its text shows, and the same cursor",
      () => pageCutNamesItsRows(handle),
    );
    await t.step(
      "structured answers: without SOURCEGRAPH_PUBLIC_URL links start with the request's origin, and lead to pages",
      () => linksLeadToPages(handle, undefined),
    );
  }, { repositories: REPOSITORIES }));

Deno.test("structured answers: links start with SOURCEGRAPH_PUBLIC_URL when set, and lead to pages", () =>
  withInProcessService(
    ({ handle }) => linksLeadToPages(handle, "https://sg.example.org/code"),
    { repositories: REPOSITORIES, publicUrl: "https://sg.example.org/code" },
  ));

Deno.test("structured answers: a service without web pages answers no links, and the same facts", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle, { token: WORLD_TOKEN });
    try {
      for (
        const [name, args] of [
          ["search", { repo: "org/one", pattern: "shared" }],
          ["read", { repo: "org/one", path: "README.md" }],
          ["blame", { repo: "org/one", path: "README.md" }],
          ["resolve", { repo: "org/one" }],
        ] as const
      ) {
        const { structured } = await agreed(client, name, args);
        assertEquals(linksOf(structured), [], name);
      }
    } finally {
      await client.close();
    }
  }, { repositories: REPOSITORIES, withoutPages: true }));
