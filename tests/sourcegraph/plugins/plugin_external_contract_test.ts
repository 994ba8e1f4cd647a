/**
 * Interoperability with an externally built evidence plugin (for example
 * context-evidence), as compatible hosts check it. Runs only when
 * SOURCEGRAPH_TEST_PLUGIN_WASM names the built artifact.
 */

import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { diagnostics, withPluginService } from "../../support/plugin_service.ts";

const ARTIFACT = Deno.env.get("SOURCEGRAPH_TEST_PLUGIN_WASM") ?? "";
const SKIP = ARTIFACT === "";
if (SKIP) {
  console.log(
    "external plugin contract skipped: set SOURCEGRAPH_TEST_PLUGIN_WASM to the absolute path of a built evidence plugin",
  );
}

const SECTION = (text: string) =>
  `<!-- context:section id="example" -->\n${text}\n<!-- /context:section -->\n`;
const REF = "a".repeat(40);

Deno.test({
  name: "external plugin contract: one read-0 attachment with the pinned source link, no issues",
  ignore: SKIP,
  fn: () =>
    withPluginService({
      files: {
        "context-evidence.sourcegraph.wasm": SKIP ? "" : Deno.readFileSync(ARTIFACT),
        "knowledge/example.md": SECTION("Documented behavior"),
        "knowledge/structure.yaml": [
          "schema_version: context.approved-structure.v1",
          "articles:",
          "  - path: example.md",
          "    sections:",
          "      - id: example",
          "        references:",
          "          - source_ref: repo:org/source",
          "            locator:",
          "              path: example.go",
          "              start_line: 2",
          "              end_line: 4",
          "",
        ].join("\n"),
        "sources/repo/index.yaml": [
          "sources:",
          "  - name: org",
          "    modules:",
          "      - name: source",
          "        subpath: src",
          "        git:",
          "          remote: https://example.org/org/source.git",
          `          ref: ${REF}`,
          "",
        ].join("\n"),
      },
    }, async ({ call, connect }) => {
      const base = await call(
        "read",
        { path: "knowledge/example.md", start_line: 2, end_line: 2 },
        await connect("?plugins=off"),
      );
      for (const plugins of [undefined, [{ name: "context-evidence" }]]) {
        const blocks = await call("read", {
          path: "knowledge/example.md",
          start_line: 2,
          end_line: 2,
          ...(plugins ? { plugins } : {}),
        });
        assertEquals(diagnostics(blocks), [], "no issues");
        assertEquals(blocks.length, 1, "exactly one attachment, on read-0");
        assert(blocks[0].startsWith(base[0].replace(/\n+$/, "") + "\n\n"));
        assertIncludes(
          blocks[0],
          `https://example.org/org/source/blob/${REF}/src/example.go#L2-L4`,
        );
      }
    }),
});

Deno.test({
  name: "external plugin contract (monorepo group): the plugin sees its group as its root",
  ignore: SKIP,
  fn: () =>
    withPluginService({
      files: {
        "docs/context-evidence.sourcegraph.wasm": SKIP ? "" : Deno.readFileSync(ARTIFACT),
        "docs/knowledge/example.md": SECTION("Scoped article"),
        "docs/knowledge/structure.yaml": [
          "schema_version: context.approved-structure.v1",
          "articles:",
          "  - path: example.md",
          "    sections:",
          "      - id: example",
          "        references: []",
          "",
        ].join("\n"),
      },
      // Serve the checkout as a monorepo whose only group is docs/.
      process: true, // sourcegraph.toml is read at start-up
      configure: (repo) =>
        Deno.writeTextFile(
          `${repo.path}/sourcegraph.toml`,
          `[[repositories]]\nname = "org/repo"\nsource = ${JSON.stringify(repo.path)}\n` +
            `branches = ["main"]\ndefault_branch = "main"\npublic_read = true\n` +
            `path_groups = [{ name = "docs", paths = ["docs"] }]\n`,
        ),
    }, async ({ call }) => {
      for (const plugins of [undefined, [{ name: "context-evidence" }]]) {
        const blocks = await call("read_many", {
          repo: "org/repo",
          files: [{ path: "docs/knowledge/example.md", start_line: 2, end_line: 2 }],
          ...(plugins ? { plugins } : {}),
        });
        assertEquals([blocks.length, diagnostics(blocks)], [1, []]);
      }
    }),
});
