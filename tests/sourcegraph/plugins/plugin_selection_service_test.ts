import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  diagnosticCodes,
  echoed,
  ENABLED,
  fixture,
  fixtureWith,
  PLUGIN_REPO,
  type PluginWorld,
  withPluginService,
} from "../../support/plugin_service.ts";
import { texts } from "../../support/tool_calls.ts";

const LONG = Array.from({ length: 600 }, (_, i) => `long ${i + 1}`).join("\n") + "\n";

// Root and docs/ carry an enabled `fixture` (echo), off/ a disabled one that
// shadows the root plugin; docs/ also has `minimal` (read and read_many) and
// `reader` (read only).
const FILES = {
  "fixture.sourcegraph.wasm": fixtureWith("fixture", ENABLED),
  "docs/fixture.sourcegraph.wasm": fixtureWith("fixture", ENABLED),
  "off/fixture.sourcegraph.wasm": fixture("fixture"),
  "docs/minimal.sourcegraph.wasm": fixture("minimal"),
  "docs/reader.sourcegraph.wasm": fixtureWith("minimal", {
    name: "reader",
    operations: ["read"],
  }),
  "top.md": "line one\nline two\nline three\n",
  "docs/guide.md": "guide 1\nguide 2\n",
  "off/x.md": "x\n",
  "long.txt": LONG,
};

// One case kept whole, as it was as a test of its own: its checks run in the same order.
// deno-lint-ignore function-length/max-lines
async function selectionAndInput({ call, connect, head }: PluginWorld): Promise<void> {
  const off = await connect("?plugins=off");
  const base = await call("read", { path: "top.md" }, off);
  assertEquals(base.length, 1);

  // Root plugin, automatic: the base block is unchanged, the echo is a final block.
  const top = await call("read", { path: "top.md", start_line: 2 });
  assertEquals(top.length, 2);
  assertEquals(top[0], (await call("read", { path: "top.md", start_line: 2 }, off))[0]);
  const input = echoed(top[1]);
  assertEquals(Object.keys(input), [
    "abi_version",
    "args",
    "commit",
    "files",
    "operation",
    "repository",
    "root",
  ]);
  assertEquals(
    [input.abi_version, input.args, input.commit, input.operation, input.repository, input.root],
    [2, {}, head, "read", PLUGIN_REPO, ""],
  );
  assertEquals(input.files, [{
    content: "line two\nline three\n",
    end_line: 3,
    has_more: false,
    item_id: "read-0",
    next_start_line: null,
    path: "top.md",
    repository_path: "top.md",
    start_line: 2,
    truncated: false,
  }]);

  // docs/ overrides the root plugin; different names apply together, in catalog name order.
  const guide = await call("read", { path: "docs/guide.md" });
  assertEquals(guide.length, 4);
  const docsInput = echoed(guide[1]);
  assertEquals([docsInput.root, (docsInput.files as { path: string }[])[0].path], [
    "docs",
    "guide.md",
  ]);
  assertEquals(
    (docsInput.files as { repository_path: string }[])[0].repository_path,
    "docs/guide.md",
  );
  assertEquals([guide[2], guide[3]], ["minimal ran", "minimal ran"]);
  // `reader` declares only read, so read_many runs fixture and minimal.
  const many = await call("read_many", { files: [{ path: "docs/guide.md" }] });
  assertEquals(many.length, 3);
  assertEquals(echoed(many[1]).operation, "read_many");

  // A disabled child shadows its parent: nothing runs, and nothing is said.
  assertEquals((await call("read", { path: "off/x.md" })).length, 1);

  // An explicit selection runs the disabled child, with its args.
  const explicit = await call("read", {
    path: "off/x.md",
    plugins: [{ name: "fixture", args: { z: 1, a: [true] } }],
  });
  assertEquals(explicit.length, 2);
  assertEquals([echoed(explicit[1]).root, echoed(explicit[1]).args], ["off", {
    a: [true],
    z: 1,
  }]);

  // Continuation fields are the returned range: 500 of 600 lines, more to come.
  const long = echoed((await call("read", { path: "long.txt" }))[1]);
  const file = (long.files as Record<string, unknown>[])[0];
  assertEquals([file.start_line, file.end_line, file.has_more, file.next_start_line], [
    1,
    500,
    true,
    501,
  ]);
}

async function offAndLists({ call, connect }: PluginWorld): Promise<void> {
  assertEquals((await call("read", { path: "top.md", plugins: [] })).length, 1);
  const off = await connect("?plugins=off");
  assertEquals(
    (await call("read", { path: "top.md", plugins: [{ name: "fixture" }] }, off)).length,
    1,
  );
  const listed = await connect("?plugins=minimal");
  assertEquals(
    (await call("read", { path: "docs/guide.md" }, listed)).slice(1),
    ["minimal ran"],
  );
  const missing = await call("read", { path: "top.md" }, listed);
  assertEquals(missing.length, 2);
  assertEquals(diagnosticCodes(missing), ["PLUGIN_FILE_NOT_FOUND"]);
  const overridden = await call("read", {
    path: "top.md",
    plugins: [{ name: "fixture", args: { action: "attachments" } }],
  }, listed);
  assertEquals(overridden.length, 1);
  assert(overridden[0].endsWith("\n\nreferences: fixture-evidence"), overridden[0]);
  // A bad selection is a tool error before anything is read.
  const client = await connect("");
  for (
    const plugins of [
      [{ name: "Bad" }],
      [{ name: "a" }, { name: "a" }],
      Array.from({ length: 17 }, (_, i) => ({ name: `p${i}` })),
    ]
  ) {
    const result = await client.callTool({
      name: "read",
      arguments: { repo: PLUGIN_REPO, path: "top.md", plugins },
    });
    assert(result.isError === true, JSON.stringify(plugins));
    if (plugins.length <= 16) assertIncludes(texts(result)[0], "INVALID_PLUGINS");
  }
  // No readable file: explicit selection says so, automatic is silent.
  const none = await call("read_many", {
    files: [{ path: "nope.md" }],
    plugins: [{ name: "fixture" }],
  });
  assertEquals(diagnosticCodes(none), ["PLUGIN_NO_READABLE_FILES"]);
  assertEquals((await call("read_many", { files: [{ path: "nope.md" }] })).length, 1);
}

async function readManyGroups({ call, connect }: PluginWorld): Promise<void> {
  const files = [
    { path: "docs/guide.md" },
    { path: "top.md" },
    { path: "missing.md" },
    { path: "off/x.md" },
    { path: "docs/guide.md" },
    { path: "top.md", start_line: 2, end_line: 3 },
  ];
  const plain = await call("read_many", { files }, await connect("?plugins=off"));
  assertEquals(plain.length, 6);
  const echo = await call("read_many", { files, plugins: [{ name: "fixture" }] });
  assertEquals(echo.slice(0, 6), plain);
  assertIncludes(echo[2], "FILE_NOT_FOUND");
  // One run per folder, folders in order, paths relative to the folder.
  const runs = echo.slice(6).map(echoed).map((input) =>
    `${input.root}:${
      (input.files as { item_id: string; path: string }[]).map((f) => `${f.item_id}=${f.path}`)
        .join(",")
    }`
  );
  assertEquals(runs, [
    ":read-1=top.md,read-5=top.md",
    "docs:read-0=guide.md,read-4=guide.md",
    "off:read-3=x.md",
  ]);
  // item_id attachments follow their own block after a blank line; failed items are untouched.
  const attached = await call("read_many", {
    files,
    plugins: [{ name: "fixture", args: { action: "attachments" } }],
  });
  assertEquals(attached.length, 6);
  for (const i of [0, 1, 3, 4, 5]) {
    assertEquals(attached[i], `${plain[i].replace(/\n+$/, "")}\n\nreferences: fixture-evidence`);
  }
  assertEquals(attached[2], plain[2]);
}

// The three share one service: they only read the same committed files.
Deno.test("plugins over MCP on one checkout of the shared files", (t) =>
  withPluginService({ files: FILES }, async (world) => {
    await t.step(
      "automatic selection, inheritance, shadowing and the ABI 2 input",
      () => selectionAndInput(world),
    );
    await t.step(
      "[] and URL off disable, URL lists apply without an argument, the argument wins",
      () => offAndLists(world),
    );
    await t.step(
      "read_many groups by plugin folder, keeps request ids, leaves base blocks intact",
      () => readManyGroups(world),
    );
  }));

Deno.test("plugins over MCP: symlinked reads use the target's plugin folder; monorepo groups bound discovery", () =>
  withPluginService({
    files: {
      "outside.sourcegraph.wasm": fixtureWith("minimal", { name: "outside" }),
      "docs/fixture.sourcegraph.wasm": fixtureWith("fixture", ENABLED),
      "docs/fixture.json": '{"attachments":[{"text":"docs fixture file"}]}',
      "docs/guide.md": "guide\n",
    },
    configure: (repo) => Deno.symlink("docs/guide.md", `${repo.path}/docs-link.md`),
    // The same files twice: whole, and as a monorepo whose one path group is docs/.
    repositories: [
      { name: "org/full" },
      { name: "org/mono", pathGroups: [{ name: "docs", paths: ["docs"] }] },
    ],
  }, async ({ call }) => {
    // A read through a symlink is enriched by the plugins of the file it leads to.
    const viaLink = await call("read", { repo: "org/full", path: "docs-link.md" });
    const linked = echoed(viaLink[1]);
    assertEquals(
      [linked.root, (linked.files as { path: string; repository_path: string }[])[0]],
      ["docs", { ...(linked.files as object[])[0], path: "guide.md" }],
    );
    assertEquals(
      (linked.files as { repository_path: string }[])[0].repository_path,
      "docs/guide.md",
    );

    const mono = { repo: "org/mono" };
    const catalog = JSON.parse((await call("availability", { ...mono, include_plugins: true }))[0])
      .plugins;
    assertEquals(
      catalog.plugins.map((p: { path: string }) => p.path),
      ["docs/fixture.sourcegraph.wasm"],
      "a plugin outside the groups is not discovered",
    );
    const echo = echoed((await call("read", { ...mono, path: "docs/guide.md" }))[1]);
    assertEquals([echo.root, (echo.files as { path: string }[])[0].path], ["docs", "guide.md"]);
    const read = await call("read", {
      ...mono,
      path: "docs/guide.md",
      plugins: [{ name: "fixture", args: { action: "read" } }],
    });
    assertEquals(read.slice(1), ["docs fixture file"]);
    const explicitOutside = await call("read", {
      ...mono,
      path: "docs/guide.md",
      plugins: [{ name: "outside" }],
    });
    assertEquals(diagnosticCodes(explicitOutside), ["PLUGIN_FILE_NOT_FOUND"]);
  }));
