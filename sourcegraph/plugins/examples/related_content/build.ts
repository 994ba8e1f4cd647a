/**
 * Builds the related-content example plugin with the AssemblyScript compiler
 * (npm `assemblyscript`), checks its imports, appends its
 * `sourcegraph.plugin.v1` metadata and writes
 * `related-content.sourcegraph.wasm` beside this script. Run it with
 * `deno task build:plugins`.
 *
 * @module
 */

// @ts-types="./asc_types.d.ts"
import asc from "assemblyscript/dist/asc.js";
import binaryen from "binaryen";
import { withMetadata } from "../../wasm/wasm_sections.ts";

const HERE = new URL(".", import.meta.url).pathname;
const ARTIFACT = "related-content.sourcegraph.wasm";

/** The metadata embedded in the module (a plugin.json beside it would have no effect). */
export const METADATA = {
  name: "related-content",
  title: "Related content",
  description: "Attach related repository documents to a read, as links pinned to the commit.",
  version: "1.0.0",
  abi_version: 2,
  operations: ["read", "read_many"],
  default_enabled: true,
  input_schema: {
    type: "object",
    properties: {
      map: {
        type: "string",
        description: "The map file, relative to the plugin folder (default related.json).",
      },
    },
  },
};

/** Compiles the plugin and returns the artifact bytes. */
export async function buildRelatedContent(): Promise<Uint8Array> {
  let binary: Uint8Array | null = null;
  const { error, stderr } = await asc.main([
    "assembly/index.ts",
    "--outFile",
    "plugin.wasm",
    "--runtime",
    "incremental",
    "--optimizeLevel",
    "3",
    "--shrinkLevel",
    "1",
    "--noAssert",
    "--use",
    "abort=",
    // The runtime's initializer becomes an export instead of a start section
    // (hosts refuse start sections); initializeOnFirstCall wires it back in.
    "--exportStart",
    "_initialize",
    "--baseDir",
    HERE,
  ], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith(".wasm") && contents instanceof Uint8Array) binary = contents;
    },
  });
  if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
  if (binary === null) throw new Error("asc wrote no module");
  const wired = initializeOnFirstCall(binary);
  const module = new WebAssembly.Module(wired as Uint8Array<ArrayBuffer>);
  for (const entry of WebAssembly.Module.imports(module)) {
    if (entry.module !== "sourcegraph") {
      throw new Error(`unexpected import ${entry.module}.${entry.name}`);
    }
  }
  return withMetadata(wired, [METADATA]);
}

/**
 * Replaces the exported `_initialize` with a guard at the top of each ABI
 * export: the first call into the module runs the initializer once.
 */
function initializeOnFirstCall(binary: Uint8Array): Uint8Array {
  const module = binaryen.readBinary(binary);
  module.setFeatures(binaryen.Features.All);
  try {
    const init = binaryen.getExportInfo(module.getExport("_initialize")).value;
    module.removeExport("_initialize");
    module.addGlobal("initialized", binaryen.i32, true, module.i32.const(0));
    for (const name of ["alloc", "dealloc", "enrich"]) {
      const target = binaryen.getExportInfo(module.getExport(name)).value;
      const info = binaryen.getFunctionInfo(module.getFunction(target));
      const params = binaryen.expandType(info.params);
      module.removeExport(name);
      module.addFunction(
        `${name}_entry`,
        info.params,
        info.results,
        [],
        module.block(null, [
          module.if(
            module.i32.eqz(module.global.get("initialized", binaryen.i32)),
            module.block(null, [
              module.global.set("initialized", module.i32.const(1)),
              module.call(init, [], binaryen.none),
            ]),
          ),
          module.call(target, params.map((type, i) => module.local.get(i, type)), info.results),
        ], info.results),
      );
      module.addFunctionExport(`${name}_entry`, name);
    }
    if (!module.validate()) throw new Error("the rewritten module does not validate");
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

if (import.meta.main) {
  const bytes = await buildRelatedContent();
  await Deno.writeFile(`${HERE}${ARTIFACT}`, bytes);
  console.log(`${ARTIFACT}: ${bytes.length} bytes`);
}
