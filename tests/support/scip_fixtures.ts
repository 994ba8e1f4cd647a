/**
 * SCIP indexes for tests, encoded with the service's own descriptors of
 * `scip.proto` (the bytes an indexer writes for the same messages), and
 * hostile bodies: a protobuf cut short and one nested deeper than any
 * decoder should follow.
 *
 * @module
 */

import { create, toBinary } from "@bufbuild/protobuf";
import { scipMessage } from "../../sourcegraph/search/scip/scip_proto.ts";

/** One occurrence: `[line, start, end]` or `[line, start, endLine, end]`, 0-based. */
export interface FixtureOccurrence {
  range: number[];
  symbol: string;
  roles?: number;
}

/** One document of a fixture index. */
export interface FixtureDocument {
  path: string;
  occurrences: FixtureOccurrence[];
  symbols?: { symbol: string; kind?: number; signature?: string; documentation?: string[] }[];
}

/** The bytes of a SCIP `Index` of `documents`, made by `tool`. */
export function encodeScip(
  documents: readonly FixtureDocument[],
  tool: { name: string; version: string } = { name: "test-indexer", version: "1.2.3" },
): Uint8Array<ArrayBuffer> {
  const index = create(scipMessage("Index"), {
    metadata: { toolInfo: { name: tool.name, version: tool.version }, projectRoot: "file:///src" },
    documents: documents.map((document) => ({
      relativePath: document.path,
      language: "TypeScript",
      occurrences: document.occurrences.map((occurrence) => ({
        range: occurrence.range,
        symbol: occurrence.symbol,
        symbolRoles: occurrence.roles ?? 0,
      })),
      symbols: (document.symbols ?? []).map((info) => ({
        symbol: info.symbol,
        kind: info.kind ?? 0,
        documentation: info.documentation ?? [],
        ...(info.signature
          ? { signatureDocumentation: { language: "TypeScript", text: info.signature } }
          : {}),
      })),
    })),
  } as never);
  return toBinary(scipMessage("Index"), index);
}

/**
 * A body of `depth` StartGroup tags of an unknown field of `Index`, one
 * inside another and never closed: a decoder that followed them without a
 * limit would exhaust its stack.
 */
export function deeplyNested(depth: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(depth).fill((9 << 3) | 3);
}
