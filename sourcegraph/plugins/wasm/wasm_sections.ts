/**
 * The section framing of a WebAssembly version 1 binary: the 8-byte header
 * and `id, size, payload` triples with LEB128 sizes of at most 5 bytes.
 * Used to read metadata and to refuse start functions without compiling.
 *
 * @module
 */

import { concatBytes } from "../../../shared/byte_queue.ts";
import { SourcegraphError } from "../../errors.ts";

/** One section: its id and payload bounds. */
export interface WasmSection {
  id: number;
  start: number;
  end: number;
}

/** The section id of a start function. */
export const START_SECTION = 8;

/** Whether `bytes` begins with the Wasm version 1 header. */
export function isWasmV1(bytes: Uint8Array): boolean {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  return bytes.length >= 8 && header.every((byte, i) => bytes[i] === byte);
}

/** The sections of a module, in order; throws PLUGIN_UNAVAILABLE when the framing is broken. */
export function wasmSections(bytes: Uint8Array): WasmSection[] {
  const sections: WasmSection[] = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at++];
    const [size, sizeLength] = readLeb128(bytes, at);
    at += sizeLength;
    const end = at + size;
    if (end > bytes.length) {
      throw new SourcegraphError("PLUGIN_UNAVAILABLE", "truncated section");
    }
    sections.push({ id, start: at, end });
    at = end;
  }
  return sections;
}

/** An unsigned LEB128 value at `at` and its length in bytes. */
export function readLeb128(bytes: Uint8Array, at: number): [number, number] {
  let result = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= bytes.length) {
      throw new SourcegraphError("PLUGIN_UNAVAILABLE", "truncated module");
    }
    const byte = bytes[at + i];
    result += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return [result, i + 1];
  }
  throw new SourcegraphError("PLUGIN_UNAVAILABLE", "malformed section size");
}

/** `value` as unsigned LEB128 bytes. */
export function encodeLeb128(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** A custom section (id 0) named `name` holding `payload`, ready to append to a module. */
export function customSection(name: string, payload: Uint8Array): Uint8Array {
  const encodedName = new TextEncoder().encode(name);
  const content = [...encodeLeb128(encodedName.length), ...encodedName, ...payload];
  return new Uint8Array([0, ...encodeLeb128(content.length), ...content]);
}

/** `module` with one `sourcegraph.plugin.v1` section per metadata object appended. */
export function withMetadata(module: Uint8Array, metadata: object[]): Uint8Array {
  const sections = metadata.map((entry) =>
    customSection("sourcegraph.plugin.v1", new TextEncoder().encode(JSON.stringify(entry)))
  );
  return concatBytes([module, ...sections]);
}
