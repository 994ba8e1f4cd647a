/**
 * The private pipe protocol between the plugin host and its sandbox child
 * process. A frame is one kind byte, a little-endian u32 payload length and
 * the payload. The host sends LOAD and RUN; while running, the child asks for
 * host reads (READ_FILE, READ_FILES) and blocks until the host answers with
 * DATA or DENIED; a run ends with DONE (the raw output) or FAILED (a code).
 * This module has no imports: the sandbox child loads it with no permissions.
 *
 * @module
 */

/** Frame kinds. */
export const Frame = {
  /** host -> child: the module bytes. */
  LOAD: 1,
  /** host -> child: u32 output limit, then the input JSON. */
  RUN: 2,
  /** host -> child: the bytes of a host read. */
  DATA: 3,
  /** host -> child: a refused host read (UTF-8 "CODE: message"). */
  DENIED: 4,
  /** child -> host: the module is instantiated. */
  READY: 0x81,
  /** child -> host: read_file(path). */
  READ_FILE: 0x82,
  /** child -> host: read_files(JSON paths). */
  READ_FILES: 0x83,
  /** child -> host: the run finished; payload is the output bytes. */
  DONE: 0x84,
  /** child -> host: UTF-8 "CODE" or "CODE: message"; the instance is not reused. */
  FAILED: 0x8f,
} as const;

/** Bytes before a payload. */
export const HEADER_BYTES = 5;

/** Encodes one frame. */
export function encodeFrame(kind: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER_BYTES + payload.length);
  frame[0] = kind;
  new DataView(frame.buffer).setUint32(1, payload.length, true);
  frame.set(payload, HEADER_BYTES);
  return frame;
}

/** Decodes a frame header into its kind and payload length. */
export function decodeHeader(header: Uint8Array): { kind: number; length: number } {
  return {
    kind: header[0],
    length: new DataView(header.buffer, header.byteOffset, HEADER_BYTES).getUint32(1, true),
  };
}
