/**
 * The compact form of one commit's SCIP index that navigation reads: the
 * document paths, the symbols (a document's local symbols made unique to
 * it), per symbol its definition and its occurrences with their ranges and
 * roles, per document its occurrences sorted by range (for the symbol at a
 * position), and the tool that made it. Derived once when an index is
 * uploaded, checked as it is derived: a document path must be relative and
 * canonical (no `..`, `.`, empty or absolute components), a range must
 * have three or four non-negative numbers, start before end. Anything else
 * is `SCIP_INVALID` naming what is wrong; nothing of it is kept.
 *
 * Lines and characters are 0-based as in SCIP; characters are UTF-16 code
 * units from the line's start (what scip-typescript writes).
 *
 * @module
 */

import { SourcegraphError } from "../../errors.ts";
import type { ScipDocument, ScipIndex, ScipMetadata, ScipSymbolInformation } from "./scip_proto.ts";

/** The SCIP role bits navigation reads. */
export const SCIP_ROLES = { definition: 1, import: 2, write: 4, read: 8 } as const;

/** The version of the derived form's layout. */
export const SCIP_FORMAT = 1;
/** Most documents one index may hold. */
export const SCIP_MAX_DOCUMENTS = 200_000;
/** Most symbols one index may describe or name. */
export const SCIP_MAX_SYMBOLS = 1_000_000;
/** Longest document path or symbol kept (UTF-16 code units). */
export const SCIP_MAX_NAME = 4096;
/** Longest signature kept (longer ones are cut). */
const MAX_SIGNATURE = 2048;

/** Which tool made an index, and for which commit. */
export interface ScipSource {
  tool: string;
  version: string;
  commit: string;
}

/** A symbol's facts: its kind and signature when the index has them. */
export interface ScipSymbolFacts {
  symbol: string;
  kind: string | null;
  signature: string | null;
  displayName: string | null;
}

/**
 * The derived form. Occurrences are flat number arrays, six numbers each:
 * per document `[startLine, startChar, endLine, endChar, symbol, roles]`
 * sorted by range; per symbol `[document, startLine, startChar, endLine,
 * endChar, roles]` in document then range order. `definitions[s]` is
 * `[document, startLine, startChar, endLine, endChar]` or null.
 */
export interface DerivedScip {
  format: number;
  source: ScipSource;
  paths: string[];
  symbols: ScipSymbolFacts[];
  definitions: (number[] | null)[];
  byDocument: number[][];
  bySymbol: number[][];
}

/** One occurrence of a symbol, as navigation answers it. */
export interface ScipSpot {
  path: string;
  /** 0-based. */
  line: number;
  /** 0-based, UTF-16 code units. */
  character: number;
  endLine: number;
  endCharacter: number;
  roles: number;
}

/** Derives the compact form of `index`, made by its tool for `commit` (SCIP_INVALID otherwise). */
export function deriveScip(index: ScipIndex, options: { commit: string }): DerivedScip {
  const deriver = new ScipDeriver({ commit: options.commit });
  if (index.metadata) deriver.metadata(index.metadata);
  for (const document of index.documents) deriver.document(document);
  for (const info of index.externalSymbols) deriver.external(info);
  const decoder = new TextDecoder();
  let text = "";
  deriver.finish((chunk) => text += decoder.decode(chunk, { stream: true }));
  return parseStoredText(text + decoder.decode())!;
}

/** What deriving an index found, besides the text it wrote. */
export interface DerivedSummary {
  source: ScipSource;
  paths: string[];
  symbols: number;
  occurrences: number;
}

// Columns of one occurrence in the deriver's table.
const STRIDE = 7;
const [DOC, LINE, CHAR, END_LINE, END_CHAR, SYMBOL, ROLES] = [0, 1, 2, 3, 4, 5, 6];
// Bytes written at a time: the stored form is never one string in memory.
const FLUSH_AT = 1 << 20;

/**
 * Derives the compact form one document at a time, so an index is never
 * decoded whole: occurrences go to a table of 32-bit columns (28 bytes
 * each), symbols to a table of their names and facts, and `finish` writes
 * the stored text (`storedText`'s format) in pieces of about a MiB.
 * Documents naming one path twice are one document; the first description
 * of a symbol wins. More than `maxOccurrences` occurrences or
 * `maxSymbols` symbols (counted as they come) is `SCIP_TOO_COSTLY`.
 */
export class ScipDeriver {
  #commit: string;
  #maxOccurrences: number;
  #tool = { name: "", version: "" };
  #documents = new Map<string, number>();
  #seen = 0;
  #occurrences = 0;
  #at = -1;
  #path = "";
  #table: SymbolTable;
  #rows: Int32Array;
  #count = 0;

  /**
   * A deriver of the index of `commit`; `occurrences`, when known (counted
   * on the wire), sizes its table once.
   */
  constructor(
    options: { commit: string; maxOccurrences?: number; maxSymbols?: number; occurrences?: number },
  ) {
    this.#commit = options.commit;
    this.#table = new SymbolTable(options.maxSymbols ?? SCIP_MAX_SYMBOLS);
    this.#maxOccurrences = options.maxOccurrences ?? Infinity;
    this.#rows = new Int32Array(STRIDE * Math.max(1024, options.occurrences ?? 0));
  }

  /** The index's metadata (its tool). */
  metadata(metadata: ScipMetadata): void {
    this.#tool = { name: metadata.toolInfo?.name ?? "", version: metadata.toolInfo?.version ?? "" };
  }

  /** One external symbol's facts. */
  external(info: ScipSymbolInformation): void {
    this.#table.describe(checkedSymbol(info.symbol), info);
  }

  /** One document, checked as it is added. */
  document(document: ScipDocument): void {
    this.begin(document.relativePath);
    for (const info of document.symbols) this.describe(info);
    for (const occurrence of document.occurrences) {
      this.occurrence(occurrence.range, occurrence.symbol, occurrence.symbolRoles);
    }
  }

  /** Starts a document (its symbols and occurrences follow); its path is checked. */
  begin(path: string): void {
    if (++this.#seen > SCIP_MAX_DOCUMENTS) {
      throw invalid(`the index has more than ${SCIP_MAX_DOCUMENTS} documents`);
    }
    this.#path = checkedPath(path);
    let at = this.#documents.get(this.#path);
    if (at === undefined) this.#documents.set(this.#path, at = this.#documents.size);
    this.#at = at;
  }

  /** A symbol's facts, as the current document describes it. */
  describe(info: ScipSymbolInformation): void {
    this.#table.describe(this.#table.key(checkedSymbol(info.symbol), this.#current()), info);
  }

  /** One occurrence of the current document. */
  occurrence(range: readonly number[], symbol: string, roles: number): void {
    const at = this.#current();
    if (++this.#occurrences > this.#maxOccurrences) {
      throw tooCostly("occurrences", this.#maxOccurrences);
    }
    if (symbol === "") return; // highlighting only
    const checked = checkedRange(range, this.#path);
    const id = this.#table.id(this.#table.key(checkedSymbol(symbol), at));
    this.#add([at, ...checked, id, roles | 0]);
  }

  #current(): number {
    if (this.#at < 0) throw invalid("an index's symbols and occurrences belong to documents");
    return this.#at;
  }

  #add(row: number[]): void {
    if ((this.#count + 1) * STRIDE > this.#rows.length) {
      const grown = new Int32Array(this.#rows.length * 2);
      grown.set(this.#rows);
      this.#rows = grown;
    }
    this.#rows.set(row, this.#count * STRIDE);
    this.#count++;
  }

  /**
   * Writes the stored text (UTF-8) through `write`, in pieces of about
   * `FLUSH_AT` bytes (each valid until `write` returns); what it holds.
   */
  finish(write: (chunk: Uint8Array) => void): DerivedSummary {
    const source = {
      tool: clean(this.#tool.name) || "unknown",
      version: clean(this.#tool.version) || "unknown",
      commit: this.#commit,
    };
    const paths = [...this.#documents.keys()].sort();
    const final = new Int32Array(paths.length);
    paths.forEach((path, rank) => final[this.#documents.get(path)!] = rank);
    const rows = this.#rows;
    for (let i = 0; i < this.#count; i++) rows[i * STRIDE + DOC] = final[rows[i * STRIDE + DOC]];
    const out = new ByteWriter(write);
    out.text(`${JSON.stringify(source)}\n{"format":${SCIP_FORMAT},"paths":[`);
    paths.forEach((path, i) => out.text(`${i ? "," : ""}${JSON.stringify(path)}`));
    out.text('],"symbols":[');
    const facts = this.#table.facts;
    facts.forEach((fact, i) => out.text(`${i ? "," : ""}${JSON.stringify(fact)}`));
    const bySymbol = this.#order([SYMBOL, DOC, LINE, CHAR, END_LINE, END_CHAR]);
    this.#writeDefinitions(out, bySymbol);
    const byDocument = this.#order([DOC, LINE, CHAR, END_LINE, END_CHAR, SYMBOL]);
    this.#writeGroups(out, { order: byDocument, by: DOC, groups: paths.length });
    out.text('],"bySymbol":[');
    this.#writeGroups(out, { order: bySymbol, by: SYMBOL, groups: facts.length });
    out.text("]}\n");
    out.flush();
    return { source, paths, symbols: facts.length, occurrences: this.#count };
  }

  // The occurrences' numbers sorted by `columns`.
  #order(columns: number[]): Uint32Array {
    const rows = this.#rows;
    const order = new Uint32Array(this.#count).map((_, i) => i);
    return order.sort((a, b) => {
      for (const column of columns) {
        const difference = rows[a * STRIDE + column] - rows[b * STRIDE + column];
        if (difference !== 0) return difference;
      }
      return 0;
    });
  }

  // Per symbol, its first occurrence with the definition role (in path and range order).
  #writeDefinitions(out: ByteWriter, bySymbol: Uint32Array): void {
    const rows = this.#rows;
    const found = new Int32Array(this.#table.facts.length).fill(-1);
    for (const i of bySymbol) {
      const symbol = rows[i * STRIDE + SYMBOL];
      if (found[symbol] === -1 && (rows[i * STRIDE + ROLES] & SCIP_ROLES.definition) !== 0) {
        found[symbol] = i;
      }
    }
    out.text('],"definitions":[');
    found.forEach((i, symbol) => {
      if (symbol) out.byte(COMMA);
      if (i === -1) return out.text("null");
      out.byte(OPEN);
      out.numbers(rows, { base: i * STRIDE, columns: DEFINITION_COLUMNS });
      out.byte(CLOSE);
    });
    out.text('],"byDocument":[');
  }

  // One array of rows per group (document or symbol), the group's column left out.
  #writeGroups(out: ByteWriter, at: { order: Uint32Array; by: number; groups: number }): void {
    const rows = this.#rows;
    const columns = at.by === DOC ? DOCUMENT_COLUMNS : SYMBOL_COLUMNS;
    let next = 0;
    for (let group = 0; group < at.groups; group++) {
      if (group) out.byte(COMMA);
      out.byte(OPEN);
      for (let first = true; next < at.order.length; first = false) {
        const base = at.order[next] * STRIDE;
        if (rows[base + at.by] !== group) break;
        if (!first) out.byte(COMMA);
        out.numbers(rows, { base, columns });
        next++;
      }
      out.byte(CLOSE);
    }
  }
}

// The columns of a definition and of the rows of a document and of a symbol, as stored.
const DEFINITION_COLUMNS = [DOC, LINE, CHAR, END_LINE, END_CHAR];
const DOCUMENT_COLUMNS = [LINE, CHAR, END_LINE, END_CHAR, SYMBOL, ROLES];
const SYMBOL_COLUMNS = [DOC, LINE, CHAR, END_LINE, END_CHAR, ROLES];
const [COMMA, OPEN, CLOSE, MINUS, ZERO] = [0x2c, 0x5b, 0x5d, 0x2d, 0x30];

// UTF-8 written into one buffer, handed on whenever it fills: the stored
// text is never a string, and its numbers are written as digits directly.
class ByteWriter {
  #buffer = new Uint8Array(FLUSH_AT + 128);
  #length = 0;
  #write: (chunk: Uint8Array) => void;
  #encoder = new TextEncoder();

  constructor(write: (chunk: Uint8Array) => void) {
    this.#write = write;
  }

  byte(value: number): void {
    if (this.#length >= FLUSH_AT) this.flush();
    this.#buffer[this.#length++] = value;
  }

  text(text: string): void {
    for (let rest = text; rest.length > 0;) {
      if (this.#length >= FLUSH_AT) this.flush();
      const room = this.#buffer.subarray(this.#length, FLUSH_AT + 64);
      const { read, written } = this.#encoder.encodeInto(rest, room);
      this.#length += written;
      rest = rest.slice(read);
      if (read === 0) this.flush(); // a character needs more room than is left
    }
  }

  // Integers of `rows` at `base` + each column, comma-separated (at most 72 bytes).
  numbers(rows: Int32Array, at: { base: number; columns: readonly number[] }): void {
    if (this.#length >= FLUSH_AT) this.flush();
    for (let i = 0; i < at.columns.length; i++) {
      if (i) this.#buffer[this.#length++] = COMMA;
      this.#integer(rows[at.base + at.columns[i]]);
    }
  }

  #integer(value: number): void {
    if (value < 0) this.#buffer[this.#length++] = MINUS;
    let rest = Math.abs(value);
    let digits = 1;
    while (10 ** digits <= rest) digits++;
    this.#length += digits;
    for (let at = this.#length - 1; digits > 0; digits--, at--) {
      this.#buffer[at] = ZERO + rest % 10;
      rest = Math.floor(rest / 10);
    }
  }

  flush(): void {
    if (this.#length > 0) this.#write(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
  }
}

// Symbols by key (a document's locals keyed with the document), with their facts.
class SymbolTable {
  #ids = new Map<string, number>();
  #max: number;
  readonly facts: ScipSymbolFacts[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  key(symbol: string, document: number): string {
    return symbol.startsWith("local ") ? `${document}\0${symbol}` : symbol;
  }

  id(key: string): number {
    let id = this.#ids.get(key);
    if (id === undefined) {
      if (this.facts.length >= this.#max) throw tooCostly("symbols", this.#max);
      id = this.facts.length;
      this.#ids.set(key, id);
      const symbol = key.includes("\0") ? key.slice(key.indexOf("\0") + 1) : key;
      this.facts.push({ symbol, kind: null, signature: null, displayName: null });
    }
    return id;
  }

  describe(key: string, info: ScipSymbolInformation): void {
    const facts = this.facts[this.id(key)];
    facts.kind ??= SCIP_KINDS[info.kind] ?? null;
    const signature = info.signatureDocumentation?.text || codeBlock(info.documentation[0] ?? "");
    if (facts.signature === null && signature !== "") {
      facts.signature = signature.slice(0, MAX_SIGNATURE);
    }
    if (facts.displayName === null && info.displayName !== "") {
      facts.displayName = info.displayName.slice(0, SCIP_MAX_NAME);
    }
  }
}

// Indexers that predate signatures put them first in the documentation, as a fenced code block.
function codeBlock(documentation: string): string {
  return /^```[\w-]*\n([\s\S]*?)\n```/.exec(documentation)?.[1] ?? "";
}

function checkedPath(path: string): string {
  const parts = path.split("/");
  if (
    path === "" || path.length > SCIP_MAX_NAME || path.startsWith("/") ||
    parts.some((part) => part === "" || part === "." || part === "..") ||
    /[\0\\]/.test(path) || /^[A-Za-z]:/.test(path)
  ) {
    throw new SourcegraphError(
      "SCIP_PATH_INVALID",
      `document path ${JSON.stringify(path.slice(0, 200))} is not a relative path ` +
        "inside the repository",
      { hint: "Index from the repository's root so documents are named by their repository path." },
    );
  }
  return path;
}

function checkedSymbol(symbol: string): string {
  if (symbol === "" || symbol.length > SCIP_MAX_NAME) {
    throw invalid("a symbol is empty or longer than 4096 characters");
  }
  return symbol;
}

function checkedRange(range: readonly number[], path: string): readonly number[] {
  const full = range.length === 3 ? [range[0], range[1], range[0], range[2]] : range;
  const [line, character, endLine, endCharacter] = full;
  if (
    full.length !== 4 || full.some((value) => value < 0) ||
    endLine < line || (endLine === line && endCharacter < character)
  ) {
    throw invalid(`an occurrence in ${JSON.stringify(path)} has a malformed range`);
  }
  return full;
}

function clean(text: string): string {
  return text.replace(/\p{Cc}/gu, "").slice(0, 200);
}

/** `SCIP_TOO_COSTLY`: the index has more than `limit` of `what`. */
export function tooCostly(what: string, limit: number): SourcegraphError {
  return new SourcegraphError("SCIP_TOO_COSTLY", `the index has more than ${limit} ${what}`, {
    hint: "Upload an index of fewer files (index the project's sources only).",
  });
}

function invalid(message: string): SourcegraphError {
  return new SourcegraphError("SCIP_INVALID", message, {
    hint: "Upload the index file the indexer wrote (index.scip), unchanged.",
  });
}

/** The symbol at a 0-based position of `path` (the innermost occurrence there), or null. */
export function symbolAt(
  scip: DerivedScip,
  at: { path: string; line: number; character: number },
): number | null {
  const document = documentIndex(scip, at.path);
  if (document === null) return null;
  const rows = scip.byDocument[document];
  let found: number | null = null;
  let width = Infinity;
  // Sorted by start: the occurrences on the line are a run found by bisection.
  for (let i = firstOnLine(rows, at.line); i < rows.length && rows[i] === at.line; i += 6) {
    const [, start, endLine, end, symbol] = rows.slice(i, i + 5);
    const inside = start <= at.character && (endLine > at.line || at.character < end);
    // Innermost: fewer lines first, then fewer characters.
    const size = (endLine - at.line) * 2 ** 31 + end - start;
    if (inside && size < width) [found, width] = [symbol, size];
  }
  return found;
}

function firstOnLine(rows: number[], line: number): number {
  let low = 0;
  let high = rows.length / 6;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (rows[middle * 6] < line) low = middle + 1;
    else high = middle;
  }
  return low * 6;
}

/** Where `path` is among the index's documents, or null. */
export function documentIndex(scip: DerivedScip, path: string): number | null {
  let low = 0;
  let high = scip.paths.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (scip.paths[middle] < path) low = middle + 1;
    else high = middle;
  }
  return scip.paths[low] === path ? low : null;
}

/** Every occurrence of symbol `symbol`, in path then range order. */
export function symbolSpots(scip: DerivedScip, symbol: number): ScipSpot[] {
  const rows = scip.bySymbol[symbol] ?? [];
  const spots: ScipSpot[] = [];
  for (let i = 0; i < rows.length; i += 6) {
    spots.push({
      path: scip.paths[rows[i]],
      line: rows[i + 1],
      character: rows[i + 2],
      endLine: rows[i + 3],
      endCharacter: rows[i + 4],
      roles: rows[i + 5],
    });
  }
  return spots;
}

/** The definition of symbol `symbol` in the index, or null (defined elsewhere). */
export function symbolDefinition(scip: DerivedScip, symbol: number): ScipSpot | null {
  const at = scip.definitions[symbol];
  if (!at) return null;
  const [document, line, character, endLine, endCharacter] = at;
  return {
    path: scip.paths[document],
    line,
    character,
    endLine,
    endCharacter,
    roles: SCIP_ROLES.definition,
  };
}

/** The stored form of `scip`: its source on the first line (listing reads that alone), then the rest. */
export function storedText(scip: DerivedScip): string {
  const { source, ...rest } = scip;
  return `${JSON.stringify(source)}\n${JSON.stringify(rest)}\n`;
}

/** The derived form of a stored text, or null when it is not one (damaged). */
export function parseStoredText(text: string): DerivedScip | null {
  const newline = text.indexOf("\n");
  try {
    const source = JSON.parse(text.slice(0, newline));
    const scip = { source, ...JSON.parse(text.slice(newline + 1)) };
    return isDerivedScip(scip) ? scip : null;
  } catch {
    return null;
  }
}

/**
 * Whether `value` has the derived form's shape (a stored file is checked
 * before use: one that is not is refused as damaged).
 */
export function isDerivedScip(value: unknown): value is DerivedScip {
  const scip = value as DerivedScip;
  return typeof value === "object" && value !== null && scip.format === SCIP_FORMAT &&
    typeof scip.source?.tool === "string" && typeof scip.source?.version === "string" &&
    typeof scip.source?.commit === "string" && Array.isArray(scip.paths) &&
    scip.paths.every((path) => typeof path === "string") && Array.isArray(scip.symbols) &&
    Array.isArray(scip.definitions) && scip.definitions.length === scip.symbols.length &&
    Array.isArray(scip.bySymbol) && scip.bySymbol.length === scip.symbols.length &&
    Array.isArray(scip.byDocument) && scip.byDocument.length === scip.paths.length &&
    scip.byDocument.every(wellFormedRows(scip.symbols.length, 4)) &&
    scip.bySymbol.every(wellFormedRows(scip.paths.length, 0));
}

// Rows of six non-negative integers whose column `column` is below `limit`.
function wellFormedRows(limit: number, column: number): (rows: number[]) => boolean {
  return (rows) =>
    Array.isArray(rows) && rows.length % 6 === 0 &&
    rows.every((value, i) =>
      Number.isInteger(value) && value >= 0 && (i % 6 !== column || value < limit)
    );
}

/** The names of `SymbolInformation.Kind` (scip.proto), by number. */
export const SCIP_KINDS: Record<number, string> = Object.fromEntries(
  (
    "1 Array,2 Assertion,3 AssociatedType,4 Attribute,5 Axiom,6 Boolean,7 Class,8 Constant," +
    "9 Constructor,10 DataFamily,11 Enum,12 EnumMember,13 Event,14 Fact,15 Field,16 File," +
    "17 Function,18 Getter,19 Grammar,20 Instance,21 Interface,22 Key,23 Lang,24 Lemma,25 Macro," +
    "26 Method,27 MethodReceiver,28 Message,29 Module,30 Namespace,31 Null,32 Number,33 Object," +
    "34 Operator,35 Package,36 PackageObject,37 Parameter,38 ParameterLabel,39 Pattern," +
    "40 Predicate,41 Property,42 Protocol,43 Quasiquoter,44 SelfParameter,45 Setter,46 Signature," +
    "47 Subscript,48 String,49 Struct,50 Tactic,51 Theorem,52 ThisParameter,53 Trait,54 Type," +
    "55 TypeAlias,56 TypeClass,57 TypeFamily,58 TypeParameter,59 Union,60 Value,61 Variable," +
    "62 Contract,63 Error,64 Library,65 Modifier,66 AbstractMethod,67 MethodSpecification," +
    "68 ProtocolMethod,69 PureVirtualMethod,70 TraitMethod,71 TypeClassMethod,72 Accessor," +
    "73 Delegate,74 MethodAlias,75 SingletonClass,76 SingletonMethod,77 StaticDataMember," +
    "78 StaticEvent,79 StaticField,80 StaticMethod,81 StaticProperty,82 StaticVariable"
  ).split(",").map((entry) => {
    const [number, name] = entry.split(" ");
    return [Number(number), name];
  }),
);
