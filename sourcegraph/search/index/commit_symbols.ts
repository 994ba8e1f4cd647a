/**
 * The symbols of one indexed commit: names are found in `symbol_names`
 * (by exact name or prefix through its unique index, or by a test over
 * every name), then the definitions of those names in blobs the commit
 * holds, each at every path that holds its blob. A commit whose build ran
 * out of extraction time has the symbols of only some of its files
 * (`partial`).
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import type { IndexDatabase } from "./index_database.ts";
import { SYMBOL_KINDS, type SymbolKind } from "../../symbols/defined_symbol.ts";

/** How names are selected. */
export type NameMatch =
  | { exact: string }
  | { prefix: string }
  | { test: (name: string) => boolean };

/** One definition at one path of the commit. */
export interface SymbolDefinition {
  name: string;
  kind: SymbolKind;
  container: string | null;
  language: string;
  path: string;
  startLine: number;
  endLine: number;
}

// Above every UTF-8 sequence a name may continue with (U+10FFFF is F4 8F BF BF).
const PREFIX_END = "\u{10FFFF}";

/** Most names a search's definitions may come from before ranking gives up (too broad to mean much). */
export const RANK_MAX_NAMES = 2_000;

/** What a search asks of names to rank files by their definitions. */
export interface DefinitionMatch {
  /** Literals one of which every match contains. */
  literals: readonly string[];
  ignoreCase: boolean;
  /** Whether the search matches (somewhere in) a name. */
  test: (name: string) => boolean;
  /** Only these names count (`namesDefinedIn`); none: every name. */
  within?: ReadonlySet<number>;
}

/** Folders whose definitions alone count, as `namesDefinedIn` takes them. */
export interface DefiningFolders {
  /** The folders, without trailing slashes. */
  roots: readonly string[];
}

// Name sets kept per commit for distinct folder sets (a registration has one).
const MAX_CACHED_FOLDER_SETS = 4;

// Every symbol name of an index file, read once and again only after a
// build added names: the rows, and the names joined by newlines (with where
// each starts), so a literal is found with one indexOf over the whole list.
interface NameList {
  highest: number;
  names: Row[];
  joined: string;
  starts: Uint32Array;
  lowerJoined?: string;
}
const nameLists = new WeakMap<IndexDatabase, NameList>();
// The statement asking whether a build added names, prepared once per index (every search's
// ranking asks it: preparing it each time was about 3% of a search across sixty repositories).
const highestNames = new WeakMap<IndexDatabase, StatementSync>();

type Row = { id: number; name: string };

function nameList(index: IndexDatabase): NameList {
  let statement = highestNames.get(index);
  if (statement === undefined) {
    statement = index.db.prepare("SELECT MAX(id) AS id FROM symbol_names");
    highestNames.set(index, statement);
  }
  const highest = (statement.get() as { id: number | null }).id ?? 0;
  const cached = nameLists.get(index);
  if (cached !== undefined && cached.highest === highest) return cached;
  const names = index.db.prepare("SELECT id, name FROM symbol_names").all() as Row[];
  const starts = new Uint32Array(names.length);
  let offset = 0;
  names.forEach((row, i) => {
    starts[i] = offset;
    offset += row.name.length + 1;
  });
  const list = { highest, names, joined: names.map((row) => row.name).join("\n"), starts };
  nameLists.set(index, list);
  return list;
}

function allNames(index: IndexDatabase): Row[] {
  return nameList(index).names;
}

// The positions in `list` of the names holding `literal` (each once, ascending).
function namesHolding(
  list: NameList,
  literal: string,
  ignoreCase: boolean,
  limit = Infinity,
): number[] {
  const text = ignoreCase ? (list.lowerJoined ??= list.joined.toLowerCase()) : list.joined;
  if (text.length !== list.joined.length) {
    // Lower case changed some name's length (İ and kin): the offsets do not hold; name by name.
    const found: number[] = [];
    for (let i = 0; i < list.names.length && found.length < limit; i++) {
      if (list.names[i].name.toLowerCase().includes(literal)) found.push(i);
    }
    return found;
  }
  const found: number[] = [];
  for (let at = text.indexOf(literal); at !== -1 && found.length < limit;) {
    // The name holding offset `at`: the last start at or before it.
    const low = positionAt(list, at);
    found.push(low);
    const next = low + 1 < list.starts.length ? list.starts[low + 1] : text.length;
    at = text.indexOf(literal, next);
  }
  return found;
}

/** Most names a suggestion's scan of the name list takes from each piece it looks for. */
export const SUGGESTION_SCAN = 2_000;

// The positions in `list` of the names whose lower case starts with
// `lower` (at most `limit`, in list order).
function namesStarting(list: NameList, lower: string, limit: number): number[] {
  const text = list.lowerJoined ??= list.joined.toLowerCase();
  const found: number[] = [];
  if (text.length !== list.joined.length) {
    // Lower case changed some name's length: the offsets do not hold; name by name.
    for (let i = 0; i < list.names.length && found.length < limit; i++) {
      if (list.names[i].name.toLowerCase().startsWith(lower)) found.push(i);
    }
    return found;
  }
  if (list.names.length > 0 && text.startsWith(lower)) found.push(0);
  for (let at = text.indexOf(`\n${lower}`); at !== -1 && found.length < limit;) {
    found.push(positionAt(list, at + 1));
    at = text.indexOf(`\n${lower}`, at + 1);
  }
  return found;
}

// The position of the name starting at offset `at` of the joined list.
function positionAt(list: NameList, at: number): number {
  let low = 0;
  let high = list.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (list.starts[middle] <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** How many of a commit's files have no symbols in the index (its build's extraction budget ran out). */
export interface PartialSymbols {
  /** Files whose symbols were not extracted. */
  skippedFiles: number;
  /** Files of the commit. */
  files: number;
}

/** The symbol tables of one commit. */
export class CommitSymbols {
  /** Null when every file's symbols are in the index. */
  readonly partial: PartialSymbols | null;
  #paths: readonly string[];
  #blobIds: Uint32Array;
  #filesOfBlob: Map<number, number[]> | null = null;
  #index: IndexDatabase;
  #exact: StatementSync;
  #prefix: StatementSync;
  #rows: StatementSync;
  #namesOfBlob: StatementSync;
  #ofBlob: StatementSync;
  #definedIn = new Map<string, Set<number>>();
  #partialIn = new Map<string, PartialSymbols | null>();

  /**
   * The symbols of the files `paths` whose blobs are `blobIds` (same order),
   * `skipped` of which were left out of the index.
   */
  constructor(
    index: IndexDatabase,
    files: { paths: readonly string[]; blobIds: Uint32Array; skipped?: number },
  ) {
    const skipped = files.skipped ?? 0;
    this.partial = skipped > 0 ? { skippedFiles: skipped, files: files.paths.length } : null;
    this.#paths = files.paths;
    this.#blobIds = files.blobIds;
    this.#index = index;
    const db = index.db;
    this.#exact = db.prepare("SELECT id, name FROM symbol_names WHERE name = ?");
    this.#prefix = db.prepare(
      "SELECT id, name FROM symbol_names WHERE name >= ? AND name < ? ORDER BY name LIMIT ?",
    );
    this.#rows = db.prepare(
      "SELECT blob, start_line, end_line, kind, container, language FROM symbols WHERE name = ?",
    );
    this.#namesOfBlob = db.prepare("SELECT DISTINCT name FROM symbols WHERE blob = ?");
    this.#ofBlob = db.prepare(
      "SELECT n.name AS name, s.start_line, s.end_line, s.kind, s.container, s.language " +
        "FROM symbols s JOIN symbol_names n ON n.id = s.name WHERE s.blob = ? " +
        "ORDER BY s.start_line, s.end_line DESC, n.name LIMIT ?",
    );
  }

  /**
   * The numbers of the names defined in this commit's files under
   * `folders.roots` (kept for the next lookups): a lookup limited to path
   * groups selects and counts among these only, so names defined elsewhere
   * never take a place under its caps.
   */
  namesDefinedIn(folders: DefiningFolders): ReadonlySet<number> {
    const key = JSON.stringify(folders.roots);
    const cached = this.#definedIn.get(key);
    if (cached !== undefined) return cached;
    const under = (path: string) =>
      folders.roots.some((root) => path === root || path.startsWith(`${root}/`));
    const blobs = new Set<number>();
    this.#paths.forEach((path, file) => {
      if (under(path)) blobs.add(this.#blobIds[file]);
    });
    const names = new Set<number>();
    for (const blob of blobs) {
      for (const row of this.#namesOfBlob.iterate(blob) as Iterable<{ name: number }>) {
        names.add(row.name);
      }
    }
    if (this.#definedIn.size >= MAX_CACHED_FOLDER_SETS) this.#definedIn.clear();
    this.#definedIn.set(key, names);
    return names;
  }

  /**
   * `partial` counted over this commit's files under `folders.roots` only
   * (kept for the next lookups): null when each of those files' symbols is
   * in the index, so a registration limited to path groups is told of, and
   * learns the number of, the files it sees only.
   */
  partialIn(folders: DefiningFolders): PartialSymbols | null {
    if (this.partial === null) return null;
    const key = JSON.stringify(folders.roots);
    const cached = this.#partialIn.get(key);
    if (cached !== undefined) return cached;
    // The blobs a build left without symbols; the commit's files name them by number.
    const skippedBlobs = new Set(
      (this.#index.db.prepare("SELECT blob FROM symbols_skipped").all() as { blob: number }[])
        .map((row) => row.blob),
    );
    const under = (path: string) =>
      folders.roots.some((root) => path === root || path.startsWith(`${root}/`));
    let files = 0;
    let skippedFiles = 0;
    this.#paths.forEach((path, file) => {
      if (!under(path)) return;
      files++;
      if (skippedBlobs.has(this.#blobIds[file])) skippedFiles++;
    });
    const partial = skippedFiles > 0 ? { skippedFiles, files } : null;
    if (this.#partialIn.size >= MAX_CACHED_FOLDER_SETS) this.#partialIn.clear();
    this.#partialIn.set(key, partial);
    return partial;
  }

  /**
   * The names `match` selects (at most `limit`), with their numbers; with
   * `within`, only those names (`namesDefinedIn`).
   */
  names(
    match: NameMatch,
    options: { limit: number; within?: ReadonlySet<number> },
  ): { id: number; name: string }[] {
    const { within } = options;
    if ("exact" in match) {
      return (this.#exact.all(match.exact) as Row[]).filter((row) => within?.has(row.id) ?? true);
    }
    if ("prefix" in match && within === undefined) {
      return this.#prefix.all(match.prefix, match.prefix + PREFIX_END, options.limit) as Row[];
    }
    const kept = (row: Row) => within === undefined || within.has(row.id);
    if ("prefix" in match) {
      // The first in name order, as the prefix query gives them (among the kept names only).
      return allNames(this.#index)
        .filter((row) => kept(row) && row.name.startsWith(match.prefix))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, options.limit);
    }
    const out: Row[] = [];
    for (const row of allNames(this.#index)) {
      if (!kept(row) || !match.test(row.name)) continue;
      out.push(row);
      if (out.length >= options.limit) break;
    }
    return out;
  }

  /**
   * Names whose lower case starts with `lower` (at most `SUGGESTION_SCAN`
   * looked at, in the list's order); with `within`, only those names.
   */
  namesStartingCaseless(lower: string, within?: ReadonlySet<number>): string[] {
    const list = nameList(this.#index);
    return namesStarting(list, lower, SUGGESTION_SCAN)
      .filter((position) => within === undefined || within.has(list.names[position].id))
      .map((position) => list.names[position].name);
  }

  /**
   * Names holding one of `pieces` ignoring case (`pieces` in lower case; at
   * most `SUGGESTION_SCAN` names looked at for each), each once; with
   * `within`, only those names.
   */
  namesHoldingCaseless(pieces: readonly string[], within?: ReadonlySet<number>): string[] {
    const list = nameList(this.#index);
    const positions = new Set<number>();
    for (const piece of pieces) {
      for (const position of namesHolding(list, piece, true, SUGGESTION_SCAN)) {
        if (within === undefined || within.has(list.names[position].id)) positions.add(position);
      }
    }
    return [...positions].map((position) => list.names[position].name);
  }

  /** The definitions of `names` in this commit's files that `keep` accepts (at most `limit`). */
  definitions(
    names: readonly { id: number; name: string }[],
    options: { limit: number; keep?: (path: string) => boolean },
  ): SymbolDefinition[] {
    const files = this.#files();
    const keep = options.keep ?? (() => true);
    const out: SymbolDefinition[] = [];
    for (const { id, name } of names) {
      for (const row of this.#rows.iterate(id) as Iterable<SymbolRow>) {
        for (const file of files.get(row.blob) ?? []) {
          if (!keep(this.#paths[file])) continue;
          out.push({
            name,
            kind: SYMBOL_KINDS[row.kind] ?? "variable",
            container: row.container,
            language: row.language,
            path: this.#paths[file],
            startLine: row.start_line,
            endLine: row.end_line,
          });
          if (out.length >= options.limit) return out;
        }
      }
    }
    return out;
  }

  /**
   * The paths of this commit's files that define a name `match` accepts
   * (found among the names holding one of its literals), with those names;
   * null when more than `RANK_MAX_NAMES` names match.
   */
  definingPaths(match: DefinitionMatch): Map<string, string[]> | null {
    const list = nameList(this.#index);
    const positions = new Set<number>();
    for (const literal of match.literals) {
      if (literal.includes("\n")) continue; // no name holds a line break
      const folded = match.ignoreCase ? literal.toLowerCase() : literal;
      for (const position of namesHolding(list, folded, match.ignoreCase)) {
        if (match.within === undefined || match.within.has(list.names[position].id)) {
          positions.add(position);
        }
      }
      if (positions.size > RANK_MAX_NAMES * 8) return null; // far too broad to rank by
    }
    const names: Row[] = [];
    for (const position of [...positions].sort((a, b) => a - b)) {
      const row = list.names[position];
      if (!match.test(row.name)) continue;
      names.push(row);
      if (names.length > RANK_MAX_NAMES) return null;
    }
    const files = this.#files();
    const defining = new Map<string, string[]>();
    for (const { id, name } of names) {
      for (const row of this.#rows.iterate(id) as Iterable<SymbolRow>) {
        for (const file of files.get(row.blob) ?? []) {
          const path = this.#paths[file];
          const list = defining.get(path);
          if (list === undefined) defining.set(path, [name]);
          else if (!list.includes(name)) list.push(name);
        }
      }
    }
    return defining;
  }

  /** Whether the commit holds a file at `path`. */
  holds(path: string): boolean {
    return this.#paths.includes(path);
  }

  /**
   * The definitions of the file at `path` in line order (at most `limit`),
   * or null when the commit has no such file or its symbols were not
   * extracted (its build's time ran out).
   */
  fileSymbols(path: string, options: { limit: number }): SymbolDefinition[] | null {
    const file = this.#paths.indexOf(path);
    if (file === -1) return null;
    const blob = this.#blobIds[file];
    if (this.partial !== null) {
      const skipped = this.#index.db.prepare("SELECT 1 FROM symbols_skipped WHERE blob = ?");
      if (skipped.get(blob) !== undefined) return null;
    }
    const rows = this.#ofBlob.all(
      blob,
      options.limit,
    ) as (Omit<SymbolRow, "blob"> & { name: string })[];
    return rows.map((row) => ({
      name: row.name,
      kind: SYMBOL_KINDS[row.kind] ?? "variable",
      container: row.container,
      language: row.language,
      path,
      startLine: row.start_line,
      endLine: row.end_line,
    }));
  }

  // File positions by blob number, built on first use.
  #files(): Map<number, number[]> {
    if (this.#filesOfBlob === null) {
      const map = new Map<number, number[]>();
      this.#blobIds.forEach((blob, file) => {
        const list = map.get(blob);
        if (list) list.push(file);
        else map.set(blob, [file]);
      });
      this.#filesOfBlob = map;
    }
    return this.#filesOfBlob;
  }
}

interface SymbolRow {
  blob: number;
  start_line: number;
  end_line: number;
  kind: number;
  container: string | null;
  language: string;
}
