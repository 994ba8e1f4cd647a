/**
 * The server side of Git's smart HTTP protocol for fetches, over one bare
 * repository: the ref advertisement (`GET …/info/refs?service=git-upload-pack`)
 * and the negotiation and pack (`POST …/git-upload-pack`), each one
 * `git upload-pack --stateless-rpc` with the hardened environment. The
 * caller authenticates and bounds the request; the answer streams Git's
 * output, and a reader that goes away ends Git.
 *
 * @example
 * ```ts ignore
 * Deno.serve(async (request) =>
 *   request.method === "GET"
 *     ? await uploadPackAdvertisement("/srv/repo.git")
 *     : await uploadPackResult("/srv/repo.git", { body: new Uint8Array(await request.arrayBuffer()) })
 * );
 * ```
 *
 * @module
 */

import { concatBytes } from "./byte_queue.ts";
import { gitLeadingArgs, killQuietly, spawnGit } from "./git.ts";

const UPLOAD_PACK_TIMEOUT_MS = 10 * 60 * 1000;

/** The ref advertisement of `repository` (a bare repository's folder). */
export async function uploadPackAdvertisement(repository: string): Promise<Response> {
  const advertisement = await uploadPack(repository, { advertise: true });
  const prefix = new TextEncoder().encode("001e# service=git-upload-pack\n0000");
  return new Response(prepend(prefix, advertisement), {
    headers: {
      "Content-Type": "application/x-git-upload-pack-advertisement",
      "Cache-Control": "no-cache",
    },
  });
}

/** The answer to a fetch's negotiation `body` (gzip-encoded when `gzip`). */
export async function uploadPackResult(
  repository: string,
  request: { body: Uint8Array; gzip?: boolean; maxBytes?: number },
): Promise<Response> {
  const input = request.gzip
    ? await gunzip(request.body, request.maxBytes ?? 64 * 1024 * 1024)
    : request.body;
  return new Response(await uploadPack(repository, { advertise: false, input }), {
    headers: {
      "Content-Type": "application/x-git-upload-pack-result",
      "Cache-Control": "no-cache",
    },
  });
}

// `git upload-pack --stateless-rpc` over the mirror; its stdout as the answer.
async function uploadPack(
  mirror: string,
  options: { advertise: boolean; input?: Uint8Array },
): Promise<ReadableStream<Uint8Array>> {
  const child = spawnGit([
    ...await gitLeadingArgs(),
    "upload-pack",
    "--stateless-rpc",
    "--strict",
    ...(options.advertise ? ["--advertise-refs"] : []),
    mirror,
  ], { cwd: mirror, stdin: options.input ? "piped" : "null" });
  const timer = setTimeout(() => killQuietly(child), UPLOAD_PACK_TIMEOUT_MS);
  void child.status.finally(() => clearTimeout(timer));
  void child.stderr.pipeTo(new WritableStream()).catch(() => {});
  if (options.input) {
    const writer = child.stdin.getWriter();
    void writer.write(options.input).then(() => writer.close()).catch(() => killQuietly(child));
  }
  // A reader that goes away ends Git.
  return child.stdout.pipeThrough(cancelKills(() => killQuietly(child)));
}

function cancelKills(kill: () => void): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform: (chunk, controller) => controller.enqueue(chunk),
    cancel: () => kill(),
  } as Transformer<Uint8Array, Uint8Array>);
}

function prepend(
  prefix: Uint8Array,
  rest: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let sent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(prefix);
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

async function gunzip(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new Error("negotiation too large");
    chunks.push(chunk);
  }
  return concatBytes(chunks);
}
