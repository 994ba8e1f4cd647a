/**
 * Fetch credentials sealed for a shared store: AES-256-GCM through
 * WebCrypto with a key read from a file (never from the database, never
 * logged). Each value gets a fresh 96-bit nonce, and the repository it
 * belongs to is bound in as additional data, so a sealed value copied to
 * another repository's row does not open. A wrong key, a changed byte or a
 * moved value all fail the same way, with one stable code.
 *
 * The key file holds 32 random bytes in base64 on one line (for example
 * `openssl rand -base64 32 > key && chmod 600 key`) and must not be
 * readable by group or others.
 *
 * @module
 */

import { CodedError } from "../../shared/coded_error.ts";
import { encodeHex } from "../../shared/text.ts";

const PREFIX = "v1:";
const NONCE_BYTES = 12;

/** A sealed credential that does not open (code `CREDENTIAL_UNREADABLE`). */
export class CredentialUnreadable extends CodedError<"CREDENTIAL_UNREADABLE"> {
  override readonly name = "CredentialUnreadable";
}

/** The key file cannot be used; the message names the file and what to do. */
export class CredentialKeyUnusable extends Error {
  override readonly name = "CredentialKeyUnusable";

  /** `path` and what is wrong with it. */
  constructor(path: string, problem: string) {
    super(
      `the credential key file ${path} ${problem}; create one with ` +
        "`openssl rand -base64 32 > FILE && chmod 600 FILE`",
    );
  }
}

/**
 * Reads the AES-256 key of `path` (base64 of 32 bytes, owner-only).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const path = await Deno.makeTempFile();
 * const bytes = crypto.getRandomValues(new Uint8Array(32));
 * await Deno.writeTextFile(path, btoa(String.fromCharCode(...bytes)) + "\n", { mode: 0o600 });
 * await Deno.chmod(path, 0o600);
 * const key = await loadCredentialKey(path);
 * assert.strictEqual(key.algorithm.name, "AES-GCM");
 * await Deno.chmod(path, 0o644); // readable by others: refused, naming the file
 * await assert.rejects(loadCredentialKey(path), CredentialKeyUnusable);
 * await Deno.remove(path);
 * ```
 */
export async function loadCredentialKey(path: string): Promise<CryptoKey> {
  return (await loadKeyFile(path)).key;
}

/**
 * The key file read once: the AES-256 key, and the secret replicas
 * authenticate their internal calls with, derived from it (HMAC-SHA-256 of
 * a fixed label), so one file serves both and neither value can be
 * computed from the other's use.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const path = await Deno.makeTempFile();
 * const bytes = crypto.getRandomValues(new Uint8Array(32));
 * await Deno.writeTextFile(path, btoa(String.fromCharCode(...bytes)) + "\n");
 * await Deno.chmod(path, 0o600);
 * const { key, clusterSecret } = await loadKeyFile(path);
 * assert.strictEqual(key.algorithm.name, "AES-GCM");
 * assert.match(clusterSecret, /^[0-9a-f]{64}$/);
 * const again = await loadKeyFile(path);
 * assert.strictEqual(again.clusterSecret, clusterSecret); // the same file, the same secret
 * await Deno.remove(path);
 * ```
 */
export async function loadKeyFile(
  path: string,
): Promise<{ key: CryptoKey; clusterSecret: string }> {
  const raw = await readCredentialKeyFile(path);
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  return { key, clusterSecret: await deriveClusterSecret(raw) };
}

async function deriveClusterSecret(raw: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode("sourcegraph internal calls v1"),
  );
  return encodeHex(new Uint8Array(mac));
}

// The key file's 32 bytes, or why it cannot be used.
async function readCredentialKeyFile(path: string): Promise<Uint8Array<ArrayBuffer>> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    throw new CredentialKeyUnusable(path, "cannot be read");
  }
  if (!info.isFile) throw new CredentialKeyUnusable(path, "is not a file");
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new CredentialKeyUnusable(path, "is readable by group or others (chmod 600 it)");
  }
  let raw: Uint8Array<ArrayBuffer>;
  try {
    const text = (await Deno.readTextFile(path)).trim();
    raw = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    throw new CredentialKeyUnusable(path, "does not hold base64");
  }
  if (raw.length !== 32) {
    throw new CredentialKeyUnusable(path, `holds ${raw.length} bytes, not 32`);
  }
  return raw;
}

/**
 * Seals `secret` (a credential's JSON) for repository `repositoryId`.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
 *   "encrypt",
 *   "decrypt",
 * ]);
 * const credential = JSON.stringify({ kind: "https", username: "bot", token: "t0ken" });
 * const sealed = await sealCredential(key, credential, { repositoryId: 7 });
 * assert.ok(sealed.startsWith("v1:") && !sealed.includes("t0ken"));
 * const again = await sealCredential(key, credential, { repositoryId: 7 });
 * assert.notStrictEqual(again, sealed); // a fresh nonce each time
 * assert.strictEqual(await openCredential(key, sealed, { repositoryId: 7 }), credential);
 * ```
 */
export async function sealCredential(
  key: CryptoKey,
  secret: string,
  at: { repositoryId: number },
): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: nonce, additionalData: boundTo(at.repositoryId) },
      key,
      new TextEncoder().encode(secret),
    ),
  );
  const out = new Uint8Array(NONCE_BYTES + sealed.length);
  out.set(nonce);
  out.set(sealed, NONCE_BYTES);
  return PREFIX + btoa(String.fromCharCode(...out));
}

/**
 * Opens a value of {@linkcode sealCredential}; {@linkcode CredentialUnreadable} when
 * the key is another, a byte changed, or the value belongs to another
 * repository.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
 *   "encrypt",
 *   "decrypt",
 * ]);
 * const sealed = await sealCredential(key, '{"kind":"https"}', { repositoryId: 7 });
 * assert.deepStrictEqual(JSON.parse(await openCredential(key, sealed, { repositoryId: 7 })), {
 *   kind: "https",
 * });
 * // Copied to another repository's row, the value does not open.
 * await assert.rejects(openCredential(key, sealed, { repositoryId: 8 }), CredentialUnreadable);
 * ```
 */
export async function openCredential(
  key: CryptoKey,
  sealed: string,
  at: { repositoryId: number },
): Promise<string> {
  try {
    if (!sealed.startsWith(PREFIX)) throw new Error("format");
    const bytes = Uint8Array.from(atob(sealed.slice(PREFIX.length)), (c) => c.charCodeAt(0));
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: bytes.subarray(0, NONCE_BYTES),
        additionalData: boundTo(at.repositoryId),
      },
      key,
      bytes.subarray(NONCE_BYTES),
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new CredentialUnreadable(
      "CREDENTIAL_UNREADABLE",
      "the stored credential cannot be opened with this key; set the credential again",
    );
  }
}

function boundTo(repositoryId: number): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`sourcegraph repository ${repositoryId}`);
}
