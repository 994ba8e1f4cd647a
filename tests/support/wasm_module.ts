/**
 * Builds minimal WebAssembly modules for tests: the 8-byte header plus
 * custom sections (by default `sourcegraph.plugin.v1` with a JSON payload).
 *
 * @module
 */

import { concatBytes } from "../../shared/byte_queue.ts";
import { customSection } from "../../sourcegraph/plugins/wasm/wasm_sections.ts";

/** A module holding one custom section per payload. */
export function wasmWithMetadata(
  payloads: (string | object)[],
  sectionName = "sourcegraph.plugin.v1",
): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00])];
  for (const payload of payloads) {
    const body = typeof payload === "string" ? payload : JSON.stringify(payload);
    parts.push(customSection(sectionName, new TextEncoder().encode(body)));
  }
  return concatBytes(parts);
}
