import { join } from "node:path";
import { parseDuration, readPluginSettings } from "../../../sourcegraph/plugins/plugin_settings.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  inspectMetadata,
  metadataDocument,
} from "../../../sourcegraph/plugins/wasm/wasm_metadata.ts";
import { assert, assertEquals, assertIncludes, assertThrows } from "../../support/assert.ts";
import { PLUGIN_REPO, withPluginService } from "../../support/plugin_service.ts";
import { startFailure } from "../../support/sourcegraph_service.ts";
import { texts } from "../../support/tool_calls.ts";
import { wasmWithMetadata } from "../../support/wasm_module.ts";

const META = {
  name: "related-content",
  abi_version: 2,
  operations: ["read"],
  default_enabled: true,
};

Deno.test("metadata: sections merge in order, keys match case-insensitively, abi_version must be 2", () => {
  const merged = inspectMetadata(
    wasmWithMetadata([{ name: "x", abi_version: 2, title: "First" }, {
      Default_Enabled: true,
      operations: ["read"],
      extra: 1,
    }]),
    { maxMetadataBytes: 1024 },
  );
  assertEquals(merged, {
    name: "x",
    abiVersion: 2,
    title: "First",
    defaultEnabled: true,
    operations: ["read"],
  });
  assertEquals(metadataDocument(merged), {
    name: "x",
    title: "First",
    abi_version: 2,
    operations: ["read"],
    default_enabled: true,
  });
  const code = (bytes: Uint8Array, max = 1024) =>
    assertThrows(() => inspectMetadata(bytes, { maxMetadataBytes: max }), SourcegraphError).code;
  assertEquals(code(wasmWithMetadata([{ ...META, abi_version: 1 }])), "PLUGIN_ABI_INCOMPATIBLE");
  assertEquals(code(wasmWithMetadata([META], "other.section")), "PLUGIN_UNAVAILABLE");
  assertEquals(
    code(new TextEncoder().encode("version https://git-lfs.github.com/spec/v1\n")),
    "PLUGIN_UNAVAILABLE",
  );
  assertEquals(code(wasmWithMetadata(["{not json"])), "PLUGIN_UNAVAILABLE");
  assertEquals(code(wasmWithMetadata([META]), 10), "PLUGIN_UNAVAILABLE");
  assertEquals(
    code(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff])),
    "PLUGIN_UNAVAILABLE",
  );
});

Deno.test("plugin settings: defaults, durations, and invalid values", () => {
  const defaults = readPluginSettings(() => undefined).settings;
  assertEquals([defaults.timeoutMs, defaults.memoryMib, defaults.concurrency, defaults.disabled], [
    10_000,
    256,
    8,
    false,
  ]);
  assertEquals([
    parseDuration("10s"),
    parseDuration("1500ms"),
    parseDuration("1m30s"),
    parseDuration("x"),
  ], [10_000, 1500, 90_000, null]);
  for (
    const [name, value, form] of [
      ["TIMEOUT", "0s", "a duration such as 10s or 1500ms"],
      ["TIMEOUT", "ten", "a duration such as 10s or 1500ms"],
      ["MEMORY_MIB", "4097", "a whole number from 1 to 4096"],
      ["CONCURRENCY", "0", "a whole number of at least 1"],
      ["READ_CALLS", "1.5", "a whole number of at least 1"],
      ["DISABLED", "yes", "1 or 0"],
    ]
  ) {
    const read = readPluginSettings((key) =>
      key === `SOURCEGRAPH_PLUGINS_${name}` ? value : undefined
    );
    assertEquals(read.problems, [
      `invalid plugin setting SOURCEGRAPH_PLUGINS_${name}: must be ${form} (got "${value}")`,
    ]);
    assertEquals(read.settings, defaults, "a bad value keeps the default");
  }
  assertEquals(
    readPluginSettings((key) => key === "SOURCEGRAPH_PLUGINS_DISABLED" ? "1" : undefined).settings
      .disabled,
    true,
  );
});

Deno.test("discovery: regular *.sourcegraph.wasm blobs by file name, sorted, issues per plugin, never run", () =>
  withPluginService({
    files: {
      "related-content.sourcegraph.wasm": wasmWithMetadata([META]),
      "docs/related-content.sourcegraph.wasm": wasmWithMetadata([{
        ...META,
        default_enabled: false,
      }]),
      "docs/old.sourcegraph.wasm": wasmWithMetadata([{ ...META, name: "old", abi_version: 1 }]),
      "Bad_Name.sourcegraph.wasm": wasmWithMetadata([META]),
      "lfs.sourcegraph.wasm": "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n",
      "bare.sourcegraph.wasm": wasmWithMetadata([]),
      "plugin.json": JSON.stringify(META),
      "notes.md": "text\n",
    },
    configure: (repo) =>
      Deno.symlink("related-content.sourcegraph.wasm", join(repo.path, "link.sourcegraph.wasm")),
  }, async ({ client, head, fetchPath, repo }) => {
    const availability = JSON.parse(
      texts(
        await client.callTool({
          name: "availability",
          arguments: { repo: PLUGIN_REPO, include_plugins: true },
        }),
      )[0],
    );
    const catalog = availability.plugins;
    assertEquals(catalog.commit, head);
    const summary = catalog.plugins.map((
      p: { path: string; name: string; root: string; issues?: { code: string }[] },
    ) => `${p.path}|${p.name}|${p.root}|${p.issues?.map((i) => i.code).join(",") ?? ""}`);
    assertEquals(summary, [
      "bare.sourcegraph.wasm|bare||PLUGIN_UNAVAILABLE",
      "docs/old.sourcegraph.wasm|old|docs|PLUGIN_ABI_INCOMPATIBLE",
      "docs/related-content.sourcegraph.wasm|related-content|docs|",
      "lfs.sourcegraph.wasm|lfs||PLUGIN_UNAVAILABLE",
      "related-content.sourcegraph.wasm|related-content||",
    ]);
    assertEquals(catalog.plugins[4].metadata.default_enabled, true);
    // Without include_plugins the catalog is not computed.
    const plain = JSON.parse(
      texts(
        await client.callTool({ name: "availability", arguments: { repo: PLUGIN_REPO } }),
      )[0],
    );
    assert(!("plugins" in plain));
    const http = await fetchPath(
      `/sourcegraph/v1/repo/plugins?repo=${PLUGIN_REPO}&revision=${head}`,
    );
    const listed = await http.json();
    assertEquals(listed.Commit, head);
    assertEquals(listed.Plugins.length, 5);
    assertEquals(listed.Plugins[4].Metadata.default_enabled, true, "metadata as the module has it");
    assertEquals(listed.Plugins[0].Issues[0].Code, "PLUGIN_UNAVAILABLE");
    const twice = await fetchPath(
      `/sourcegraph/v1/repo/plugins?repo=${PLUGIN_REPO}&revision=a&revision=b`,
    );
    assertEquals(twice.status, 400);
    await twice.body?.cancel();
    // A service started with an invalid plugin setting stops with one line naming it.
    const failed = await startFailure(repo.path, { SOURCEGRAPH_PLUGINS_TIMEOUT: "forever" });
    assertIncludes(
      failed,
      'invalid plugin setting SOURCEGRAPH_PLUGINS_TIMEOUT: must be a duration such as 10s or 1500ms (got "forever")',
    );
  }));
