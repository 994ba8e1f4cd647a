/**
 * Refreshes the tree-sitter grammars the index builder parses with
 * (`sourcegraph/symbols/grammars/`) from their npm packages: for each package
 * of `GRAMMAR_PACKAGES`, `npm pack` fetches the pinned version, and its
 * prebuilt WebAssembly, its `queries/tags.scm` (definitions), its
 * `queries/highlights.scm` (for the highlighting benchmark) and its `LICENSE`
 * are copied into a folder named after the package. Only those files are kept, so the
 * service never needs the packages (their C sources and native build scripts)
 * at run time.
 *
 * ```sh
 * deno run --allow-run=npm,tar --allow-read --allow-write tools/grammars/refresh_grammars.ts
 * ```
 *
 * To move a grammar to another version, change it here, run this, run the
 * symbol tests and update the table in the grammars' README.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** One npm package of grammars and the files taken from it. */
export interface GrammarPackage {
  name: string;
  version: string;
  /** The prebuilt grammars in the package's root. */
  wasm: string[];
}

/** The packages the vendored grammars come from, at their pinned versions. */
export const GRAMMAR_PACKAGES: readonly GrammarPackage[] = [
  { name: "tree-sitter-c", version: "0.24.1", wasm: ["tree-sitter-c.wasm"] },
  { name: "tree-sitter-cpp", version: "0.23.4", wasm: ["tree-sitter-cpp.wasm"] },
  { name: "tree-sitter-c-sharp", version: "0.23.5", wasm: ["tree-sitter-c_sharp.wasm"] },
  { name: "tree-sitter-go", version: "0.25.0", wasm: ["tree-sitter-go.wasm"] },
  { name: "tree-sitter-java", version: "0.23.5", wasm: ["tree-sitter-java.wasm"] },
  { name: "tree-sitter-javascript", version: "0.25.0", wasm: ["tree-sitter-javascript.wasm"] },
  { name: "tree-sitter-php", version: "0.24.2", wasm: ["tree-sitter-php.wasm"] },
  { name: "tree-sitter-python", version: "0.25.0", wasm: ["tree-sitter-python.wasm"] },
  { name: "tree-sitter-ruby", version: "0.23.1", wasm: ["tree-sitter-ruby.wasm"] },
  { name: "tree-sitter-rust", version: "0.24.0", wasm: ["tree-sitter-rust.wasm"] },
  {
    name: "tree-sitter-typescript",
    version: "0.23.2",
    wasm: ["tree-sitter-typescript.wasm", "tree-sitter-tsx.wasm"],
  },
];

/** The files taken from every package besides its grammars. */
export const GRAMMAR_FILES: readonly string[] = [
  "LICENSE",
  "queries/tags.scm",
  "queries/highlights.scm",
];

/** Where the grammars are kept. */
export const GRAMMARS_DIR = fileURLToPath(
  new URL("../../sourcegraph/symbols/grammars/", import.meta.url),
);

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!success) throw new Error(`${command} ${args.join(" ")} failed: ${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}

/** Fetches one package into `scratch` and copies its grammar files into the grammars folder. */
async function refresh(grammar: GrammarPackage, scratch: string): Promise<void> {
  const packed = (await run("npm", [
    "pack",
    `${grammar.name}@${grammar.version}`,
    "--silent",
    "--pack-destination",
    scratch,
  ], scratch)).trim().split("\n").at(-1)!;
  const unpacked = join(scratch, grammar.name);
  await Deno.mkdir(unpacked);
  await run(
    "tar",
    ["-xzf", join(scratch, packed), "-C", unpacked, "--strip-components=1"],
    scratch,
  );
  const target = join(GRAMMARS_DIR, grammar.name);
  await Deno.remove(target, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(target, "queries"), { recursive: true });
  for (const file of [...grammar.wasm, ...GRAMMAR_FILES]) {
    await Deno.copyFile(join(unpacked, file), join(target, file));
  }
  console.log(`${grammar.name}@${grammar.version}: ${grammar.wasm.join(", ")}`);
}

if (import.meta.main) {
  const scratch = await Deno.makeTempDir({ prefix: "grammars-" });
  try {
    for (const grammar of GRAMMAR_PACKAGES) await refresh(grammar, scratch);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}
