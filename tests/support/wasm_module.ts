/**
 * Builds minimal WebAssembly modules for tests: the 8-byte header plus
 * custom sections (by default `sourcegraph.plugin.v1` with a JSON payload).
 *
 * @module
 */

function leb128(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** A module holding one custom section per payload. */
export function wasmWithMetadata(
  payloads: (string | object)[],
  sectionName = "sourcegraph.plugin.v1",
): Uint8Array {
  const bytes: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const name = new TextEncoder().encode(sectionName);
  for (const payload of payloads) {
    const body = new TextEncoder().encode(
      typeof payload === "string" ? payload : JSON.stringify(payload),
    );
    const content = [...leb128(name.length), ...name, ...body];
    bytes.push(0x00, ...leb128(content.length), ...content);
  }
  return new Uint8Array(bytes);
}
