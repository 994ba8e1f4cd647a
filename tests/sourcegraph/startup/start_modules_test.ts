/**
 * What `deno task start` caches and loads: Deno caches every npm package of
 * the lock of the configuration it runs with before the task's first
 * command, so `deno.lock` holds the service's packages only (no plugin
 * authoring, page-test or grammar package, none with install scripts, which
 * Deno would warn about) and the service's module graph (the entry, the
 * index builder, the plugin sandbox and every worker) reaches no other; the
 * grammars are the vendored WebAssembly, each of which loads with its
 * queries; the service's start loads no MCP server module (the first MCP
 * request does); and the development configuration is the service's plus the
 * development packages. That the task says what it does before anything slow
 * is shown by `launch_stop_test.ts`, which runs it.
 */

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser, Query } from "web-tree-sitter";
import { assert, assertEquals } from "../../support/assert.ts";
import { grammarFiles, runtimeWasm } from "../../../sourcegraph/symbols/grammars.ts";
import { GRAMMAR_LANGUAGES } from "../../../sourcegraph/symbols/languages.ts";
import {
  GRAMMAR_FILES,
  GRAMMAR_PACKAGES,
  GRAMMARS_DIR,
} from "../../../tools/grammars/refresh_grammars.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Packages of plugin authoring, page tests, benchmarks and type analysis in tests. */
const DEVELOPMENT_PACKAGES = [
  "assemblyscript",
  "binaryen",
  "wabt",
  "puppeteer-core",
  "chromium-bidi",
  "@puppeteer/browsers",
  "typescript",
  "postgres",
];

function isDevelopmentPackage(name: string): boolean {
  return DEVELOPMENT_PACKAGES.includes(name) || name.startsWith("tree-sitter-");
}

/** `name` of a lock or graph package id such as `@scope/name@1.2.3_peer@4`. */
function packageName(id: string): string {
  return id.slice(0, id.indexOf("@", 1));
}

/** The scripts the service runs: its entry, the index builder, the plugin sandbox, every worker. */
function serviceEntries(): string[] {
  const entries = [
    "sourcegraph/main.ts",
    "sourcegraph/search/build/build_main.ts",
    "sourcegraph/plugins/sandbox/sandbox_main.ts",
  ];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== "examples") walk(path);
      else if (entry.name.endsWith("_worker.ts")) entries.push(path);
    }
  };
  walk("sourcegraph");
  return entries;
}

interface GraphModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  error?: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

interface DenoInfo {
  roots: string[];
  modules: GraphModule[];
  redirects?: Record<string, string>;
  npmPackages: Record<string, { name: string; dependencies?: string[] }>;
}

// Each entry's graph is read once for the file (the cases ask for the same graphs).
const infoByEntry = new Map<string, Promise<DenoInfo>>();

/** `deno info --json` of `entry` under the service's configuration. */
function denoInfo(entry: string): Promise<DenoInfo> {
  let info = infoByEntry.get(entry);
  if (info === undefined) {
    info = readDenoInfo(entry);
    infoByEntry.set(entry, info);
  }
  return info;
}

async function readDenoInfo(entry: string): Promise<DenoInfo> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", join(ROOT, "deno.json"), entry],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
  assert(output.success, `deno info ${entry}: ${new TextDecoder().decode(output.stderr)}`);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as DenoInfo;
}

/** The npm packages `entry`'s module graph reaches under the service's configuration. */
async function reachedPackages(entry: string): Promise<{ names: Set<string>; errors: string[] }> {
  const info = await denoInfo(entry);
  const errors = info.modules.filter((module) => module.error !== undefined)
    .map((module) => `${module.specifier}: ${module.error}`);
  const seen = new Set<string>();
  const queue = info.modules.flatMap((module) => module.npmPackage ? [module.npmPackage] : []);
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    queue.push(...info.npmPackages[id]?.dependencies ?? []);
  }
  return { names: new Set([...seen].map(packageName)), errors };
}

Deno.test("start modules: the lock the start task caches holds the service's packages only, none with install scripts", async () => {
  const lock = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.lock"))) as {
    npm: Record<string, { scripts?: boolean }>;
  };
  const names = Object.keys(lock.npm).map(packageName);
  assertEquals(names.filter(isDevelopmentPackage), []);
  assertEquals(Object.entries(lock.npm).filter(([, entry]) => entry.scripts).map(([id]) => id), []);
  // Every package it holds is one the service's graph reaches: nothing is cached for nothing.
  const reached = new Set<string>();
  for (const entry of serviceEntries()) {
    for (const name of (await reachedPackages(entry)).names) reached.add(name);
  }
  assertEquals(names.filter((name) => !reached.has(name)), []);
});

Deno.test("start modules: the service's entry, builder, sandbox and workers resolve completely and reach no development or grammar package", async () => {
  const entries = serviceEntries();
  assert(entries.length >= 9, `entries: ${entries.join(", ")}`);
  for (const entry of entries) {
    const { names, errors } = await reachedPackages(entry);
    assertEquals(errors, [], entry);
    assertEquals([...names].filter(isDevelopmentPackage), [], entry);
  }
  // The builder's graph holds the parser runtime, so the start task caches it.
  assert(
    (await reachedPackages("sourcegraph/search/build/build_main.ts")).names.has("web-tree-sitter"),
  );
});

/** The modules `entry`'s graph holds: all of them, and those its static imports reach. */
async function moduleGraph(entry: string): Promise<{ all: Set<string>; loaded: Set<string> }> {
  const info = await denoInfo(entry);
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const resolve = (specifier: string) => info.redirects?.[specifier] ?? specifier;
  const loaded = new Set<string>();
  const queue = info.roots.map(resolve);
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target !== undefined && dependency.isDynamic !== true) queue.push(resolve(target));
    }
  }
  return { all: new Set(info.modules.map((module) => module.specifier)), loaded };
}

Deno.test("start modules: the service's start loads no MCP server module; they are in its graph for the first MCP request", async () => {
  const { all, loaded } = await moduleGraph("sourcegraph/main.ts");
  const mcpServer = (specifier: string) =>
    specifier.includes("@modelcontextprotocol/sdk") ||
    specifier.endsWith("/sourcegraph/http/mcp/server.ts");
  // The graph holds them (so `deno task start` caches them), and the walk reaches the edge.
  assert([...all].filter(mcpServer).length >= 2);
  assert(loaded.has(new URL("sourcegraph/http/mcp/mcp_app.ts", `file://${ROOT}`).href));
  assertEquals([...loaded].filter(mcpServer), []);
});

Deno.test("start modules: every vendored grammar loads with its queries, and each came with its licence", async () => {
  await Parser.init({ wasmBinary: await runtimeWasm() });
  for (const language of GRAMMAR_LANGUAGES) {
    const files = await grammarFiles(language);
    const loaded = await Language.load(files.wasm);
    const query = new Query(loaded, files.queries.join("\n"));
    assert(query.patternCount() > 0, language);
    const parser = new Parser();
    parser.setLanguage(loaded);
    const tree = parser.parse("")!;
    assertEquals(tree.rootNode.hasError, false, language);
    tree.delete();
    parser.delete();
    query.delete();
  }
  const folders = readdirSync(GRAMMARS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  assertEquals(folders, GRAMMAR_PACKAGES.map((grammar) => grammar.name).sort());
  for (const grammar of GRAMMAR_PACKAGES) {
    const files = readdirSync(join(GRAMMARS_DIR, grammar.name), { recursive: true })
      .map(String).sort();
    assertEquals(files, [...grammar.wasm, ...GRAMMAR_FILES, "queries"].sort());
  }
});

Deno.test("start modules: the development configuration is the service's plus the development packages", async () => {
  const service = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const development = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.dev.json")));
  const extra = Object.keys(development.imports).filter((name) => !(name in service.imports));
  assertEquals(
    extra.map((name) => name.replace(/\/$/, "")).filter((name) => !isDevelopmentPackage(name)),
    [],
  );
  for (const [name, target] of Object.entries(service.imports)) {
    assertEquals(development.imports[name], target, name);
  }
  for (const key of ["nodeModulesDir", "compilerOptions", "exclude", "unstable"]) {
    assertEquals(development[key], service[key], key);
  }
  assertEquals(development.lock, { path: "./deno.dev.lock", frozen: true });
  // Both locks pin a package they share at one version.
  const versions = async (file: string) =>
    Object.keys(JSON.parse(await Deno.readTextFile(join(ROOT, file))).npm);
  const developmentIds = new Set(await versions("deno.dev.lock"));
  assertEquals((await versions("deno.lock")).filter((id) => !developmentIds.has(id)), []);
});
