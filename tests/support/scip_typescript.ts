/**
 * The npm `@sourcegraph/scip-typescript` indexer (installed by `npm ci`
 * into `tools/scip-typescript/`, run with Node, offline), and the
 * TypeScript compiler's language service over the same files: the two
 * sides of the precise-references comparison.
 *
 * @module
 */

import ts from "typescript";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemTool } from "./system_tools.ts";

const INDEXER = fileURLToPath(
  new URL(
    "../../tools/scip-typescript/node_modules/@sourcegraph/scip-typescript/dist/src/main.js",
    import.meta.url,
  ),
);

/** Node and the indexer's entry script, or null (thrown in CI) when either is missing. */
export function scipTypescript(): { node: string; indexer: string } | null {
  const node = systemTool(["/usr/bin/node", "/usr/local/bin/node"], {
    what: "node (for scip-typescript)",
    install: "apt-get install nodejs",
  });
  const indexer = systemTool([INDEXER], {
    what: "scip-typescript",
    install: "npm ci (installs tools/scip-typescript)",
  });
  return node === null || indexer === null ? null : { node, indexer };
}

/** Runs `scip-typescript index` on the project at `root`, writing the index to `output`. */
export async function runScipTypescript(
  tool: { node: string; indexer: string },
  at: { root: string; output: string },
): Promise<void> {
  const { code, stderr, stdout } = await new Deno.Command(tool.node, {
    args: [tool.indexer, "index", "--cwd", at.root, "--output", at.output, "--no-progress-bar"],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
    stdin: "null",
  }).output();
  if (code !== 0) {
    const decoder = new TextDecoder();
    throw new Error(`scip-typescript failed: ${decoder.decode(stdout)}${decoder.decode(stderr)}`);
  }
}

/** A language service over `files` (paths relative to `root`), as `tsc` reads the project. */
export function languageService(root: string, files: Record<string, string>): ts.LanguageService {
  const absolute = new Map(Object.entries(files).map(([path, text]) => [join(root, path), text]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ES2020,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
  };
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...absolute.keys()].filter((name) => name.endsWith(".ts")),
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = absolute.get(name) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: (name) => absolute.has(name) || (!name.startsWith(root) && ts.sys.fileExists(name)),
    readFile: (name) =>
      absolute.get(name) ?? (name.startsWith(root) ? undefined : ts.sys.readFile(name)),
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** Every identifier of a file: its 0-based line and character and its offset. */
export function identifiers(
  service: ts.LanguageService,
  fileName: string,
): { line: number; character: number; offset: number; text: string }[] {
  const source = service.getProgram()!.getSourceFile(fileName)!;
  const found: { line: number; character: number; offset: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const offset = node.getStart(source);
      const { line, character } = source.getLineAndCharacterOfPosition(offset);
      found.push({ line, character, offset, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
