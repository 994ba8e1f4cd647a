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
import type {
  ScipDocument,
  ScipIndex,
  ScipOccurrence,
  ScipSymbolInformation,
} from "./scip_proto.ts";

/** The SCIP role bits navigation reads. */
export const SCIP_ROLES = { definition: 1, import: 2, write: 4, read: 8 } as const;

/** The version of the derived form's layout. */
export const SCIP_FORMAT = 1;
/** Most documents one index may hold. */
export const SCIP_MAX_DOCUMENTS = 200_000;
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
  if (index.documents.length > SCIP_MAX_DOCUMENTS) {
    throw invalid(`the index has more than ${SCIP_MAX_DOCUMENTS} documents`);
  }
  const tool = index.metadata?.toolInfo;
  const source = {
    tool: clean(tool?.name ?? "") || "unknown",
    version: clean(tool?.version ?? "") || "unknown",
    commit: options.commit,
  };
  // Documents naming one path twice are one document.
  const documents = new Map<string, ScipDocument[]>();
  for (const document of index.documents) {
    const path = checkedPath(document.relativePath);
    documents.set(path, [...(documents.get(path) ?? []), document]);
  }
  const paths = [...documents.keys()].sort();
  const table = new SymbolTable();
  for (const info of index.externalSymbols) table.describe(checkedSymbol(info.symbol), info);
  const byDocument = paths.map((path, at) =>
    documentOccurrences(documents.get(path)!, { at, path, table })
  );
  return { format: SCIP_FORMAT, source, paths, ...table.finish(byDocument) };
}

// A document's occurrences with a symbol, sorted by range; its symbols described.
function documentOccurrences(
  documents: ScipDocument[],
  at: { at: number; path: string; table: SymbolTable },
): number[] {
  const rows: number[][] = [];
  for (const document of documents) {
    for (const info of document.symbols) {
      at.table.describe(at.table.key(checkedSymbol(info.symbol), at.at), info);
    }
    for (const occurrence of document.occurrences) {
      if (occurrence.symbol === "") continue; // highlighting only
      const [line, character, endLine, endCharacter] = checkedRange(occurrence, at.path);
      const symbol = at.table.id(at.table.key(checkedSymbol(occurrence.symbol), at.at));
      rows.push([line, character, endLine, endCharacter, symbol, occurrence.symbolRoles | 0]);
    }
  }
  rows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3] || a[4] - b[4]);
  return rows.flat();
}

// Symbols by key (a document's locals keyed with the document), with their facts.
class SymbolTable {
  #ids = new Map<string, number>();
  #facts: ScipSymbolFacts[] = [];

  key(symbol: string, document: number): string {
    return symbol.startsWith("local ") ? `${document}\0${symbol}` : symbol;
  }

  id(key: string): number {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#facts.length;
      this.#ids.set(key, id);
      const symbol = key.includes("\0") ? key.slice(key.indexOf("\0") + 1) : key;
      this.#facts.push({ symbol, kind: null, signature: null, displayName: null });
    }
    return id;
  }

  describe(key: string, info: ScipSymbolInformation): void {
    const facts = this.#facts[this.id(key)];
    facts.kind ??= SCIP_KINDS[info.kind] ?? null;
    const signature = info.signatureDocumentation?.text || codeBlock(info.documentation[0] ?? "");
    if (facts.signature === null && signature !== "") {
      facts.signature = signature.slice(0, MAX_SIGNATURE);
    }
    if (facts.displayName === null && info.displayName !== "") {
      facts.displayName = info.displayName.slice(0, SCIP_MAX_NAME);
    }
  }

  finish(byDocument: number[][]): Omit<DerivedScip, "format" | "source" | "paths"> {
    const bySymbol: number[][] = this.#facts.map(() => []);
    const definitions: (number[] | null)[] = this.#facts.map(() => null);
    byDocument.forEach((rows, document) => {
      for (let i = 0; i < rows.length; i += 6) {
        const [line, character, endLine, endCharacter, symbol, roles] = rows.slice(i, i + 6);
        bySymbol[symbol].push(document, line, character, endLine, endCharacter, roles);
        if ((roles & SCIP_ROLES.definition) !== 0 && definitions[symbol] === null) {
          definitions[symbol] = [document, line, character, endLine, endCharacter];
        }
      }
    });
    return { symbols: this.#facts, definitions, byDocument, bySymbol };
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

function checkedRange(occurrence: ScipOccurrence, path: string): number[] {
  const range = occurrence.range;
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
