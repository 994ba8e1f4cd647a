/**
 * Search-based references: the name at a position of a file, then every
 * place that name occurs at the same commit. Candidates are the lines of
 * one search page (the repository's search, so path groups, the index or
 * the unindexed search, ranking and paging are the search's: files defining
 * the name come first); each candidate file of a language with a grammar is
 * parsed and only its identifier nodes spelling the name are kept, each with
 * its role, so comments and strings drop out. A file without a grammar (or
 * too large, or past its parse deadline) keeps its whole-word lines with the
 * role `text`. When the name at the position resolves to a declaration of
 * a TypeScript or JavaScript file (`name_resolution.ts`), or to a name of
 * C, C++, Go, Python or Rust (`scope_references.ts`), only occurrences
 * referring to it are kept, and files of other languages are left out.
 *
 * Parsing runs in the service's parsing workers (`REFERENCES_WORKERS`, one
 * file at a time each, grammars loaded on first use), each file under a deadline
 * and the size limit of the index builder's extraction, and a page parses at
 * most `REFERENCES_FILES_PER_PAGE` files within `REFERENCES_PARSE_MS`: past
 * that, the page ends and its cursor resumes at the next file (a page's
 * first file is answered as `text` if even it comes past the budget).
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import type { FileMatches, SearchOutcome } from "../search/code_search.ts";
import type { SearchPosition } from "../search/query/compiled_search.ts";
import { fileURLToPath } from "node:url";
import {
  MAX_PARSED_BYTES,
  type NameOccurrence,
  type NameOccurrences,
} from "../symbols/symbol_extractor.ts";
import type { OccurrencesJob } from "../symbols/occurrences_worker.ts";
import { WorkerJobs } from "../workers/worker_jobs.ts";
import type { ReferenceRole } from "../symbols/reference_roles.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import {
  isScriptPath,
  type NameResolver,
  refersTo,
  type ResolvedDeclaration,
} from "./name_resolution.ts";
import { mayHoldScoped } from "./scope_references.ts";

/** Most candidate files one page parses (and shows). */
export const REFERENCES_FILES_PER_PAGE = 50;
/** Most milliseconds one page spends parsing; the page ends before its next file past them. */
export const REFERENCES_PARSE_MS = 4_000;
/** Most milliseconds one file's parse may take. */
export const REFERENCES_FILE_MS = 1_000;
/**
 * Workers parsing for references by default. One: with two, a page's files
 * are parsed side by side, but each worker's first files of a grammar run
 * cold (V8 compiles WebAssembly functions on first call, JavaScript once
 * hot), and beside a load average of 30 a test's 5 KiB file then ran past
 * its 1 s in the second worker in 3 runs of 6 (in none of 2 with one). A
 * grammar's load and warm-up are outside a file's deadline either way
 * (`REFERENCES_QUEUED_MS`).
 */
export const REFERENCES_WORKERS = 1;
/**
 * Most milliseconds a file may wait in its worker before its parse begins:
 * behind the worker's earlier files (each within `REFERENCES_FILE_MS`), or
 * while the worker loads the file's grammar, which a busy machine can make
 * take seconds (a grammar load timed as the file's parse failed parses).
 */
export const REFERENCES_QUEUED_MS = 20_000;
/** Most answers the parser keeps (by file text and name), and most occurrences in them. */
export const REFERENCES_CACHE = { answers: 512, occurrences: 200_000 };

const OCCURRENCES_WORKER = new URL("../symbols/occurrences_worker.ts", import.meta.url);

/**
 * The local modules the parsing worker loads: Deno starts a worker only with
 * read access to them (`deno task start` reads the whole checkout).
 */
export const OCCURRENCES_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("../symbols/", import.meta.url)),
  fileURLToPath(new URL("../../shared/defined_names.ts", import.meta.url)),
];
/** Longest name looked up. */
export const REFERENCES_MAX_NAME = 200;

/**
 * A row's role: a grammar's (`ReferenceRole`), `text` for a whole-word match
 * not parsed, or `reference` for a SCIP occurrence with no role of its own.
 */
export type RowRole = ReferenceRole | "text" | "reference";

/** One line that holds the name, with the roles of its occurrences. */
export interface ReferenceLine {
  number: number;
  text: string;
  roles: RowRole[];
}

/** One file's references. */
export interface ReferenceFile {
  path: string;
  /** `parsed`, or why the file's rows are whole-word text matches. */
  parse: "parsed" | "no_grammar" | "large" | "timed_out" | "failed" | "budget";
  lines: ReferenceLine[];
  /** The search's ranking group, when the search was ranked. */
  tier?: SearchPosition["tier"];
}

/** One page of the references of a name. */
export interface ReferencesPage {
  repo: string;
  commit: string;
  name: string;
  /** Where the name was taken from. */
  origin: { path: string; line: number };
  files: ReferenceFile[];
  /** The search's own outcome for the page (index use, caps, ranking, counts). */
  search: Omit<SearchOutcome, "files">;
  scope: string[] | null;
  /** Set when the page comes from the commit's SCIP index: its tool and commit. */
  precise?: ScipSource;
  /**
   * The declaration the name was resolved to (only occurrences that refer
   * to it are rows), or null when it was not (every identifier spelling it).
   */
  target: ResolvedDeclaration | null;
}

/** A references lookup at a position. */
export interface ReferencesRequest {
  repo: string;
  revision?: string;
  path: string;
  line: number;
  /** 1-based, in characters (code points) of the line. */
  column?: number;
  /** The name on the line to look up, instead of a column. */
  symbol?: string;
  includeDeclaration?: boolean;
  glob?: string[];
  /** Continue after a page's last row, at that page's commit. */
  after?: SearchPosition & { commit: string };
  /** The bytes the page is shown in: files past them are left to the next page. */
  maxBytes?: number;
}

const NAME_CHAR = /[A-Za-z0-9_$]/;
const SIGIL_NAME_CHAR = /[A-Za-z0-9_]/;
const INSTANCE_NAME_CHAR = /[A-Za-z0-9_$@]/;
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The name at `column` (1-based, code points) of `text`, or the `symbol`
 * as a whole word of it; refused with `POSITION_PAST_END`,
 * `NOT_AN_IDENTIFIER` or `SYMBOL_NOT_ON_LINE`. Its UTF-16 offset is where
 * it starts. With `sigil` (a PHP file), `$` is no part of a name: `$x` is
 * the variable `x`; with `instance` (a Ruby file), `@x` and `@@x` are names.
 */
export function nameAt(
  text: string,
  at: { column?: number; symbol?: string; sigil?: boolean; instance?: boolean },
): { name: string; offset: number } {
  if (at.instance === true) {
    const found = instanceVariableAt(text, at);
    if (found !== null) return found;
  }
  // PHP's `$` marks a variable, the name is what follows it; Ruby's `@` is part of a name.
  const nameChar = at.sigil === true
    ? SIGIL_NAME_CHAR
    : at.instance === true
    ? INSTANCE_NAME_CHAR
    : NAME_CHAR;
  if (at.symbol !== undefined) return symbolAt(text, { ...at, symbol: at.symbol, nameChar });
  if (at.column === undefined) {
    throw new SourcegraphError("INVALID_ARGUMENTS", "column or symbol is required", {
      hint: "Pass the 1-based column of the name on the line, or the name as symbol.",
    });
  }
  const points = Array.from(text);
  if (at.column > points.length) {
    throw new SourcegraphError("POSITION_PAST_END", "the column is past the end of the line", {
      hint: `The line has ${points.length} characters; read it and pass a column on the name.`,
    });
  }
  let offset = points.slice(0, at.column - 1).join("").length;
  if (at.sigil === true && text[offset] === "$") offset++;
  if (!nameChar.test(text[offset] ?? "")) {
    throw new SourcegraphError("NOT_AN_IDENTIFIER", "no name at this position", {
      hint: "Pass a column on a name (letters, digits, _ or $), or the name as symbol.",
    });
  }
  let start = offset;
  while (start > 0 && nameChar.test(text[start - 1])) start--;
  let end = offset;
  while (end < text.length && nameChar.test(text[end])) end++;
  const name = text.slice(start, end);
  if (!NAME.test(name) || name.length > REFERENCES_MAX_NAME) {
    throw new SourcegraphError("NOT_AN_IDENTIFIER", "no name at this position", {
      hint: "Pass a column on a name (letters, digits, _ or $), or the name as symbol.",
    });
  }
  return { name, offset: start };
}

// The `symbol` as a whole word of `text` (a PHP variable's `$` dropped), or refused.
function symbolAt(
  text: string,
  at: { symbol: string; sigil?: boolean; nameChar: RegExp },
): { name: string; offset: number } {
  const symbol = at.sigil === true ? at.symbol.replace(/^\$/, "") : at.symbol;
  if (!NAME.test(symbol) || symbol.length > REFERENCES_MAX_NAME) {
    throw new SourcegraphError("NOT_AN_IDENTIFIER", "symbol is not a name", {
      hint: "Pass a name of letters, digits, _ and $ (not a pattern), or a column instead.",
    });
  }
  const offset = wholeWordAt(text, symbol, at.nameChar);
  if (offset === null) {
    throw new SourcegraphError("SYMBOL_NOT_ON_LINE", "the symbol is not a whole word of the line", {
      hint: "Read the line and pass the name as written there, or a column.",
    });
  }
  return { name: symbol, offset };
}

// A Ruby instance or class variable (`@name`, `@@name`) at the position or as the symbol; null
// for any other name.
function instanceVariableAt(
  text: string,
  at: { column?: number; symbol?: string },
): { name: string; offset: number } | null {
  for (const match of text.matchAll(/@{1,2}[A-Za-z_][A-Za-z0-9_]*/g)) {
    const start = match.index;
    const end = start + match[0].length;
    if (start > 0 && NAME_CHAR.test(text[start - 1])) continue;
    const column = Array.from(text.slice(0, start)).length + 1;
    const chosen = at.symbol !== undefined
      ? at.symbol === match[0]
      : at.column !== undefined && at.column >= column && at.column <= column + (end - start) - 1;
    if (chosen && match[0].length <= REFERENCES_MAX_NAME) return { name: match[0], offset: start };
  }
  return null;
}

function wholeWordAt(text: string, name: string, nameChar: RegExp): number | null {
  for (let from = text.indexOf(name); from !== -1; from = text.indexOf(name, from + 1)) {
    const before = from === 0 ? "" : text[from - 1];
    const after = text[from + name.length] ?? "";
    if (!nameChar.test(before) && !nameChar.test(after)) return from;
  }
  return null;
}

/**
 * The RE2 pattern of `name` as a whole word (a name's characters on neither
 * side; with `sigil`, PHP's, a `$` may precede it: `$name` is its variable).
 */
export function wholeWordPattern(name: string, options: { sigil?: boolean } = {}): string {
  const before = options.sigil === true ? "[^A-Za-z0-9_]" : "[^A-Za-z0-9_$]";
  return `(?:^|${before})${name.replaceAll("$", "\\$")}(?:[^A-Za-z0-9_$]|$)`;
}

/**
 * Parses files for the references of the whole service in its workers
 * (`symbols/occurrences_worker.ts`, `REFERENCES_WORKERS` unless told), one
 * file at a time each, so a parse never holds up the service's thread: each file gets
 * `fileMs` from when its parse begins (tree-sitter's own deadline inside the
 * worker; the pool ends a worker that overruns it by more; before it begins,
 * `queuedMs`), and a worker that cannot start leaves
 * every file unparsed (its matches kept as `text`). Answers are kept by the
 * file's path, a hash of its text and the name (`REFERENCES_CACHE`, the
 * least recently used dropped first): a file asked again, or asked without
 * bindings after with them, is not parsed again. `close` ends the workers.
 */
export class ReferenceParser {
  #jobs: WorkerJobs<OccurrencesJob & { deadlineMs: number }, NameOccurrences>;
  #now: () => number;
  #fileMs: number;
  #answers = new Map<string, KeptAnswer>();
  #kept = 0;
  /** How many workers parse side by side. */
  readonly workers: number;
  /** Most milliseconds one page spends parsing (`REFERENCES_PARSE_MS` unless told). */
  readonly pageMs: number;

  /**
   * A parser whose files each get `fileMs` (`REFERENCES_FILE_MS` unless told)
   * and whose pages each get `pageMs`, timed on `now`.
   */
  constructor(
    options: {
      now?: () => number;
      fileMs?: number;
      pageMs?: number;
      log?: (line: string) => void;
      workerUrl?: URL;
      workers?: number;
      queuedMs?: number;
    } = {},
  ) {
    this.#now = options.now ?? (() => performance.now());
    this.#fileMs = options.fileMs ?? REFERENCES_FILE_MS;
    this.pageMs = options.pageMs ?? REFERENCES_PARSE_MS;
    const log = options.log ?? (() => {});
    this.workers = options.workers ?? REFERENCES_WORKERS;
    this.#jobs = new WorkerJobs(options.workerUrl ?? OCCURRENCES_WORKER, {
      workers: this.workers,
      // The worker's parse stops itself at `fileMs`; this guard ends a worker stuck past it.
      timeoutMs: this.#fileMs + 2_000,
      queuedMs: options.queuedMs ?? REFERENCES_QUEUED_MS,
      failed: (message) =>
        log(
          `references are text matches only: the parsing worker failed (${message}); ` +
            `the service needs read access to ${OCCURRENCES_WORKER_MODULES.join(", ")}`,
        ),
    });
  }

  /** The clock page budgets are timed on. */
  now(): number {
    return this.#now();
  }

  /**
   * The occurrences of `name` in `text` (a file at `path`), with their
   * bindings when asked; unparsed when the worker could not.
   */
  occurrences(
    path: string,
    text: string,
    name: string,
    options: { bindings?: boolean } = {},
  ): Promise<NameOccurrences> {
    const bindings = options.bindings === true;
    const key = `${path}\0${name}\0${text.length}\0${textHash(text)}`;
    const kept = this.#answers.get(key);
    if (kept !== undefined && (kept.bindings || !bindings)) {
      this.#answers.delete(key); // most recently used last
      this.#answers.set(key, kept);
      return kept.answer;
    }
    const job = { path, text, name, deadlineMs: this.#fileMs };
    const answer = this.#jobs.run(bindings ? { ...job, bindings: true } : job).then((found) =>
      found ?? { language: null, outcome: "failed" as const, occurrences: [] }
    );
    this.#keep(key, { bindings, answer, counted: 0 });
    return answer;
  }

  // Keeps a parsed answer (one that was not parsed is asked again), within `REFERENCES_CACHE`.
  #keep(key: string, entry: KeptAnswer): void {
    const earlier = this.#answers.get(key);
    if (earlier !== undefined) this.#forget(key, earlier);
    this.#answers.set(key, entry);
    void entry.answer.then((found) => {
      if (this.#answers.get(key) !== entry) return;
      if (found.outcome !== "parsed") return void this.#answers.delete(key);
      entry.counted = found.occurrences.length;
      this.#kept += entry.counted;
      for (const [oldest, kept] of this.#answers) {
        const { answers, occurrences } = REFERENCES_CACHE;
        if (this.#answers.size <= answers && this.#kept <= occurrences) break;
        this.#forget(oldest, kept);
      }
    });
  }

  #forget(key: string, entry: KeptAnswer): void {
    this.#answers.delete(key);
    this.#kept -= entry.counted;
    entry.counted = 0;
  }

  /** Ends the workers; files asked for afterwards stay unparsed. */
  close(): void {
    this.#jobs.close();
  }
}

// A parser's answer kept: whether it has bindings, and the occurrences counted for it.
type KeptAnswer = { bindings: boolean; answer: Promise<NameOccurrences>; counted: number };

// Two 32-bit hashes of a text (FNV-1a and a multiplicative one), as one key part.
function textHash(text: string): string {
  let fnv = 0x811c9dc5;
  let mul = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ unit, 0x01000193);
    mul = (Math.imul(mul, 31) + unit) | 0;
  }
  return `${(fnv >>> 0).toString(36)}.${(mul >>> 0).toString(36)}`;
}

/**
 * Whether the name at `offset` of line `line` of `text` is code (not in a
 * comment or a string): true when the file has no grammar or was not parsed.
 * The file is parsed with bindings, the answer the name's resolution reuses.
 */
export async function isCodeAt(
  parser: ReferenceParser,
  file: { path: string; text: string },
  at: { name: string; line: number; offset: number },
): Promise<boolean> {
  const found = await parser.occurrences(file.path, file.text, at.name, { bindings: true });
  if (found.outcome !== "parsed") return true;
  return found.occurrences.some((occurrence) =>
    occurrence.line === at.line && occurrence.column === at.offset
  );
}

/** What `referencesOf` was given to look at a page's files with. */
export interface ReferencesOfOptions {
  name: string;
  includeDeclaration: boolean;
  text: (path: string) => Promise<string | null>;
  /** The declaration the name resolved to: only occurrences referring to it are kept. */
  resolved?: { resolver: NameResolver; target: ResolvedDeclaration };
  /**
   * The bytes the page is shown in: once the rows found fill them, later
   * files are not looked at (`full`); the page is cut before them and its
   * cursor resumes at them.
   */
  maxBytes?: number;
  /** When the page's parse budget ends (`parser.now()` time; default `parser.pageMs` from now). */
  deadline?: number;
  /**
   * Other names the resolved declaration is exported as (`export { NOTHING as nothing }`): their
   * occurrences referring to it are rows too.
   */
  aliases?: readonly string[];
  /**
   * By file, the names an import of the resolved declaration (its module's default export) gives
   * it there (`import plugin from "./preset"`): their occurrences referring to it are rows too,
   * and a file neither listed here nor spelling the name or an alias on its lines has no rows.
   */
  importers?: ReadonlyMap<string, readonly string[]>;
}

/**
 * The references of `name` in one page of search matches: each file read
 * by `text` (null: not readable as text, its matches kept as `text`) and
 * parsed, up to `parser.workers` files side by side (and the next file read
 * meanwhile, so that no worker waits for a file's text), in the page's order,
 * until the rows fill `maxBytes` or the page's parse budget
 * (`parser.pageMs`) is spent (`full`: files after were left out).
 */
export async function referencesOf(
  parser: ReferenceParser,
  files: readonly FileMatches[],
  options: ReferencesOfOptions,
): Promise<{ files: ReferenceFile[]; full: boolean }> {
  const deadline = options.deadline ?? parser.now() + parser.pageMs;
  const found: ReferenceFile[] = [];
  const started: Promise<ReferenceFile | null>[] = [];
  const start = (index: number) => {
    if (index < files.length && started.length === index) {
      const file = fileReferences(parser, files[index], { ...options, deadline });
      // A file read ahead that a full page never awaits: its failure is not left unhandled.
      file.catch(() => {});
      started.push(file);
    }
  };
  let bytes = 0;
  for (let index = 0; index < files.length; index++) {
    for (let ahead = 0; ahead <= parser.workers; ahead++) start(index + ahead);
    const file = await started[index];
    if (file === null) continue;
    // The page's parse budget is spent: it ends before this file, whose matches the next page
    // parses, rather than answering them as text (comments and strings included). A page
    // that has no file yet keeps it as text, so every page moves on.
    if (file.parse === "budget" && found.length > 0) return { files: found, full: true };
    found.push(file);
    bytes += shownBytes(file);
    if (options.maxBytes !== undefined && bytes >= options.maxBytes) {
      return { files: found, full: index + 1 < files.length };
    }
  }
  return { files: found, full: false };
}

// At least the bytes a file's rows take on a page (`render/references_text.ts`): its
// `File:` line and each row's number, roles and text (cut at 2 KiB there); none without rows.
function shownBytes(file: ReferenceFile): number {
  if (file.lines.length === 0) return 0;
  let bytes = file.path.length + 9;
  for (const line of file.lines) {
    bytes += String(line.number).length + line.roles.join(",").length + 5 +
      Math.min(line.text.length, 2000);
  }
  return bytes;
}

// One file's references (none in a file of another language than a resolved name's).
async function fileReferences(
  parser: ReferenceParser,
  file: FileMatches,
  options: ReferencesOfOptions & { deadline: number },
): Promise<ReferenceFile | null> {
  const { resolved, name, includeDeclaration } = options;
  const shown = new Map(file.lines.map((line) => [line.number, line.text]));
  const tier = file.tier === undefined ? {} : { tier: file.tier };
  const asText = (parse: ReferenceFile["parse"]): ReferenceFile => ({
    path: file.path,
    parse,
    lines: file.lines.map((line) => ({ number: line.number, text: line.text, roles: ["text"] })),
    ...tier,
  });
  // A resolved TypeScript or JavaScript declaration is referred to from such files only (and
  // a name of another analyzed language from files of that language, a local or a name private
  // to its file from that file only): the others have no rows and need no parse, yet the
  // page's cursor still passes them.
  if (resolved !== undefined && !mayHold(resolved.target, file.path)) {
    return { path: file.path, parse: "parsed", lines: [], ...tier };
  }
  // A file matched only for a name a default import gives the declaration in another file.
  if (resolved !== undefined && !mayUse(file, options)) {
    return { path: file.path, parse: "parsed", lines: [], ...tier };
  }
  if (parser.now() > options.deadline) return asText("budget");
  const text = await options.text(file.path);
  if (text === null) return unparsedOf(file, options, asText);
  const parsed = resolved === undefined
    ? await parser.occurrences(file.path, text, name)
    : await resolved.resolver.analysis(file.path, name) ??
      { language: null, outcome: "failed" as const, occurrences: [] };
  if (parsed.outcome !== "parsed") {
    return asText(parsed.outcome === "none" ? "no_grammar" : parsed.outcome);
  }
  const lines = await parsedLines(parsed.occurrences, {
    path: file.path,
    name,
    shown,
    includeDeclaration,
    resolved,
  });
  if (resolved === undefined) return { path: file.path, parse: "parsed", lines, ...tier };
  const renamed = await aliasLines(parsed.occurrences, { path: file.path, text, shown, resolved });
  const exported = await exportedLines({ path: file.path, text, shown, resolved }, options);
  const merged = mergedLines(mergedLines(lines, renamed), exported);
  return { path: file.path, parse: "parsed", lines: merged, ...tier };
}

// A candidate file too large to parse (a bundle, a vendored release such as `.yarn/releases`):
// its whole-word lines as text, except for a resolved declaration, which none of them can be
// shown to refer to (its scopes, imports and receivers unread): then it has no rows, precision
// before recall.
function unparsedOf(
  file: FileMatches,
  options: ReferencesOfOptions,
  asText: (parse: ReferenceFile["parse"]) => ReferenceFile,
): ReferenceFile {
  if (options.resolved === undefined) return asText("large");
  const tier = file.tier === undefined ? {} : { tier: file.tier };
  return { path: file.path, parse: "large", lines: [], ...tier };
}

// The lines of a file where the resolved declaration is used under another name it is exported
// as (`import { nothing } from "./immer"` of `export { NOTHING as nothing }`).
async function exportedLines(
  at: {
    path: string;
    text: string;
    shown: ReadonlyMap<number, string>;
    resolved: { resolver: NameResolver; target: ResolvedDeclaration };
  },
  options: ReferencesOfOptions,
): Promise<ReferenceLine[]> {
  const found: ReferenceLine[] = [];
  const imported = options.importers?.get(at.path) ?? [];
  for (const alias of [...options.aliases ?? [], ...imported]) {
    if (!new RegExp(wholeWordPattern(alias)).test(at.text)) continue;
    const analysis = await at.resolved.resolver.analysis(at.path, alias);
    found.push(
      ...await parsedLines(analysis?.occurrences ?? [], {
        ...at,
        name: alias,
        includeDeclaration: options.includeDeclaration,
      }),
    );
  }
  return found;
}

// The lines of a file where the resolved declaration is used under the name an import of it
// gives it (`import { render as renderPage }`: `renderPage()`), found when the import is shown.
async function aliasLines(
  occurrences: readonly NameOccurrence[],
  at: {
    path: string;
    text: string;
    shown: ReadonlyMap<number, string>;
    resolved: { resolver: NameResolver; target: ResolvedDeclaration };
  },
): Promise<ReferenceLine[]> {
  const { path, shown, resolved } = at;
  const aliases = new Set<string>();
  for (const occurrence of occurrences) {
    const { binding } = occurrence;
    if (binding?.kind !== "import" || !binding.alias || !shown.has(occurrence.line)) continue;
    const name = binding.imported;
    if (await refersTo(resolved.resolver, { path, name, occurrence }, resolved.target)) {
      aliases.add(binding.alias);
    }
  }
  if (aliases.size === 0) return [];
  const texts = at.text.split("\n");
  const found: ReferenceLine[] = [];
  for (const alias of aliases) {
    const analysis = await resolved.resolver.analysis(path, alias);
    const uses = await parsedLines(analysis?.occurrences ?? [], {
      path,
      name: alias,
      shown: new Map(texts.map((text, index) => [index + 1, text.replace(/\r$/, "")])),
      includeDeclaration: true,
      resolved,
    });
    found.push(...uses);
  }
  return found;
}

// Two files' worth of rows as one, by line (a line's roles once each).
function mergedLines(lines: ReferenceLine[], more: ReferenceLine[]): ReferenceLine[] {
  if (more.length === 0) return lines;
  const byLine = new Map(lines.map((line) => [line.number, { ...line, roles: [...line.roles] }]));
  for (const line of more) {
    const kept = byLine.get(line.number);
    if (kept === undefined) byLine.set(line.number, line);
    else for (const role of line.roles) if (!kept.roles.includes(role)) kept.roles.push(role);
  }
  return [...byLine.values()].sort((a, b) => a.number - b.number);
}

// Whether a candidate file may refer to the resolved declaration under its name, an alias it is
// exported as, or the name its default import there gives it (always, when no file imports it
// by default: every candidate line spells the name or an alias then).
function mayUse(file: FileMatches, options: ReferencesOfOptions): boolean {
  const { importers } = options;
  if (importers === undefined || importers.size === 0 || importers.has(file.path)) return true;
  const words = new RegExp(
    [options.name, ...options.aliases ?? []].map((word) => wholeWordPattern(word)).join("|"),
  );
  return file.lines.some((line) => words.test(line.text));
}

function mayHold(target: ResolvedDeclaration, path: string): boolean {
  const own = ownFileOf(target);
  if (own !== null) return path === own;
  return target.scope === undefined
    ? isScriptPath(path)
    : mayHoldScoped({ path: target.path, scope: target.scope }, path);
}

/**
 * The one file a resolved declaration can be referred to from, or null: a
 * TypeScript or JavaScript local or parameter (block and function scopes
 * end in their file) or private class member, a local or a name private to its file of another
 * analyzed language. Its references are that file's lines only.
 */
export function ownFileOf(target: ResolvedDeclaration): string | null {
  if (target.private !== undefined) return target.path;
  if (target.scope === undefined) return target.via === "scope" ? target.path : null;
  const { reach } = target.scope;
  return reach === "local" || reach === "file" ? target.path : null;
}

/** Most bytes of a candidate file read for parsing (the extraction's own limit). */
export const REFERENCES_MAX_FILE_BYTES = MAX_PARSED_BYTES;

// The rows of a parsed file: the shown lines holding occurrences (referring to the resolved
// declaration, when there is one), each with its roles.
async function parsedLines(
  occurrences: readonly NameOccurrence[],
  at: {
    path: string;
    name: string;
    shown: ReadonlyMap<number, string>;
    includeDeclaration: boolean;
    resolved?: { resolver: NameResolver; target: ResolvedDeclaration };
  },
): Promise<ReferenceLine[]> {
  const { shown, includeDeclaration, resolved, path, name } = at;
  const byLine = new Map<number, RowRole[]>();
  for (const occurrence of occurrences) {
    // Only the lines of this page: a continued page starts after a line of its first file.
    if (!shown.has(occurrence.line)) continue;
    if (!includeDeclaration && occurrence.role === "definition") continue;
    if (
      resolved !== undefined &&
      !await refersTo(resolved.resolver, { path, name, occurrence }, resolved.target)
    ) {
      continue;
    }
    const roles = byLine.get(occurrence.line) ?? [];
    if (!roles.includes(occurrence.role)) roles.push(occurrence.role);
    byLine.set(occurrence.line, roles);
  }
  return [...byLine].sort((a, b) => a[0] - b[0]).map(([number, roles]) => ({
    number,
    text: shown.get(number)!,
    roles,
  }));
}
