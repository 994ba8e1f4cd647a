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

import * as fs from "node:fs";
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
 * What a walk of an `Index` file is handed, one message at a time: a
 * document as its path (`begin`), then its symbols' facts and its
 * occurrences, field by field (an occurrence is never a message object).
 */
export interface ScipVisitor {
  metadata(metadata: ScipMetadata): void;
  external(info: ScipSymbolInformation): void;
  begin(path: string): void;
  describe(info: ScipSymbolInformation): void;
  occurrence(range: number[], symbol: string, roles: number): void;
}

// The fields of `Index` and the messages they hold.
const INDEX_FIELDS: Record<number, "Metadata" | "Document" | "SymbolInformation"> = {
  1: "Metadata",
  2: "Document",
  3: "SymbolInformation",
};

/**
 * Walks the SCIP `Index` in file `fd` one top-level message at a time
 * (positional reads into one reused buffer: only the message being decoded
 * is in memory, never the file), handing each to `visitor`. Throws on
 * malformed or truncated input (the caller refuses it); unknown scalar
 * fields are skipped, groups are malformed (scip.proto has none).
 */
export function walkScipFile(fd: number, visitor: ScipVisitor): void {
  const reader = new FileMessages(fd);
  for (let next = reader.next(); next !== null; next = reader.next()) {
    visit(visitor, next.name, next.bytes);
  }
}

/**
 * How many documents and occurrences the `Index` in file `fd` holds, read
 * from the wire without decoding them (throws on malformed input), so an
 * index too large to derive is refused before it takes the memory, and the
 * deriver's table is made at its size.
 */
export function countScipFile(fd: number): { documents: number; occurrences: number } {
  const counts = { documents: 0, occurrences: 0 };
  const reader = new FileMessages(fd);
  for (let next = reader.next(); next !== null; next = reader.next()) {
    if (next.name !== "Document") continue;
    counts.documents++;
    const document = new BinaryReader(next.bytes);
    while (document.pos < document.len) {
      const [inner, innerType] = document.tag();
      if (inner === 2 && innerType === WireType.LengthDelimited) counts.occurrences++;
      document.skip(innerType, inner, RECURSION_LIMIT);
    }
  }
  return counts;
}

// The top-level messages of an `Index` file, in order; each one's bytes are
// valid until the next is read.
class FileMessages {
  #fd: number;
  #size: number;
  #position = 0;
  #head = new Uint8Array(20);
  #buffer = new Uint8Array(1 << 16);

  constructor(fd: number) {
    this.#fd = fd;
    this.#size = fs.fstatSync(fd).size;
  }

  next(): { name: "Metadata" | "Document" | "SymbolInformation"; bytes: Uint8Array } | null {
    while (this.#position < this.#size) {
      const tag = this.#varint();
      const [field, wireType] = [Math.floor(tag / 8), tag % 8];
      if (wireType === WireType.Varint) this.#varint();
      else if (wireType === WireType.Bit64) this.#position += 8;
      else if (wireType === WireType.Bit32) this.#position += 4;
      else if (wireType !== WireType.LengthDelimited) throw new Error("unexpected wire type");
      else {
        const length = this.#varint();
        if (this.#position + length > this.#size) throw new Error("truncated");
        const name = INDEX_FIELDS[field];
        const at = this.#position;
        this.#position += length;
        if (name !== undefined) return { name, bytes: this.#read(at, length) };
      }
    }
    if (this.#position !== this.#size) throw new Error("truncated");
    return null;
  }

  #varint(): number {
    const available = Math.min(this.#head.length, this.#size - this.#position);
    const length = fs.readSync(this.#fd, this.#head, 0, available, this.#position);
    const reader = new BinaryReader(this.#head.subarray(0, length));
    const value = BigInt(reader.uint64());
    this.#position += reader.pos;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("varint too large");
    return Number(value);
  }

  #read(position: number, length: number): Uint8Array {
    if (length > this.#buffer.length) {
      this.#buffer = new Uint8Array(Math.max(length, this.#buffer.length * 2));
    }
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.#fd, this.#buffer, done, length - done, position + done);
      if (read === 0) throw new Error("truncated");
      done += read;
    }
    return this.#buffer.subarray(0, length);
  }
}

function visit(
  visitor: ScipVisitor,
  name: "Metadata" | "Document" | "SymbolInformation",
  bytes: Uint8Array,
): void {
  if (name === "Document") return visitDocument(visitor, bytes);
  const message = decode(name, bytes);
  if (name === "Metadata") visitor.metadata(message as ScipMetadata);
  else visitor.external(message as ScipSymbolInformation);
}

function decode(name: string, bytes: Uint8Array): unknown {
  return fromBinary(scipMessage(name), bytes, {
    readUnknownFields: false,
    recursionLimit: RECURSION_LIMIT,
  });
}

// A document read field by field: its path first (wherever it is), then the rest in order.
function visitDocument(visitor: ScipVisitor, bytes: Uint8Array): void {
  let path = "";
  const first = new BinaryReader(bytes);
  while (first.pos < first.len) {
    const [field, wireType] = first.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) path = first.string();
    else first.skip(wireType, field, RECURSION_LIMIT);
  }
  visitor.begin(path);
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 2 && wireType === WireType.LengthDelimited) {
      visitOccurrence(visitor, reader.bytes());
    } else if (field === 3 && wireType === WireType.LengthDelimited) {
      visitor.describe(decode("SymbolInformation", reader.bytes()) as ScipSymbolInformation);
    } else reader.skip(wireType, field, RECURSION_LIMIT);
  }
}

// An occurrence's range (packed or not), symbol and roles; other fields skipped.
function visitOccurrence(visitor: ScipVisitor, bytes: Uint8Array): void {
  const reader = new BinaryReader(bytes);
  const range: number[] = [];
  let symbol = "";
  let roles = 0;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) {
      const end = reader.uint32() + reader.pos;
      if (end > reader.len) throw new Error("truncated");
      while (reader.pos < end) range.push(reader.int32());
    } else if (field === 1 && wireType === WireType.Varint) range.push(reader.int32());
    else if (field === 2 && wireType === WireType.LengthDelimited) symbol = reader.string();
    else if (field === 3 && wireType === WireType.Varint) roles = reader.int32();
    else reader.skip(wireType, field, RECURSION_LIMIT);
  }
  visitor.occurrence(range, symbol, roles);
}
