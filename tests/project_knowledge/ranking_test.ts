import { assert, assertEquals } from "../support/assert.ts";
import { withProvider as withProviderOf } from "../support/knowledge_project.ts";

// Ranking is the provider's logic, not its launch: its code serves in this process.
const withProvider: typeof withProviderOf = (files, fn) =>
  withProviderOf(files, fn, { inProcess: true });

const uses = (name: string, count: number) =>
  Array.from({ length: count }, (_, i) => `const value${i} = new ${name}(${i});`).join("\n");

Deno.test("ranking: the file defining a name outranks files using it; words, parts and phrases find it", () =>
  withProvider({
    "src/config.ts": "export class QuicServerConfig {\n  port = 443;\n}\n",
    "src/server.ts": `${uses("QuicServerConfig", 30)}\n`,
    "src/client.ts": `${uses("QuicServerConfig", 12)}\n`,
    "docs/notes.md": "# Notes\n\nThe quic server config object holds the port.\n",
  }, async (runner) => {
    await runner.ok("index");
    const top = async (query: string) =>
      ((await runner.ok("search", { query, limit: 5 })).hits as { path: string }[])
        .map((hit) => hit.path);
    for (const query of ["QuicServerConfig", "quic server config", "ServerConfig"]) {
      assertEquals((await top(query))[0], "src/config.ts", query);
    }
    assertEquals((await top("config object holds"))[0], "docs/notes.md");
  }));

Deno.test("ranking: one file takes at most two places while other files match", () => {
  const many = Array.from({ length: 40 }, (_, i) => `zebracorn line ${i}\n${"filler\n".repeat(40)}`)
    .join("");
  return withProvider({
    "a_many.md": many,
    "b_one.md": "zebracorn once\n",
    "c_one.md": "zebracorn again\n",
  }, async (runner) => {
    await runner.ok("index");
    const result = await runner.ok("search", { query: "zebracorn", limit: 5 });
    const paths = (result.hits as { path: string }[]).map((hit) => hit.path);
    assertEquals(paths.length, 5);
    assert(paths.includes("b_one.md") && paths.includes("c_one.md"), paths.join(", "));
    assertEquals(paths.slice(0, 4).filter((path) => path === "a_many.md").length, 2, paths.join());
    assertEquals(result.results_truncated, true);
  });
});
