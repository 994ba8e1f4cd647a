/**
 * Lists of 32-bit numbers stored as little-endian bytes (the columns that
 * name paths, blobs and chunks by number).
 *
 * @module
 */

// Whether this machine stores numbers little-endian, as the columns do.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The stored bytes of `numbers`. */
export function packNumbers(numbers: ArrayLike<number>): Uint8Array {
  // A typed array's copy on a little-endian machine: a build packs two lists per blob, and a
  // `DataView` written number by number was about 2% of the builder's thread (the deno tree).
  if (LITTLE_ENDIAN) return new Uint8Array(new Uint32Array(numbers).buffer);
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
