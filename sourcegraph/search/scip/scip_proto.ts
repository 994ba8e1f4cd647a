/**
 * The SCIP wire format (`scip.proto` of the SCIP Code Intelligence Protocol,
 * package `scip`), as message descriptors for `@bufbuild/protobuf`: only the
 * messages and fields navigation reads (Index, Metadata, ToolInfo,
 * Document, Occurrence, SymbolInformation, Relationship). Every other field
 * is skipped unread, and so is everything inside a symbol's signature
 * except its language and text: `signature_documentation` is a `Document`
 * in `scip.proto`, which makes the format recursive; read as a flat message
 * of two strings here, no nesting of any depth reaches the decoder. Enums
 * are read as their numbers (`int32` has the same wire form).
 *
 * @module
 */

import { create, createFileRegistry, type DescMessage, fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import {
  type FieldDescriptorProto,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  type FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";

/** `scip.ToolInfo`. */
export interface ScipToolInfo {
  name: string;
  version: string;
  arguments: string[];
}

/** `scip.Metadata` (the protocol version and text encoding as numbers). */
export interface ScipMetadata {
  version: number;
  toolInfo?: ScipToolInfo;
  projectRoot: string;
  textDocumentEncoding: number;
}

/** `scip.Occurrence`: 0-based `[startLine, startChar, (endLine,) endChar]`, roles as a bit set. */
export interface ScipOccurrence {
  range: number[];
  symbol: string;
  symbolRoles: number;
  enclosingRange: number[];
}

/** `scip.Relationship`. */
export interface ScipRelationship {
  symbol: string;
  isReference: boolean;
  isImplementation: boolean;
  isTypeDefinition: boolean;
  isDefinition: boolean;
}

/** `scip.SymbolInformation` (its signature's language and text only). */
export interface ScipSymbolInformation {
  symbol: string;
  documentation: string[];
  relationships: ScipRelationship[];
  kind: number;
  displayName: string;
  signatureDocumentation?: { language: string; text: string };
  enclosingSymbol: string;
}

/** `scip.Document` (without its text). */
export interface ScipDocument {
  language: string;
  relativePath: string;
  occurrences: ScipOccurrence[];
  symbols: ScipSymbolInformation[];
}

/** `scip.Index`. */
export interface ScipIndex {
  metadata?: ScipMetadata;
  documents: ScipDocument[];
  externalSymbols: ScipSymbolInformation[];
}

type FieldInit = MessageInitShape<typeof FieldDescriptorProtoSchema>;

function field(
  name: string,
  number: number,
  type: Type,
  options: { repeated?: boolean; message?: string } = {},
): FieldInit {
  return {
    name,
    number,
    type,
    label: options.repeated ? Label.REPEATED : Label.OPTIONAL,
    ...(options.message === undefined ? {} : { typeName: `.scip.${options.message}` }),
  } satisfies Partial<FieldDescriptorProto>;
}

const message = (name: string) => ({ message: name });
const repeated = (name?: string) => ({ repeated: true, ...(name ? { message: name } : {}) });

// The field numbers and types are those of scip.proto.
const SCIP_FILE = create(FileDescriptorProtoSchema, {
  name: "scip.proto",
  package: "scip",
  syntax: "proto3",
  messageType: [
    {
      name: "Index",
      field: [
        field("metadata", 1, Type.MESSAGE, message("Metadata")),
        field("documents", 2, Type.MESSAGE, repeated("Document")),
        field("external_symbols", 3, Type.MESSAGE, repeated("SymbolInformation")),
      ],
    },
    {
      name: "Metadata",
      field: [
        field("version", 1, Type.INT32),
        field("tool_info", 2, Type.MESSAGE, message("ToolInfo")),
        field("project_root", 3, Type.STRING),
        field("text_document_encoding", 4, Type.INT32),
      ],
    },
    {
      name: "ToolInfo",
      field: [
        field("name", 1, Type.STRING),
        field("version", 2, Type.STRING),
        field("arguments", 3, Type.STRING, repeated()),
      ],
    },
    {
      name: "Document",
      field: [
        field("language", 4, Type.STRING),
        field("relative_path", 1, Type.STRING),
        field("occurrences", 2, Type.MESSAGE, repeated("Occurrence")),
        field("symbols", 3, Type.MESSAGE, repeated("SymbolInformation")),
      ],
    },
    {
      // A `Document` as a symbol's signature: its language and text only.
      name: "Signature",
      field: [field("language", 4, Type.STRING), field("text", 5, Type.STRING)],
    },
    {
      name: "SymbolInformation",
      field: [
        field("symbol", 1, Type.STRING),
        field("documentation", 3, Type.STRING, repeated()),
        field("relationships", 4, Type.MESSAGE, repeated("Relationship")),
        field("kind", 5, Type.INT32),
        field("display_name", 6, Type.STRING),
        field("signature_documentation", 7, Type.MESSAGE, message("Signature")),
        field("enclosing_symbol", 8, Type.STRING),
      ],
    },
    {
      name: "Relationship",
      field: [
        field("symbol", 1, Type.STRING),
        field("is_reference", 2, Type.BOOL),
        field("is_implementation", 3, Type.BOOL),
        field("is_type_definition", 4, Type.BOOL),
        field("is_definition", 5, Type.BOOL),
      ],
    },
    {
      name: "Occurrence",
      field: [
        field("range", 1, Type.INT32, repeated()),
        field("symbol", 2, Type.STRING),
        field("symbol_roles", 3, Type.INT32),
        field("enclosing_range", 7, Type.INT32, repeated()),
      ],
    },
  ],
});

const REGISTRY = createFileRegistry(SCIP_FILE, () => undefined);

/** The descriptor of a `scip.<name>` message (tests encode fixtures with it). */
export function scipMessage(name: string): DescMessage {
  const found = REGISTRY.getMessage(`scip.${name}`);
  if (found === undefined) throw new Error(`no SCIP message ${name}`);
  return found;
}

/** Most nested messages the decoder follows (the subset above nests 4 deep). */
const RECURSION_LIMIT = 16;

/**
 * Decodes a SCIP `Index` (throws on malformed, truncated or over-nested
 * input: the caller refuses it). Unknown fields are skipped, not kept.
 */
export function decodeScipIndex(bytes: Uint8Array): ScipIndex {
  const decoded = fromBinary(scipMessage("Index"), bytes, {
    readUnknownFields: false,
    recursionLimit: RECURSION_LIMIT,
  });
  return decoded as unknown as ScipIndex;
}

/**
 * How many documents and occurrences an `Index` holds, read from the wire
 * without decoding them (throws on malformed input), so an index too large
 * to decode is refused before it takes the memory.
 */
export function countScipIndex(bytes: Uint8Array): { documents: number; occurrences: number } {
  const counts = { documents: 0, occurrences: 0 };
  const index = new BinaryReader(bytes);
  while (index.pos < index.len) {
    const [field, wireType] = index.tag();
    if (field !== 2 || wireType !== WireType.LengthDelimited) {
      index.skip(wireType, field, RECURSION_LIMIT);
      continue;
    }
    counts.documents++;
    const document = new BinaryReader(index.bytes());
    while (document.pos < document.len) {
      const [inner, innerType] = document.tag();
      if (inner === 2 && innerType === WireType.LengthDelimited) counts.occurrences++;
      document.skip(innerType, inner, RECURSION_LIMIT);
    }
  }
  return counts;
}
