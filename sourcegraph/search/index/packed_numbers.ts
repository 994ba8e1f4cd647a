/**
 * Lists of 32-bit numbers stored as little-endian bytes (the columns that
 * name paths, blobs and chunks by number).
 *
 * @module
 */

/** The stored bytes of `numbers`. */
export function packNumbers(numbers: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(numbers.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < numbers.length; i++) view.setUint32(i * 4, numbers[i], true);
  return bytes;
}

/** The numbers of stored `bytes`. */
export function unpackNumbers(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const numbers = new Uint32Array(bytes.byteLength >>> 2);
  for (let i = 0; i < numbers.length; i++) numbers[i] = view.getUint32(i * 4, true);
  return numbers;
}
