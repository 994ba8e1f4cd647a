/**
 * A large valid SCIP index for memory tests: `files` documents named
 * `src/f<i>.ts`, each with `perFile` occurrences of 500 symbols of its own
 * (every tenth a definition, every seventh a local) and those symbols'
 * facts. Each document is encoded on its own and framed as field 2 of
 * `Index`, so making the index never holds its messages at once.
 *
 * @module
 */

import { create, toBinary } from "@bufbuild/protobuf";
import { scipMessage } from "../../sourcegraph/search/scip/scip_proto.ts";
import { concatBytes } from "../../shared/byte_queue.ts";

/** The bytes of the index, and the paths its documents name. */
export function largeScip(
  options: { files: number; perFile: number },
): { bytes: Uint8Array<ArrayBuffer>; paths: string[] } {
  const paths = Array.from({ length: options.files }, (_, i) => `src/f${i}.ts`);
  const metadata = toBinary(
    scipMessage("Metadata"),
    create(scipMessage("Metadata"), {
      toolInfo: { name: "large-indexer", version: "1" },
      projectRoot: "file:///src",
    } as never),
  );
  const parts: Uint8Array[] = [framed(1, metadata)];
  for (const [i, path] of paths.entries()) {
    const name = (k: number) => `npm large 1.0.0 src/\`f${i}.ts\`/name${k}().`;
    const document = create(scipMessage("Document"), {
      relativePath: path,
      language: "TypeScript",
      occurrences: Array.from({ length: options.perFile }, (_, n) => ({
        range: [n, 4, 4 + (n % 30)],
        symbol: n % 7 === 0 ? `local ${n % 50}` : name(n % 500),
        symbolRoles: n % 10 === 0 ? 1 : 8,
      })),
      symbols: Array.from({ length: 500 }, (_, k) => ({
        symbol: name(k),
        kind: 17,
        displayName: `name${k}`,
        signatureDocumentation: { language: "TypeScript", text: `function name${k}(): void` },
      })),
    } as never);
    parts.push(framed(2, toBinary(scipMessage("Document"), document)));
  }
  return { bytes: concatBytes(parts) as Uint8Array<ArrayBuffer>, paths };
}

// `bytes` as a length-delimited field `field` of a message.
function framed(field: number, bytes: Uint8Array): Uint8Array {
  const head: number[] = [(field << 3) | 2];
  for (let length = bytes.length;; length = Math.floor(length / 128)) {
    if (length < 128) {
      head.push(length);
      break;
    }
    head.push((length % 128) | 128);
  }
  return concatBytes([new Uint8Array(head), bytes]);
}
