/**
 * Static plugin metadata: the custom sections named `sourcegraph.plugin.v1`
 * embedded in a Wasm module. Only the section framing is walked (LEB128
 * sizes of at most 5 bytes); nothing is compiled or run. Every matching
 * section is decoded in order into one record (later keys win, absent keys
 * keep earlier values, keys match case-insensitively, unknown keys are
 * ignored). A `plugin.json` beside the module has no effect.
 *
 * @module
 */

import { SourcegraphError } from "../../errors.ts";
import { isWasmV1, readLeb128, wasmSections } from "./wasm_sections.ts";

/** Plugin metadata. */
export interface PluginMetadata {
  name?: string;
  title?: string;
  description?: string;
  version?: string;
  abiVersion?: number;
  operations?: string[];
  defaultEnabled?: boolean;
  inputSchema?: unknown;
}

const SECTION = "sourcegraph.plugin.v1";
// The section's key for each field (matched case-insensitively when read).
const SECTION_KEYS: Readonly<Record<keyof PluginMetadata, string>> = {
  name: "name",
  title: "title",
  description: "description",
  version: "version",
  abiVersion: "abi_version",
  operations: "operations",
  defaultEnabled: "default_enabled",
  inputSchema: "input_schema",
};
const FIELDS = Object.keys(SECTION_KEYS) as (keyof PluginMetadata)[];

/** The metadata as the section spells it (how catalogs show it to people and agents). */
export function metadataDocument(metadata: PluginMetadata): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (metadata[field] !== undefined) document[SECTION_KEYS[field]] = metadata[field];
  }
  return document;
}

/** Reads the metadata of a module; throws SourcegraphError (PLUGIN_UNAVAILABLE or PLUGIN_ABI_INCOMPATIBLE). */
export function inspectMetadata(
  bytes: Uint8Array,
  options: { maxMetadataBytes: number },
): PluginMetadata {
  const unavailable = (message: string) => new SourcegraphError("PLUGIN_UNAVAILABLE", message);
  if (!isWasmV1(bytes)) {
    throw unavailable("not a WebAssembly version 1 module (Git LFS pointers are not supported)");
  }
  const metadata: PluginMetadata = {};
  let found = false;
  for (const { id, start, end } of wasmSections(bytes)) {
    if (id !== 0) continue;
    const [nameLength, nameLengthBytes] = readLeb128(bytes, start);
    const nameStart = start + nameLengthBytes;
    if (nameStart + nameLength > end) throw unavailable("malformed custom section");
    const name = new TextDecoder().decode(bytes.subarray(nameStart, nameStart + nameLength));
    if (name !== SECTION) continue;
    const payload = bytes.subarray(nameStart + nameLength, end);
    if (payload.length > options.maxMetadataBytes) throw unavailable("metadata section too large");
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
    } catch {
      throw unavailable("metadata section is not valid JSON");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw unavailable("metadata section is not a JSON object");
    }
    merge(metadata, value as Record<string, unknown>);
    found = true;
  }
  if (!found) throw unavailable(`no ${SECTION} custom section`);
  if (metadata.abiVersion !== 2) {
    throw new SourcegraphError(
      "PLUGIN_ABI_INCOMPATIBLE",
      "rebuild the plugin with abi_version 2 and attachments output",
    );
  }
  return metadata;
}

function merge(into: PluginMetadata, value: Record<string, unknown>): void {
  for (const [key, field] of Object.entries(value)) {
    const known = FIELDS.find((field) => SECTION_KEYS[field] === key.toLowerCase());
    if (known) (into as Record<string, unknown>)[known] = field;
  }
}
