import { join } from "node:path";
import { encodeHex } from "../../../shared/text.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { diagnosticCodes, withPluginService } from "../../support/plugin_service.ts";

const ARTIFACT = new URL(
  "../../../sourcegraph/plugins/examples/related_content/related-content.sourcegraph.wasm",
  import.meta.url,
);

const EXAMPLE = new URL("../../../sourcegraph/plugins/examples/related_content/", import.meta.url);
const DEV_LOCK = new URL("../../../deno.dev.lock", import.meta.url);

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return encodeHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/**
 * What the build's output depends on: its sources, its script, the lock that pins the compiler
 * and binaryen (with their integrity hashes), and Deno.
 */
async function buildInputs(): Promise<string> {
  const parts: string[] = [Deno.version.deno];
  const files = [
    ...[...Deno.readDirSync(new URL("assembly/", EXAMPLE))].map((entry) => `assembly/${entry.name}`)
      .sort(),
    "build.ts",
    "asc_types.d.ts",
  ];
  for (const file of files) {
    parts.push(file, await sha256(await Deno.readFile(new URL(file, EXAMPLE))));
  }
  parts.push(await sha256(await Deno.readFile(DEV_LOCK)));
  return await sha256(new TextEncoder().encode(parts.join("\n")));
}

// The build (the compiler and binaryen loaded, then -O3: five to six processor-seconds) runs
// once per set of inputs on a machine: the digest of what it made is kept in the temporary
// folder under the digest of its inputs, as the PostgreSQL template is, and compared with the
// committed artifact's on every run. Changed sources, script, lock or Deno build again.
Deno.test("related-content example: the committed artifact is what the AssemblyScript build makes", async () => {
  const record = join(
    Deno.env.get("TMPDIR") ?? "/tmp",
    `sg-related-content-build-${(await buildInputs()).slice(0, 32)}`,
  );
  let built = (await Deno.readTextFile(record).catch(() => "")).trim();
  if (!/^[0-9a-f]{64}$/.test(built)) {
    // Loaded only to build: its compiler and binaryen take seconds to load.
    const { buildRelatedContent } = await import(
      "../../../sourcegraph/plugins/examples/related_content/build.ts"
    );
    built = await sha256(await buildRelatedContent() as Uint8Array<ArrayBuffer>);
    // Written whole, then renamed: a concurrent reader sees a whole record or none.
    const partial = `${record}.${crypto.randomUUID()}`;
    await Deno.writeTextFile(partial, `${built}\n`);
    await Deno.rename(partial, record);
  }
  assertEquals(built, await sha256(await Deno.readFile(ARTIFACT)));
});

Deno.test("related-content example over MCP: links pinned to the commit, per item, off leaves the read as is", () =>
  withPluginService({
    files: {
      "docs/related-content.sourcegraph.wasm": Deno.readFileSync(ARTIFACT),
      "docs/related.json": JSON.stringify({
        base_url: "https://code.example.org",
        related: { "guide.md": ["faq.md", "api/ref.md"], "faq.md": ["guide.md"] },
      }),
      "docs/guide.md": "# Guide\nsee the FAQ\n",
      "docs/faq.md": "# FAQ\n",
      "docs/api/ref.md": "# Reference\n",
      "README.md": "top\n",
    },
  }, async ({ call, connect, head, fetchPath }) => {
    const off = await connect("?plugins=off");
    const base = await call("read", { path: "docs/guide.md" }, off);
    const link = (path: string) => `https://code.example.org/local/project/blob/${head}/${path}`;
    const read = await call("read", { path: "docs/guide.md" });
    assertEquals(read, [
      `${base[0].replace(/\n+$/, "")}\n\nrelated:\n- ${link("docs/faq.md")}\n- ${
        link("docs/api/ref.md")
      }`,
    ]);
    // Warm instance (cached map): the same answer.
    assertEquals(await call("read", { path: "docs/guide.md" }), read);
    const files = [{ path: "docs/faq.md" }, { path: "missing.md" }, { path: "docs/api/ref.md" }];
    const plain = await call("read_many", { files }, off);
    const many = await call("read_many", { files });
    assertEquals(many.length, 3);
    assertEquals(
      many[0],
      `${plain[0].replace(/\n+$/, "")}\n\nrelated:\n- ${link("docs/guide.md")}`,
    );
    assertEquals([many[1], many[2]], [plain[1], plain[2]]);
    // Outside its folder the plugin does not apply; a missing map gives nothing, silently.
    assertEquals(
      await call("read", { path: "README.md" }),
      await call("read", { path: "README.md" }, off),
    );
    const noMap = await call("read", {
      path: "docs/guide.md",
      plugins: [{ name: "related-content", args: { map: "other.json" } }],
    });
    assertEquals([noMap, diagnosticCodes(noMap)], [base, []]);
    const catalog = JSON.parse(
      (await call("availability", { include_plugins: true }))[0],
    ).plugins;
    assertEquals(catalog.plugins.length, 1);
    assertEquals(
      [
        catalog.plugins[0].name,
        catalog.plugins[0].root,
        catalog.plugins[0].metadata.default_enabled,
      ],
      ["related-content", "docs", true],
    );
    assert(!("issues" in catalog.plugins[0]));
    // The plain HTTP read API runs no plugins.
    const http = await fetchPath(`/sourcegraph/v1/repo/read?repo=local/project`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ Path: "docs/guide.md" }),
    });
    const file = await http.json();
    assertEquals(file.Content, "# Guide\nsee the FAQ\n");
    assert(!JSON.stringify(file).includes("related:"));
  }));
