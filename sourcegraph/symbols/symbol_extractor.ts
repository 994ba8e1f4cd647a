/**
 * The definitions of one file, found by the index builder: a file of a
 * grammar language is parsed with its tree-sitter grammar (WebAssembly) and
 * its tags queries' `@definition.*` captures become symbols, each with the
 * enclosing definition as its container; a file of another language the
 * line patterns know gets theirs. A parse or query that runs past the
 * per-file deadline is cancelled (tree-sitter's progress callback) and the
 * file falls back to the patterns; a grammar that traps leaves the runtime
 * unusable, so every later file of the build falls back to the patterns
 * too. Either is counted, never fatal.
 *
 * @module
 */

import { Language, type Node, Parser, Query, type Tree } from "web-tree-sitter";
import { definedNameLines } from "../../shared/defined_names.ts";
import { CONTAINER_KINDS, type DefinedSymbol, type SymbolKind } from "./defined_symbol.ts";
import { grammarFiles, runtimeWasm } from "./grammars.ts";
import { type GrammarLanguage, grammarLanguageOf, patternLanguageOf } from "./languages.ts";
import { definitionOf } from "./tag_captures.ts";
import { type Container, enclosingContainers } from "./enclosing_scopes.ts";
import { blankFunctionBodies } from "./function_bodies.ts";
import {
  itemlessRustBodies,
  rangesAround,
  rustSpansWithout,
  type TextRange,
} from "./rust_bodies.ts";
import { definitionlessScriptBodies, type ScriptBody } from "./script_bodies.ts";
import { separateSignatureLines } from "./typescript_separators.ts";
import { typescriptBlocksWithout } from "./typescript_blocks.ts";
import { jsdocNames } from "./jsdoc_names.ts";
import { isIndexedName, isNameNode, type ReferenceRole, referenceRole } from "./reference_roles.ts";
import {
  analyzesLanguage,
  beginFile,
  type Binding,
  bindingOf,
  bindingSeenFrom,
  destructuredReceiver,
  type Exported,
  exportedAs,
  importedNameBinding,
  type Receiver,
} from "./name_bindings.ts";
import { ScopeAnalysis, type ScopeInfo, scopesLanguage } from "./scope_bindings.ts";

/** How long one file may take to parse and query. */
export const FILE_DEADLINE_MS = 5_000;
/** Longest name kept (longer ones are generated code, not definitions to look up). */
export const MAX_NAME_LENGTH = 200;
/** Files larger than this get the line patterns (generated data, by all odds: slow to parse). */
export const MAX_PARSED_BYTES = 1024 * 1024;
/** Most symbols kept per file. */
export const MAX_SYMBOLS_PER_FILE = 20_000;

/**
 * How a file's symbols were found: `parsed` (grammar), `patterns` (line
 * patterns: no grammar for its language), `large` (over
 * `MAX_PARSED_BYTES`: patterns), `timed_out` or `failed` (the grammar ran
 * past the deadline or trapped: patterns instead), `none` (a language
 * neither knows).
 */
export type ExtractionOutcome =
  | "parsed"
  | "patterns"
  | "large"
  | "timed_out"
  | "failed"
  | "none";

/** The symbols of one file. */
export interface Extraction {
  language: string | null;
  symbols: DefinedSymbol[];
  outcome: ExtractionOutcome;
}

/** One occurrence of a name in code: 1-based line, 0-based UTF-16 column, and its role. */
export interface NameOccurrence {
  line: number;
  column: number;
  role: ReferenceRole;
  /** What it is bound to, when the file's language is analyzed (`name_bindings.ts`). */
  binding?: Binding;
  /** For a name declared by destructuring an object, the receiver of the property it reads. */
  property?: Receiver;
  /** Its name space and reach, when the language's scopes are analyzed (`scope_bindings.ts`). */
  scope?: ScopeInfo;
}

/**
 * The occurrences of a name in one file: `parsed` with every identifier
 * spelling it (comments and strings hold none), or, when the file was not
 * parsed (`none`: no grammar; `large`, `timed_out`, `failed` as for
 * symbols), no occurrences and the caller keeps its text matches.
 */
export interface NameOccurrences {
  language: string | null;
  outcome: Exclude<ExtractionOutcome, "patterns">;
  occurrences: NameOccurrence[];
  /** What the file exports under the name, when bindings were asked for and analyzed. */
  exported?: Exported;
}

/** Most occurrences kept per file. */
export const MAX_OCCURRENCES_PER_FILE = 20_000;

interface Grammar {
  language: Language;
  /** The tags queries as one (one walk of the tree); pattern order is the files' order. */
  query: Query;
}

/** Finds the symbols of files, one at a time (one parser, grammars loaded on first use). */
export class SymbolExtractor {
  #parser: Parser;
  #grammars = new Map<GrammarLanguage, Promise<Grammar>>();
  #deadlineMs: number;
  #now: () => number;
  #broken = false;
  #warmed = new Set<GrammarLanguage>();

  private constructor(parser: Parser, options: { deadlineMs: number; now: () => number }) {
    this.#parser = parser;
    this.#deadlineMs = options.deadlineMs;
    this.#now = options.now;
  }

  /** An extractor whose files each get `deadlineMs` on the clock `now`. */
  static async create(
    options: { deadlineMs?: number; now?: () => number } = {},
  ): Promise<SymbolExtractor> {
    await Parser.init({ wasmBinary: await runtimeWasm() });
    return new SymbolExtractor(new Parser(), {
      deadlineMs: options.deadlineMs ?? FILE_DEADLINE_MS,
      now: options.now ?? (() => performance.now()),
    });
  }

  /**
   * The symbols of `text`, the content of a file at `path`; `wholeFile`
   * parses it without its function bodies blanked (the same symbols, parsed
   * slower: for comparisons).
   */
  async extract(
    path: string,
    text: string,
    options: { wholeFile?: boolean } = {},
  ): Promise<Extraction> {
    const grammarLanguage = grammarLanguageOf(path, text);
    if (grammarLanguage === null) {
      const language = patternLanguageOf(path);
      if (language === null) return { language: null, symbols: [], outcome: "none" };
      return { language, symbols: patternSymbols(path, text), outcome: "patterns" };
    }
    if (this.#broken) {
      return { language: grammarLanguage, symbols: patternSymbols(path, text), outcome: "failed" };
    }
    if (text.length > MAX_PARSED_BYTES) {
      return { language: grammarLanguage, symbols: patternSymbols(path, text), outcome: "large" };
    }
    const grammar = await this.#grammar(grammarLanguage);
    try {
      const symbols = this.#parse(grammar, text, {
        language: grammarLanguage,
        wholeFile: options.wholeFile === true,
      });
      if (symbols !== null) return { language: grammarLanguage, symbols, outcome: "parsed" };
      return {
        language: grammarLanguage,
        symbols: patternSymbols(path, text),
        outcome: "timed_out",
      };
    } catch {
      // A trap inside the runtime (out of bounds, stack exhausted) may leave its memory torn.
      this.#broken = true;
      return { language: grammarLanguage, symbols: patternSymbols(path, text), outcome: "failed" };
    }
  }

  /**
   * Loads the grammar `occurrences` will parse `text` (a file at `path`)
   * with, if any, and warms it up on its first use, so that neither counts
   * toward the file's own deadline.
   */
  async prepare(path: string, text: string, name: string): Promise<void> {
    const language = grammarLanguageOf(path, text);
    if (language === null || this.#broken || text.length > MAX_PARSED_BYTES) return;
    const grammar = await this.#grammar(language);
    if (this.#warmed.has(language)) return;
    this.#warmed.add(language);
    // V8 compiles a WebAssembly function when it is first called, and JavaScript when it runs
    // hot: a grammar's first file pays for its lexer's, the runtime's and the analysis's
    // (beside a busy machine's load, a 5 KiB file's first parse took 1.4 s, its next ones 0.3
    // to 0.7 s; the file's deadline is 1 s). Paid here, on the text around the name's first
    // spelling, outside that deadline.
    const from = Math.max(0, text.indexOf(name) - WARM_CHARACTERS / 2);
    try {
      this.#occurrences(grammar, text.slice(from, from + WARM_CHARACTERS), {
        language,
        name,
        bindings: analyzesLanguage(language),
        scoped: scopesLanguage(language) ? { language, path } : undefined,
        deadlineMs: WARM_MS,
      });
    } catch {
      this.#broken = true;
    }
  }

  /**
   * Where `name` occurs as an identifier in `text`, the content of a file
   * at `path`, each with its role; under the same per-file deadline and size
   * limit as `extract`. A Rust or TypeScript file is parsed without the contents of the
   * brace blocks that do not spell `name` (`rust_bodies.ts`, `typescript_blocks.ts`; Rust also
   * without the items and comments that do not), unless `wholeFile` (the same answer, parsed
   * slower: for comparisons).
   */
  async occurrences(
    path: string,
    text: string,
    name: string,
    options: { bindings?: boolean; wholeFile?: boolean } = {},
  ): Promise<NameOccurrences> {
    const language = grammarLanguageOf(path, text);
    if (language === null) return { language: null, outcome: "none", occurrences: [] };
    if (this.#broken) return { language, outcome: "failed", occurrences: [] };
    if (text.length > MAX_PARSED_BYTES) return { language, outcome: "large", occurrences: [] };
    const grammar = await this.#grammar(language);
    try {
      const bindings = options.bindings === true && analyzesLanguage(language);
      const scoped = options.bindings === true && scopesLanguage(language)
        ? { language, path }
        : undefined;
      // A Rust or TypeScript file's blocks that do not spell the name are left out of the
      // parse (the tree of the file with them blanked, without the parser stepping over the
      // blanks).
      const skipped = options.wholeFile === true
        ? []
        : language === "rust"
        ? rustSpansWithout(text, name)
        : language === "typescript" || (language === "javascript" && !path.endsWith(".jsx"))
        ? typescriptBlocksWithout(text, name, { jsx: language === "javascript" })
        : [];
      // Nothing to parse: the text spells the name only in comments (or, JavaScript, nowhere)
      // and exports no module's names.
      if (skipped === null) {
        const none = { language, outcome: "parsed" as const, occurrences: [] };
        return bindings ? { ...none, exported: { binding: null, starModules: [] } } : none;
      }
      const ranges = skipped.length === 0 ? undefined : rangesAround(text, skipped);
      // A Rust file whose items left out of the parse leave an error is parsed with its blocks
      // and comments left out only: an item's end found wrongly would change the tree.
      const fallback = language === "rust" && ranges !== undefined
        ? () => {
          const spans = rustSpansWithout(text, name, { items: false });
          return spans.length === 0 ? undefined : rangesAround(text, spans);
        }
        : undefined;
      const found = this.#occurrences(grammar, text, {
        language,
        name,
        bindings,
        scoped,
        ranges,
        fallback,
      });
      if (found === null) return { language, outcome: "timed_out", occurrences: [] };
      return { language, outcome: "parsed", ...found };
    } catch {
      this.#broken = true;
      return { language, outcome: "failed", occurrences: [] };
    }
  }

  // The name nodes are found where the text spells the name (each looked up in the tree, not
  // a walk of every node), and the tags queries run over the span they cover only.
  #occurrences(
    grammar: Grammar,
    text: string,
    at: {
      language: GrammarLanguage;
      name: string;
      bindings: boolean;
      scoped?: { language: string; path: string };
      deadlineMs?: number;
      /** The spans of `text` parsed (the rest left out), when not all of it. */
      ranges?: TextRange[];
      /** The spans parsed instead when those leave an error (undefined: all of it). */
      fallback?: () => TextRange[] | undefined;
    },
  ): { occurrences: NameOccurrence[]; exported?: Exported } | null {
    const { name } = at;
    const deadline = this.#now() + (at.deadlineMs ?? this.#deadlineMs);
    const late = () => this.#now() > deadline;
    this.#parser.setLanguage(grammar.language);
    const { language, ranges, fallback } = at;
    const tree = this.#parseText(text, { language, late, ranges, fallback });
    if (tree === null) return null;
    try {
      const nodes = nameNodes(tree.rootNode, { text, name, late });
      if (nodes === null || late()) return null;
      const definitionNames = new Set<number>();
      const ranges = nodes.length <= RANGED_QUERIES
        ? nodes.map((node) => [node.startIndex, node.endIndex])
        : [[nodes[0].startIndex, nodes[nodes.length - 1].endIndex]];
      for (const [startIndex, endIndex] of ranges) {
        // A query's range is in bytes of the UTF-16 text the parser was given (two a code unit).
        const matches = grammar.query.matches(tree.rootNode, {
          startIndex: 2 * startIndex,
          endIndex: 2 * endIndex,
          progressCallback: everyFew(late),
        });
        if (late()) return null;
        for (const match of matches) {
          if (!match.captures.some((capture) => capture.name.startsWith("definition."))) continue;
          for (const capture of match.captures) {
            if (capture.name === "name" && capture.node.text === name) {
              definitionNames.add(capture.node.startIndex);
            }
          }
        }
      }
      if (at.bindings) beginFile();
      const scopes = at.scoped && new ScopeAnalysis(tree.rootNode, at.scoped);
      const found = nodes.map((node) =>
        occurrenceOf(node, { definitionNames, bindings: at.bindings, scopes })
      );
      if (!at.bindings) return { occurrences: found };
      const occurrences = withDocumented(found, { root: tree.rootNode, text, name, language });
      return { occurrences, exported: exportedAs(tree.rootNode, name) };
    } finally {
      tree.delete();
    }
  }

  // The tree of `text`, or null when the deadline cut the parse off. A TypeScript file the
  // grammar finds errors in is parsed again with separators before the lines that start a call
  // signature (`typescript_separators.ts`), and that tree kept if it has fewer errors: hono's
  // `src/types.ts`, 848 error nodes -> 0; of the 1,428 TypeScript files of hono, h3 and the MCP
  // inspector, 7 parsed again, 5 kept.
  #parseText(
    text: string,
    at: {
      language: GrammarLanguage;
      late: () => boolean;
      ranges?: TextRange[];
      fallback?: () => TextRange[] | undefined;
    },
  ): Tree | null {
    const { ranges } = at;
    const parse = (source: string) =>
      // Slices of the text, not the rest of it at each call (the runtime copies what it is given);
      // with ranges, up to the end of the index's range (the parser asks again at each range).
      this.#parser.parse(
        ranges === undefined
          ? (index) => source.slice(index, index + PARSE_SLICE)
          : (index) => source.slice(index, Math.min(index + PARSE_SLICE, rangeEnd(ranges, index))),
        null,
        {
          progressCallback: everyFew(at.late),
          ...(ranges === undefined ? {} : { includedRanges: ranges }),
        },
      );
    const tree = parse(text);
    if (tree !== null && at.fallback !== undefined && tree.rootNode.hasError) {
      tree.delete();
      return this.#parseText(text, { ...at, ranges: at.fallback(), fallback: undefined });
    }
    // A TypeScript or JavaScript file with blocks left out that parses with an error is parsed
    // whole: a block found wrongly (the lexer's guess at a regular expression, JSX text) would
    // change the tree.
    if (tree !== null && ranges !== undefined && SCRIPT_LANGUAGES.has(at.language)) {
      if (!tree.rootNode.hasError) return tree;
      tree.delete();
      return this.#parseText(text, { ...at, ranges: undefined });
    }
    if (tree === null || !tree.rootNode.hasError || !SEPARATED_LANGUAGES.has(at.language)) {
      return tree;
    }
    const separated = separateSignatureLines(text);
    if (separated === text) return tree;
    const other = parse(separated);
    if (other === null) return tree;
    if (errorCount(other.rootNode) < errorCount(tree.rootNode)) {
      tree.delete();
      return other;
    }
    other.delete();
    return tree;
  }

  #grammar(language: GrammarLanguage): Promise<Grammar> {
    let grammar = this.#grammars.get(language);
    if (grammar === undefined) {
      grammar = grammarFiles(language).then(async (files) => {
        const loaded = await Language.load(files.wasm);
        return { language: loaded, query: definitionsQuery(loaded, files.queries) };
      });
      this.#grammars.set(language, grammar);
    }
    return grammar;
  }

  // The symbols of `text`, or null when the deadline cut the parse or a query off.
  // A C-family file is parsed with its function bodies blanked (they hold
  // most of its tokens and none of the definitions kept); a Rust file
  // without its bodies that hold no nested item, unless that turns the file
  // into one parse error (macros the grammar cannot follow); a TypeScript or
  // JavaScript file without its bodies that hold no definition, unless that
  // parse finds any error. Every file of the deno tree, hono, h3 and the MCP
  // inspector has the same symbols as parsed whole; their extraction in
  // process took 10.7 -> 6.1 s of processor time on the deno tree.
  #parse(
    grammar: Grammar,
    text: string,
    at: { language: GrammarLanguage; wholeFile: boolean },
  ): DefinedSymbol[] | null {
    const { language } = at;
    const deadline = this.#now() + this.#deadlineMs;
    const late = () => this.#now() > deadline;
    this.#parser.setLanguage(grammar.language);
    const parse = (source: string, ranges?: TextRange[]) =>
      this.#parseText(source, { language, late, ranges });
    const blanked = !at.wholeFile && (language === "c" || language === "cpp")
      ? blankFunctionBodies(text, { language })
      : text;
    // The bodies left out of the parse (tree-sitter's included ranges: the tree of the text with
    // them blanked, without the parser stepping over the blanks).
    const skipped = at.wholeFile ? [] : skippedBodies(text, language);
    const ranges = skipped.length === 0 ? undefined : rangesAround(text, skipped);
    let tree = parse(blanked, ranges);
    // A script's bodies are found by a scan that may guess wrong (a regular expression read as
    // a division): its parse with an error anywhere is done again whole.
    const wrong = (root: Node) =>
      ranges !== undefined && SCRIPT_LANGUAGES.has(language) ? root.hasError : mostlyError(root);
    if (tree !== null && (blanked !== text || ranges !== undefined) && wrong(tree.rootNode)) {
      tree.delete();
      tree = parse(text);
    }
    if (tree === null) return null;
    try {
      const found = new Found();
      const matches = grammar.query.matches(tree.rootNode, { progressCallback: everyFew(late) });
      if (late()) return null;
      // A later pattern (the supplements follow the shipped queries) refines an earlier one.
      matches.sort((a, b) => a.patternIndex - b.patternIndex);
      const impls: Node[] = [];
      for (const match of matches) {
        const definition = definitionOf(match.captures);
        if (definition !== null) found.add(definition);
        else if (match.captures[0]?.name === IMPL_CAPTURE) impls.push(match.captures[0].node);
      }
      return found.symbols(impls);
    } finally {
      tree.delete();
    }
  }
}

// The runtime asks whether to stop a parse or a query every hundred or so of its steps: the clock
// is read at every 16th question only (reading it at each was 1.3% of the extraction's time over
// the deno tree). Whoever sees a parse or query end checks the clock itself.
function everyFew(late: () => boolean): () => boolean {
  let asked = 0;
  return () => (++asked & 15) === 0 && late();
}

// The function bodies of `text` that hold no definition the tags queries find, each outermost,
// in order: left out of the tags parse.
function skippedBodies(text: string, language: GrammarLanguage): readonly ScriptBody[] {
  if (language === "rust") return itemlessRustBodies(text);
  return SCRIPT_LANGUAGES.has(language) ? definitionlessScriptBodies(text) : [];
}

// Languages whose definitionless bodies are left out of the tags parse (`script_bodies.ts`) and
// whose blocks without the name out of a references parse (`typescript_blocks.ts`); not TSX,
// whose text between tags the scans do not read.
const SCRIPT_LANGUAGES: ReadonlySet<GrammarLanguage> = new Set(["typescript", "javascript"]);

// The tags queries of a grammar with only their patterns that capture a
// definition: the others (`@reference.*`: calls, macro invocations) match at
// every call, and their matches were built only to be skipped. Tree-sitter
// matches each pattern on its own, so the definitions are the same. The Rust
// files of the deno tree: 248,786 -> 63,909 matches, the query 2.1 -> 1.7 s
// of processor time (their parse: 9.6 s).
function definitionsQuery(language: Language, sources: readonly string[]): Query {
  const query = new Query(language, withoutDocComments(sources.join("\n")));
  const definitions = query.captureNames.flatMap((name, index) =>
    name.startsWith("definition.") || name === IMPL_CAPTURE ? [index] : []
  );
  query.captureQuantifiers.forEach((quantifiers, pattern) => {
    if (!definitions.some((capture) => (quantifiers[capture] ?? 0) !== 0)) {
      query.disablePattern(pattern);
    }
  });
  return query;
}

// The capture of a Rust `impl` block (`queries/rust.scm`): no definition, but its type is the
// container of the definitions inside it.
const IMPL_CAPTURE = "scope.impl";

// Query source without the doc comments the shipped tags queries capture before a definition
// (`(comment)* @doc .`, and the directives that trim and select them): the index keeps no doc,
// and `matches` built every such comment's node and ran the directives' regular expressions on
// its text in JavaScript. The comments were optional (`*`), so the same definitions match. The
// deno tree's TypeScript files, queried in turn each way: 926 -> 817 ms of processor time, its
// JavaScript files 356 -> 292 ms; the same symbols.
function withoutDocComments(source: string): string {
  const stripped = source.replace(/\(comment\)\*\s*@doc\s*\.\s*/g, "")
    .replace(/\(#[a-z-]+! @doc[^\n]*\)[ \t]*\n/g, "");
  return stripped.includes("@doc") ? source : stripped;
}

// The definitions of one file, by name and first line: a later capture of
// the same definition refines its kind (the supplements follow the shipped
// queries), except to "variable".
class Found {
  #byKey = new Map<
    string,
    { node: Node; empty: boolean; symbol: DefinedSymbol; scope: string | null }
  >();

  add(definition: { node: Node; name: string; kind: SymbolKind; scope: string | null }): void {
    const { node, name, kind, scope } = definition;
    if (name.length === 0 || name.length > MAX_NAME_LENGTH || /\s/.test(name)) return;
    if (this.#byKey.size >= MAX_SYMBOLS_PER_FILE) return;
    const end = node.endPosition;
    const startLine = node.startPosition.row + 1;
    const endLine = Math.max(startLine, end.column === 0 ? end.row : end.row + 1);
    const key = `${name}\0${startLine}`;
    const earlier = this.#byKey.get(key);
    if (earlier !== undefined) {
      // "variable" says least: a function bound to a name stays a function.
      if (kind !== "variable") earlier.symbol.kind = kind;
      return;
    }
    const begin = node.startPosition;
    this.#byKey.set(key, {
      node,
      empty: end.row === begin.row && end.column === begin.column,
      symbol: { name, kind, startLine, endLine, container: null },
      scope,
    });
  }

  // Each symbol with its container: the nearest enclosing definition of a
  // container kind (or a Rust `impl` block's type, or a C++ `A::` scope); a
  // function inside a class or interface is its method.
  symbols(impls: readonly Node[]): DefinedSymbol[] {
    const containers = new Map<number, Container>();
    const nodes: Node[] = [];
    for (const { node, symbol } of this.#byKey.values()) {
      if (CONTAINER_KINDS.has(symbol.kind)) {
        containers.set(node.id, symbol);
        nodes.push(node);
      }
    }
    // Symbols with an explicit qualifier need no enclosing definition.
    const unscoped = [...this.#byKey.values()].filter((entry) => entry.scope === null);
    const enclosing = new Map(
      enclosingContainers(unscoped, { containers, nodes, impls })
        .map((container, index) => [unscoped[index], container]),
    );
    const symbols: DefinedSymbol[] = [];
    for (const entry of this.#byKey.values()) {
      const { symbol, scope } = entry;
      const container = enclosing.get(entry) ?? null;
      symbol.container = scope ?? container?.name ?? null;
      const inClass = container?.kind === "class" || container?.kind === "interface";
      if (symbol.kind === "function" && inClass) symbol.kind = "method";
      symbols.push(symbol);
    }
    return symbols.sort((a, b) => a.startLine - b.startLine || (a.name < b.name ? -1 : 1));
  }
}

// The end of the range of `ranges` (in order) that holds `index`; the text's end (the largest
// index) when none does.
function rangeEnd(ranges: readonly TextRange[], index: number): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle];
    if (index < range.startIndex) high = middle - 1;
    else if (index >= range.endIndex) low = middle + 1;
    else return range.endIndex;
  }
  return Number.MAX_SAFE_INTEGER;
}

// Up to this many name nodes, the tags queries run over each one's span; past it, over the
// span from the first to the last.
const RANGED_QUERIES = 32;

// Characters a name node's text never has on either side of it in the text (a name spelled
// inside a longer word is not a name node of its own); `$` is left out (PHP's `$name`).
const WORD_CHARACTER = /[A-Za-z0-9_]/;

// The name nodes spelling `name`, in text order (at most `MAX_OCCURRENCES_PER_FILE`): each
// place the text spells it as a word is looked up in the tree, a name node spanning exactly it
// kept; null when the deadline passed.
function nameNodes(
  root: Node,
  at: { text: string; name: string; late: () => boolean },
): Node[] | null {
  const { text, name } = at;
  const found: Node[] = [];
  let looked = 0;
  for (let from = text.indexOf(name); from !== -1; from = text.indexOf(name, from + 1)) {
    if (++looked % 1024 === 0 && at.late()) return null;
    const end = from + name.length;
    if (WORD_CHARACTER.test(text[from - 1] ?? "") || WORD_CHARACTER.test(text[end] ?? "")) continue;
    let node: Node | null = root.descendantForIndex(from, end);
    while (node !== null && node.startIndex === from && node.endIndex === end) {
      if (isNameNode(node) || isIndexedName(node)) {
        found.push(node);
        break;
      }
      node = node.parent;
    }
    if (found.length >= MAX_OCCURRENCES_PER_FILE) break;
  }
  return found;
}

// One occurrence of the name: its place, role and (when asked) its binding.
function occurrenceOf(
  node: Node,
  at: { definitionNames: ReadonlySet<number>; bindings: boolean; scopes?: ScopeAnalysis },
): NameOccurrence {
  const occurrence: NameOccurrence = {
    line: node.startPosition.row + 1,
    column: node.startPosition.column,
    role: referenceRole(node, at.definitionNames),
  };
  if (at.bindings) {
    occurrence.binding = importedNameBinding(node) ?? bindingOf(node);
    const property = destructuredReceiver(node);
    if (property !== null) occurrence.property = property;
  }
  if (at.scopes) Object.assign(occurrence, at.scopes.occurrence(node));
  return occurrence;
}

const DOCUMENTED_LANGUAGES: ReadonlySet<GrammarLanguage> = new Set([
  "typescript",
  "tsx",
  "javascript",
]);

// A script's occurrences with those its documentation comments write (`{@link Name}`,
// `@param {Name}`), each bound as seen from the node around the comment; one that sees no
// declaration of the name names nothing the files hold and is left out. In text order.
function withDocumented(
  found: NameOccurrence[],
  at: { root: Node; text: string; name: string; language: GrammarLanguage },
): NameOccurrence[] {
  if (!DOCUMENTED_LANGUAGES.has(at.language)) return found;
  const documented: NameOccurrence[] = [];
  let line = 1;
  let lineStart = 0;
  for (const { index, role } of jsdocNames(at.text, at.name)) {
    for (let next = at.text.indexOf("\n", lineStart); next !== -1 && next < index;) {
      line++;
      lineStart = next + 1;
      next = at.text.indexOf("\n", lineStart);
    }
    const around = at.root.descendantForIndex(index, index + at.name.length) ?? at.root;
    const binding = bindingSeenFrom(around, at.name);
    if (binding === null) continue;
    documented.push({ line, column: index - lineStart, role, binding });
  }
  if (documented.length === 0) return found;
  return [...found, ...documented].sort((a, b) => a.line - b.line || a.column - b.column);
}

const SEPARATED_LANGUAGES: ReadonlySet<GrammarLanguage> = new Set(["typescript", "tsx"]);

// How many error and missing nodes a tree holds (only subtrees that hold one are walked).
function errorCount(node: Node): number {
  let count = node.type === "ERROR" || node.isMissing ? 1 : 0;
  if (!node.hasError) return count;
  for (const child of node.children) {
    if (child !== null) count += errorCount(child);
  }
  return count;
}

// Whether a parse error covers the whole file or more than half its lines. A tree without an
// error is answered without listing the root's children (a node object each, made through the
// runtime: about 150 ms over the deno tree's Rust files in process).
function mostlyError(root: Node): boolean {
  if (!root.hasError) return false;
  if (root.type === "ERROR") return true;
  const lines = root.endPosition.row + 1;
  return root.children.some((child) =>
    child !== null && child.type === "ERROR" &&
    child.endPosition.row - child.startPosition.row + 1 > lines / 2
  );
}

const PARSE_SLICE = 16 * 1024;
// How much of a file warms a grammar up (`prepare`), and within what time.
const WARM_CHARACTERS = 4 * 1024;
const WARM_MS = 10_000;

const KEYWORD_KINDS: Record<string, SymbolKind> = {
  class: "class",
  struct: "class",
  object: "class",
  record: "class",
  interface: "interface",
  trait: "interface",
  protocol: "interface",
  enum: "enum",
  type: "type",
  typealias: "type",
  module: "module",
  namespace: "module",
  package: "module",
  val: "constant",
  const: "constant",
  let: "constant",
  var: "variable",
};

// The line patterns' definitions (one line each: the patterns see no ends).
function patternSymbols(path: string, text: string): DefinedSymbol[] {
  return definedNameLines(path, text).filter((found) => found.name.length <= MAX_NAME_LENGTH)
    .slice(0, MAX_SYMBOLS_PER_FILE).map((found) => ({
      name: found.name,
      kind: KEYWORD_KINDS[found.keyword] ?? "function",
      startLine: found.line,
      endLine: found.line,
      container: null,
    }));
}
