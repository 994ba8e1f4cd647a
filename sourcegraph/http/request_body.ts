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
  const chunks: Uint8Array[] = [];
  await streamBody(request, limits, (chunk) => chunks.push(chunk));
  if (chunks.length === 0) return new Uint8Array(0);
  return chunks.length === 1 ? chunks[0] : concatBytes(chunks);
}

/**
 * Hands the body's chunks to `write` as they arrive (none is kept here),
 * within the same limits as `readBody`; a `write` that throws refuses the
 * body with its error.
 */
export async function streamBody(
  request: Request,
  limits: BodyLimits,
  write: (chunk: Uint8Array) => void,
): Promise<void> {
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d{1,16}$/.test(declared) || Number(declared) > limits.maxBytes)) {
    limits.onRefused?.();
    throw tooLarge(limits.maxBytes);
  }
  if (request.body === null) return;
  const reader = request.body.getReader();
  let total = 0;
  const deadline = performance.now() + limits.timeoutMs;
  let written: { error: unknown } | null = null;
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
      try {
        write(next.value);
      } catch (error) {
        written = { error };
        throw error;
      }
    }
  } catch (error) {
    limits.onRefused?.();
    reader.cancel().catch(() => {});
    if (error instanceof SourcegraphError || written !== null) throw error;
    throw new SourcegraphError("INVALID_REQUEST", "the request body could not be read");
  }
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
