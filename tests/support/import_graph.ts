/**
 * The import graph of a source folder and the layer rules it must keep:
 * no circle of files, no two folders importing each other, and no import
 * from a lower layer to a higher one. Imports are read with regular
 * expressions over the module text (static `import`/`export … from`,
 * side-effect imports, `import("…")`, and `new URL("….ts", import.meta.url)`
 * worker scripts); statements start a line, so examples inside doc comments
 * (` * import …`) are not imports.
 *
 * @module
 */

import { posix } from "node:path";

/** One import: the importing file and the imported one, both relative to the root. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** The layers, top first; each layer is one or more units (a folder `name/` or a file). */
export type LayerOrder = string[][];

const CLAUSE = String.raw`(?:type\s+)?[\w$\s,*]*(?:\{[^}]*\})?[\w$\s,*]*`;
const STATIC = new RegExp(
  String.raw`^[ \t]*(?:import|export)\s+${CLAUSE}\bfrom\s*["']([^"']+)["']`,
  "gm",
);
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const WORKER = /\bnew URL\(\s*["']([^"']+\.tsx?)["']\s*,\s*import\.meta\.url\s*\)/g;

/** The relative specifiers `text` imports (in source order, each once). */
export function importSpecifiers(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of [STATIC, SIDE_EFFECT, DYNAMIC, WORKER]) {
    for (const match of text.matchAll(pattern)) {
      if (match[1].startsWith(".")) found.add(match[1]);
    }
  }
  return [...found];
}

/** The imports among `files` (path → text, relative to one root) that stay inside them. */
export function importEdges(files: ReadonlyMap<string, string>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [from, text] of files) {
    for (const specifier of importSpecifiers(text)) {
      const to = posix.normalize(posix.join(posix.dirname(from), specifier));
      if (files.has(to) && to !== from) edges.push({ from, to });
    }
  }
  return edges;
}

/** Every `.ts`/`.tsx` file below `root` (relative paths), with its text. */
export async function readSources(
  root: string,
  options: { skip: readonly string[] },
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const visit = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(posix.join(root, dir))) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (options.skip.includes(path)) continue;
      if (entry.isDirectory) await visit(path);
      else if (/\.tsx?$/.test(entry.name)) {
        files.set(path, await Deno.readTextFile(posix.join(root, path)));
      }
    }
  };
  await visit("");
  return files;
}

/** Every circle of files, each once, as `a → b → a`. */
export function cycleViolations(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...next.get(from) ?? [], to]);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const to of (next.get(file) ?? []).toSorted()) {
      if (state.get(to) === "open") {
        found.push([...stack.slice(stack.indexOf(to)), to].join(" → "));
      } else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...next.keys()].toSorted()) if (!state.has(file)) visit(file);
  return found;
}

/** The folder of a file (`""` at the root). */
function folderOf(file: string): string {
  const dir = posix.dirname(file);
  return dir === "." ? "" : `${dir}/`;
}

/** A file's folder and every folder holding it (`a/b/`, `a/`), the root left out. */
function foldersOf(file: string): string[] {
  const folders: string[] = [];
  for (let folder = folderOf(file); folder !== ""; folder = folderOf(folder.slice(0, -1))) {
    folders.push(folder);
  }
  return folders;
}

/**
 * Every pair of folders that import each other (a folder imports what the
 * files below it import), neither inside the other, as
 * `a/ ⇄ b/ (one import each way)`.
 */
export function folderPairViolations(edges: readonly ImportEdge[]): string[] {
  const example = new Map<string, ImportEdge>();
  for (const edge of edges) {
    for (const from of foldersOf(edge.from)) {
      for (const to of foldersOf(edge.to)) {
        if (from.startsWith(to) || to.startsWith(from)) continue;
        if (!example.has(`${from}\n${to}`)) example.set(`${from}\n${to}`, edge);
      }
    }
  }
  const found: string[] = [];
  for (const [key, edge] of [...example].toSorted(([a], [b]) => a.localeCompare(b))) {
    const [from, to] = key.split("\n");
    const back = example.get(`${to}\n${from}`);
    if (back && from < to) {
      found.push(`${from} ⇄ ${to} (${edge.from} → ${edge.to}; ${back.from} → ${back.to})`);
    }
  }
  return found;
}

/** The unit of `file`: the longest unit of `order` that is the file or a folder holding it. */
export function unitOf(file: string, order: LayerOrder): string | null {
  let best: string | null = null;
  for (const unit of order.flat()) {
    const holds = unit.endsWith("/") ? file.startsWith(unit) : file === unit;
    if (holds && (best === null || unit.length > best.length)) best = unit;
  }
  return best;
}

/**
 * Every import from a layer to a higher one, or between two units of one
 * layer, as `from → to (unit → unit)`, and every file in no unit.
 */
export function layerViolations(
  edges: readonly ImportEdge[],
  options: { files: Iterable<string>; order: LayerOrder },
): string[] {
  const { files, order } = options;
  const layer = new Map(order.flatMap((units, i) => units.map((unit) => [unit, i])));
  const found: string[] = [];
  for (const file of files) {
    if (unitOf(file, order) === null) found.push(`${file} is in no layer`);
  }
  for (const { from, to } of edges) {
    const [a, b] = [unitOf(from, order), unitOf(to, order)];
    if (a === null || b === null || a === b) continue;
    if (layer.get(a)! >= layer.get(b)!) found.push(`${from} → ${to} (${a} → ${b})`);
  }
  return found;
}

/**
 * The layer order declared in a Markdown document: the lines of the first
 * fenced block after the line holding `marker`, top layer first; a layer's
 * units are separated by spaces, and text after `#` is a comment.
 */
export function declaredLayers(markdown: string, marker: string): LayerOrder {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.includes(marker));
  if (start < 0) throw new Error(`no line holds ${marker}`);
  const open = lines.findIndex((line, i) => i > start && line.startsWith("```"));
  const close = lines.findIndex((line, i) => i > open && line.startsWith("```"));
  if (open < 0 || close < 0) throw new Error(`no fenced block follows ${marker}`);
  return lines.slice(open + 1, close)
    .map((line) => line.replace(/#.*/, "").trim().split(/\s+/).filter((unit) => unit !== ""))
    .filter((units) => units.length > 0);
}
