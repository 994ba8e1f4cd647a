/**
 * Base64 of bytes (search line payloads in the HTTP API).
 *
 * @module
 */

/** Encodes bytes as standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
