/**
 * The headers of a raw file: text (UTF-8 without NUL) as `text/plain`,
 * anything else as a download under the file's own name, and a policy
 * under which nothing the file holds runs, loads or frames this site's
 * pages, never sniffed into another type.
 *
 * @module
 */

/** Nothing a raw file holds may run, load or be framed as a page of this site. */
export const RAW_CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'";

/** The headers a raw answer of `bytes`, the file at `path`, carries. */
export function rawHeaders(path: string, bytes: Uint8Array): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Security-Policy": RAW_CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
  };
  if (isText(bytes)) return { ...headers, "Content-Type": "text/plain; charset=utf-8" };
  return {
    ...headers,
    "Content-Type": "application/octet-stream",
    "Content-Disposition": attachment(path.slice(path.lastIndexOf("/") + 1)),
  };
}

function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// `attachment` with the file's name: a plain ASCII one, and the exact one (RFC 6266, RFC 8187).
function attachment(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${plain}"; filename*=UTF-8''${extValue(name)}`;
}

// RFC 8187's value-chars: attr-char stays, every other byte is percent-encoded.
// `encodeURIComponent` leaves `!'()*~` alone, but `'()*` are not attr-chars
// (`'` would end the charset part for a strict parser).
function extValue(name: string): string {
  return encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
