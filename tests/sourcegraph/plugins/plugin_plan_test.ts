import type { PluginCatalog, PluginEntry } from "../../../sourcegraph/plugins/plugin_discovery.ts";
import { planPlugins } from "../../../sourcegraph/plugins/plugin_plan.ts";
import { assertEquals } from "../../support/assert.ts";

function plugin(
  name: string,
  root: string,
  meta: Partial<PluginEntry["metadata"]> = {},
  issues?: PluginEntry["issues"],
): PluginEntry {
  return {
    name,
    root,
    path: `${root ? `${root}/` : ""}${name}.sourcegraph.wasm`,
    oid: "0".repeat(40),
    metadata: {
      name,
      abiVersion: 2,
      defaultEnabled: true,
      operations: ["read", "read_many"],
      ...meta,
    },
    ...(issues ? { issues } : {}),
  };
}

const CATALOG: PluginCatalog = {
  commit: "a".repeat(40),
  plugins: [
    plugin("evidence", ""),
    plugin("evidence", "docs"),
    plugin("evidence", "docs/private", { defaultEnabled: false }),
    plugin("links", "src", { operations: ["read_many"] }),
    plugin("broken", "", {}, [{ code: "PLUGIN_ABI_INCOMPATIBLE", message: "rebuild" }]),
  ],
};

const FILES = [
  { itemId: "read-0", path: "README.md" },
  { itemId: "read-1", path: "docs/guide.md" },
  { itemId: "read-2", path: "docs/private/secret.md" },
  { itemId: "read-3", path: "src/app.ts" },
];

function summary(plan: ReturnType<typeof planPlugins>) {
  return {
    runs: plan.invocations.map((run) =>
      `${run.plugin.name}@${run.plugin.root || "."}:${
        run.files.map((f) => `${f.itemId}=${f.relativePath}`).join(",")
      }`
    ),
    issues: plan.issues.map((issue) => issue.code),
  };
}

Deno.test("automatic selection: nearest ancestor per file, default_enabled and operation, shadowing, all discovery issues", () => {
  assertEquals(
    summary(planPlugins({ catalog: CATALOG, files: FILES, operation: "read", url: null })),
    {
      runs: ["evidence@.:read-0=README.md,read-3=src/app.ts", "evidence@docs:read-1=guide.md"],
      issues: ["PLUGIN_ABI_INCOMPATIBLE"],
    },
  );
  assertEquals(
    summary(planPlugins({ catalog: CATALOG, files: FILES, operation: "read_many", url: null }))
      .runs,
    [
      "evidence@.:read-0=README.md,read-3=src/app.ts",
      "evidence@docs:read-1=guide.md",
      "links@src:read-3=app.ts",
    ],
  );
});

Deno.test("explicit selection overrides defaults; off and [] disable; URL lists apply without an argument", () => {
  const explicit = planPlugins({
    catalog: CATALOG,
    files: FILES,
    operation: "read",
    url: ["links"],
    argument: [{ name: "evidence", args: { depth: 2 } }, { name: "missing" }, { name: "broken" }],
  });
  assertEquals(summary(explicit), {
    runs: [
      "evidence@.:read-0=README.md,read-3=src/app.ts",
      "evidence@docs:read-1=guide.md",
      "evidence@docs/private:read-2=secret.md",
    ],
    issues: ["PLUGIN_FILE_NOT_FOUND", "PLUGIN_ABI_INCOMPATIBLE"],
  });
  assertEquals(explicit.invocations[0].args, { depth: 2 });
  assertEquals(
    summary(
      planPlugins({
        catalog: CATALOG,
        files: FILES,
        operation: "read",
        url: "off",
        argument: [{ name: "evidence" }],
      }),
    ).runs,
    [],
  );
  assertEquals(
    summary(
      planPlugins({ catalog: CATALOG, files: FILES, operation: "read", url: null, argument: [] }),
    ).runs,
    [],
  );
  assertEquals(
    summary(planPlugins({ catalog: CATALOG, files: FILES, operation: "read", url: ["links"] }))
      .runs,
    ["links@src:read-3=app.ts"],
  );
  assertEquals(
    summary(planPlugins({ catalog: CATALOG, files: [], operation: "read", url: ["links"] })).issues,
    ["PLUGIN_NO_READABLE_FILES"],
  );
  assertEquals(
    summary(planPlugins({ catalog: CATALOG, files: [], operation: "read", url: null })),
    { runs: [], issues: [] },
  );
});

Deno.test("an explicit name missing from a catalog whose scan failed is unavailable, not 'not found'", () => {
  const failed: PluginCatalog = {
    commit: "a".repeat(40),
    plugins: [],
    issues: [{ code: "PLUGIN_DISCOVERY_FAILED", message: "scope .: TIMEOUT" }],
  };
  const arg = { plugins: [{ name: "evidence" }] };
  assertEquals(
    summary(
      planPlugins({
        catalog: failed,
        files: FILES,
        operation: "read",
        url: null,
        argument: arg.plugins,
      }),
    ).issues,
    ["PLUGIN_UNAVAILABLE"],
  );
  assertEquals(
    summary(
      planPlugins({
        catalog: { ...failed, issues: [] },
        files: FILES,
        operation: "read",
        url: null,
        argument: arg.plugins,
      }),
    ).issues,
    ["PLUGIN_FILE_NOT_FOUND"],
  );
});
