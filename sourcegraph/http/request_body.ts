/**
 * Reads a request body with a byte cap and a deadline, for every route. A
 * declared `Content-Length` over the cap is refused before anything is read;
 * a body that grows past the cap while streaming is refused at that point
 * (nothing past the cap is buffered); a body that does not arrive in time is
 * refused. A refused body closes its connection (the rest of it is never read).
 *
 * @module
 */

import { concatBytes } from "../../shared/byte_queue.ts";
import { beforeDeadline } from "../../shared/deadline.ts";
import { SourcegraphError } from "../errors.ts";

/** Limits of one body read. */
export interface BodyLimits {
  /** Largest body accepted. */
  maxBytes: number;
  /** The whole body must arrive within this time. */
  timeoutMs: number;
  /** Called when the body is refused before it was read to its end: the connection should close. */
  onRefused?: () => void;
  /** Called with the bytes received so far as they arrive; throwing refuses the body. */
  onProgress?: (bytes: number) => void;
}

/** The body's bytes, or REQUEST_TOO_LARGE (413) / REQUEST_TIMEOUT (408). */
export async function readBody(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d{1,16}$/.test(declared) || Number(declared) > limits.maxBytes)) {
    limits.onRefused?.();
    throw tooLarge(limits.maxBytes);
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const deadline = performance.now() + limits.timeoutMs;
  try {
    for (;;) {
      const next = await beforeDeadline(reader.read(), deadline);
      if (next === null) {
        throw new SourcegraphError(
          "REQUEST_TIMEOUT",
          "the request body did not arrive in time",
        );
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > limits.maxBytes) throw tooLarge(limits.maxBytes);
      limits.onProgress?.(total);
      chunks.push(next.value);
    }
  } catch (error) {
    limits.onRefused?.();
    reader.cancel().catch(() => {});
    if (error instanceof SourcegraphError) throw error;
    throw new SourcegraphError("INVALID_REQUEST", "the request body could not be read");
  }
  return chunks.length === 1 ? chunks[0] : concatBytes(chunks);
}

/** The body as strict UTF-8 text (INVALID_REQUEST otherwise). */
export async function readBodyText(request: Request, limits: BodyLimits): Promise<string> {
  const bytes = await readBody(request, limits);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SourcegraphError("INVALID_REQUEST", "the request body is not UTF-8");
  }
}

function tooLarge(maxBytes: number): SourcegraphError {
  return new SourcegraphError(
    "REQUEST_TOO_LARGE",
    `the request body is larger than ${maxBytes} bytes`,
  );
}
