/**
 * The symbols of one indexed commit: names are found in `symbol_names`
 * (by exact name or prefix through its unique index, or by a test over
 * every name), then the definitions of those names in blobs the commit
 * holds, each at every path that holds its blob.
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
}

// Every symbol name of an index file, read once and again only after a build added names.
const nameLists = new WeakMap<IndexDatabase, { highest: number; names: Row[] }>();

type Row = { id: number; name: string };

function allNames(index: IndexDatabase): Row[] {
  const highest = (index.db.prepare("SELECT MAX(id) AS id FROM symbol_names").get() as {
    id: number | null;
  }).id ?? 0;
  const cached = nameLists.get(index);
  if (cached !== undefined && cached.highest === highest) return cached.names;
  const names = index.db.prepare("SELECT id, name FROM symbol_names").all() as Row[];
  nameLists.set(index, { highest, names });
  return names;
}

/** The symbol tables of one commit. */
export class CommitSymbols {
  #paths: readonly string[];
  #blobIds: Uint32Array;
  #filesOfBlob: Map<number, number[]> | null = null;
  #index: IndexDatabase;
  #exact: StatementSync;
  #prefix: StatementSync;
  #rows: StatementSync;

  /** The symbols of the files `paths` whose blobs are `blobIds` (same order). */
  constructor(index: IndexDatabase, files: { paths: readonly string[]; blobIds: Uint32Array }) {
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
  }

  /** The names `match` selects (at most `limit`), with their numbers. */
  names(match: NameMatch, options: { limit: number }): { id: number; name: string }[] {
    if ("exact" in match) return this.#exact.all(match.exact) as Row[];
    if ("prefix" in match) {
      return this.#prefix.all(match.prefix, match.prefix + PREFIX_END, options.limit) as Row[];
    }
    const out: Row[] = [];
    for (const row of allNames(this.#index)) {
      if (!match.test(row.name)) continue;
      out.push(row);
      if (out.length >= options.limit) break;
    }
    return out;
  }

  /** The definitions of `names` in this commit's files (at most `limit`). */
  definitions(
    names: readonly { id: number; name: string }[],
    options: { limit: number },
  ): SymbolDefinition[] {
    const files = this.#files();
    const out: SymbolDefinition[] = [];
    for (const { id, name } of names) {
      for (const row of this.#rows.iterate(id) as Iterable<SymbolRow>) {
        for (const file of files.get(row.blob) ?? []) {
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
    const literals = match.ignoreCase
      ? match.literals.map((literal) => literal.toLowerCase())
      : match.literals;
    const names: Row[] = [];
    for (const row of allNames(this.#index)) {
      const name = match.ignoreCase ? row.name.toLowerCase() : row.name;
      if (!literals.some((literal) => name.includes(literal)) || !match.test(row.name)) continue;
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
