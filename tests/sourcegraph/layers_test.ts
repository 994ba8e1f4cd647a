import { fileURLToPath } from "node:url";
import { assertEquals } from "../support/assert.ts";
import {
  cycleViolations,
  declaredLayers,
  folderPairViolations,
  importEdges,
  importSpecifiers,
  layerViolations,
  readSources,
} from "../support/import_graph.ts";

const ROOT = fileURLToPath(new URL("../../sourcegraph/", import.meta.url));
const ARCHITECTURE = new URL("../../docs/ARCHITECTURE.md", import.meta.url);
const MARKER = "sourcegraph layer order";
// The example plugin's AssemblyScript is compiled to Wasm, never imported by the service.
const SKIP = ["plugins/examples/related_content/assembly"];

async function sourcegraphGraph() {
  const files = await readSources(ROOT, { skip: SKIP });
  return { files, edges: importEdges(files) };
}

function report(violations: string[]): string {
  return violations.length === 0 ? "" : `\n${violations.join("\n")}\n`;
}

Deno.test("layers: no circle of imports between the files of sourcegraph/", async () => {
  const { edges } = await sourcegraphGraph();
  assertEquals(report(cycleViolations(edges)), "");
});

Deno.test("layers: no two folders of sourcegraph/ import each other", async () => {
  const { edges } = await sourcegraphGraph();
  assertEquals(report(folderPairViolations(edges)), "");
});

Deno.test("layers: every sourcegraph/ file imports only its own unit or layers below it, in the order docs/ARCHITECTURE.md declares", async () => {
  const { files, edges } = await sourcegraphGraph();
  const order = declaredLayers(await Deno.readTextFile(ARCHITECTURE), MARKER);
  assertEquals(report(layerViolations(edges, { files: files.keys(), order })), "");
});

Deno.test("layers: the authorization server's rules (oauth/) sit below the edge and the pages and above the store", async () => {
  const order = declaredLayers(await Deno.readTextFile(ARCHITECTURE), MARKER).map((line) =>
    line.join(" ")
  );
  const at = (unit: string) => order.findIndex((line) => line.split(" ").includes(unit));
  const oauth = at("oauth/");
  assertEquals(
    [at("web/") < oauth, at("http/") < oauth, oauth < at("store/"), oauth >= 0],
    [true, true, true, true],
  );
});

Deno.test("layers: the import reader finds multi-line, type-only, re-exported, side-effect, dynamic and worker imports, and not those in doc comments", () => {
  const text = [
    "/**",
    " * ```ts",
    ' * import { example } from "./in_a_comment.ts";',
    " * ```",
    " */",
    'import type { A } from "./a.ts";',
    "import {",
    "  b,",
    "  type C,",
    '} from "../b.ts";',
    'import * as d from "./d.ts";',
    'import e, { f } from "./e.ts";',
    'export { g } from "./g.ts";',
    'export type { H } from "./h.ts";',
    'export * from "./i.ts";',
    'import "./side_effect.ts";',
    'import { z } from "zod";',
    'const lazy = await import("./lazy.ts");',
    'const WORKER = new URL("./worker.ts", import.meta.url);',
    'const FOLDER = new URL("../", import.meta.url);',
    'export const text = Array.from("x from \\"./not_an_import.ts\\"");',
  ].join("\n");
  assertEquals(importSpecifiers(text).toSorted(), [
    "../b.ts",
    "./a.ts",
    "./d.ts",
    "./e.ts",
    "./g.ts",
    "./h.ts",
    "./i.ts",
    "./lazy.ts",
    "./side_effect.ts",
    "./worker.ts",
  ]);
});

Deno.test("layers: a circle, two folders importing each other and an import upwards are each reported as from → to", () => {
  const files = new Map([
    ["top/page.ts", 'import { url } from "../low/urls.ts";\n'],
    ["low/urls.ts", 'import { page } from "../top/page.ts";\n'],
    ["low/a.ts", 'import { b } from "./b.ts";\n'],
    ["low/b.ts", 'import type { A } from "./a.ts";\n'],
    ["stray.ts", ""],
  ]);
  const edges = importEdges(files);
  assertEquals(cycleViolations(edges), [
    "low/a.ts → low/b.ts → low/a.ts",
    "low/urls.ts → top/page.ts → low/urls.ts",
  ]);
  assertEquals(folderPairViolations(edges), [
    "low/ ⇄ top/ (low/urls.ts → top/page.ts; top/page.ts → low/urls.ts)",
  ]);
  const order = declaredLayers(
    ["## sourcegraph layer order", "", "```", "top/   # pages", "low/", "```"].join("\n"),
    MARKER,
  );
  assertEquals(order, [["top/"], ["low/"]]);
  assertEquals(layerViolations(edges, { files: files.keys(), order }), [
    "stray.ts is in no layer",
    "low/urls.ts → top/page.ts (low/ → top/)",
  ]);
});

Deno.test("layers: two units of one layer may not import each other", () => {
  const files = new Map([
    ["a/x.ts", 'import { y } from "../b/y.ts";\n'],
    ["b/y.ts", ""],
    ["c/z.ts", 'import { x } from "../a/x.ts";\n'],
  ]);
  const order = [["c/"], ["a/", "b/"]];
  assertEquals(layerViolations(importEdges(files), { files: files.keys(), order }), [
    "a/x.ts → b/y.ts (a/ → b/)",
  ]);
});

Deno.test("layers: a folder imports what the files of its subfolders import", () => {
  const files = new Map([
    ["store/postgres/sealed.ts", 'import { Files } from "../../git/credentials.ts";\n'],
    ["git/credentials.ts", 'import type { Record } from "../store/control.ts";\n'],
    ["store/control.ts", ""],
  ]);
  assertEquals(folderPairViolations(importEdges(files)), [
    "git/ ⇄ store/ (git/credentials.ts → store/control.ts; store/postgres/sealed.ts → git/credentials.ts)",
  ]);
});
