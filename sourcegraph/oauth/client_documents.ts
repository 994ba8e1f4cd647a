/**
 * Client ID metadata documents: a client whose `client_id` is an https URL
 * is described by the JSON document at that URL, fetched when it first asks
 * and kept for a while. The fetch is a request the service makes on a
 * stranger's behalf, so it is guarded: https only, to a host whose every
 * address is public (no loopback, private, link-local or reserved address
 * unless `allowPrivate`, a development setting), no redirects, at most
 * `maxBytes` read within `timeoutMs`. The document must name the same
 * `client_id` and redirect URIs a registration could name.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import { RecentMap } from "../../shared/recent_map.ts";
import type { OAuthClientRecord } from "../store/oauth_records.ts";
import { checkRegistration } from "./oauth_clients.ts";

/** Largest document read. */
export const MAX_DOCUMENT_BYTES = 5_120;
/** How long a fetch may take. */
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** How long a fetched document is used before it is fetched again. */
export const DOCUMENT_CACHE_MS = 5 * 60_000;
/** Most documents kept (the least recently used go first). */
export const MAX_CACHED_DOCUMENTS = 1_000;

/** What fetching documents needs. */
export interface DocumentFetching {
  /** Fetches a URL (the platform's `fetch`, or one that trusts a test's certificate). */
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** The addresses a host name resolves to. */
  resolve: (host: string) => Promise<string[]>;
  /** Whether loopback and private addresses may be fetched (development only). */
  allowPrivate: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}

/** Whether `clientId` names a metadata document (an https URL with a path). */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://");
}

/** The clients described by metadata documents, fetched under the guards above. */
export class ClientDocuments {
  #options: DocumentFetching;
  #cache = new RecentMap<string, { client: OAuthClientRecord; until: number }>(
    MAX_CACHED_DOCUMENTS,
  );
  #now: () => number;

  /** Fetching with `options`. */
  constructor(options: DocumentFetching) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The client the document at `clientId` describes; INVALID_CLIENT with the reason otherwise. */
  async client(clientId: string): Promise<OAuthClientRecord> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > this.#now()) return cached.client;
    const url = documentUrl(clientId);
    await this.#checkHost(url.hostname);
    const document = await this.#fetchDocument(url);
    const client = clientOf(clientId, document, this.#now());
    this.#cache.set(clientId, {
      client,
      until: this.#now() + (this.#options.cacheMs ?? DOCUMENT_CACHE_MS),
    });
    return client;
  }

  async #checkHost(host: string): Promise<void> {
    if (this.#options.allowPrivate) return;
    const bare = host.replace(/^\[|\]$/g, "");
    let addresses: string[];
    if (isIpLiteral(bare)) {
      addresses = [bare];
    } else {
      try {
        addresses = await this.#options.resolve(bare);
      } catch {
        throw refused("its host name does not resolve");
      }
    }
    if (addresses.length === 0 || addresses.some((address) => !isPublicAddress(address))) {
      throw refused("its host is not a public address");
    }
  }

  async #fetchDocument(url: URL): Promise<unknown> {
    const maxBytes = this.#options.maxBytes ?? MAX_DOCUMENT_BYTES;
    const signal = AbortSignal.timeout(this.#options.timeoutMs ?? DOCUMENT_TIMEOUT_MS);
    let response: Response;
    try {
      response = await this.#options.fetch(url.href, {
        redirect: "manual",
        signal,
        headers: { accept: "application/json" },
      });
    } catch {
      throw refused("it could not be fetched");
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw refused(`it answered ${response.status}, not 200`);
    }
    const bytes = await readCapped(response, { maxBytes, signal });
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw refused("it is not JSON");
    }
  }
}

function refused(why: string): SourcegraphError {
  return new SourcegraphError(
    "INVALID_CLIENT",
    `the client's metadata document is refused: ${why}`,
  );
}

// The document's URL: https, a path other than "/", no credentials, fragment or dot segment.
function documentUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refused("the client_id is not a URL");
  }
  const segments = clientId.replace(/^https:\/\/[^/]*/, "").split(/[/?]/);
  if (
    url.protocol !== "https:" || url.pathname === "/" || url.username !== "" ||
    url.password !== "" || clientId.includes("#") || url.href !== clientId ||
    segments.some((segment) => segment === "." || segment === "..")
  ) {
    throw refused("the client_id must be a plain https URL with a path");
  }
  return url;
}

async function readCapped(
  response: Response,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > options.maxBytes) throw refused(`it is larger than ${options.maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof SourcegraphError) throw error;
    throw refused("it could not be read in time");
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// The client a document describes (its fields as a registration's).
function clientOf(clientId: string, document: unknown, now: number): OAuthClientRecord {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw refused("it is not a JSON object");
  }
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw refused("its client_id is not its own URL");
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    throw refused("only public clients (token_endpoint_auth_method none) are served");
  }
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.some((uri) => typeof uri !== "string")) {
    throw refused("redirect_uris must be a list of strings");
  }
  const name = typeof fields.client_name === "string" ? fields.client_name : "";
  try {
    const checked = checkRegistration({ clientName: name, redirectUris: uris as string[] });
    return { clientId, ...checked, createdAt: now };
  } catch (error) {
    if (error instanceof SourcegraphError) throw refused(error.message);
    throw error;
  }
}

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

/** Whether `address` (IPv4 or IPv6 text) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4) return publicV4(v4.slice(1).map(Number));
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (mapped) return isPublicAddress(mapped[1]);
  if (lower === "::" || lower === "::1") return false;
  const first = parseInt(lower.split(":")[0] || "0", 16);
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast, 2001:db8::/32 documentation,
  // 64:ff9b::/96 and ::/96 forms that embed IPv4 addresses.
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00) {
    return false;
  }
  if (lower.startsWith("2001:db8:") || lower.startsWith("64:ff9b:") || lower.startsWith("::")) {
    return false;
  }
  return true;
}

function publicV4([a, b]: number[]): boolean {
  return !(
    a === 0 || a === 10 || a === 127 || a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19))
  );
}

/** The IPv4 and IPv6 addresses `host` resolves to (none when it does not). */
export async function resolveAddresses(host: string): Promise<string[]> {
  const answers = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return answers.flatMap((answer) => answer.status === "fulfilled" ? answer.value : []);
}
