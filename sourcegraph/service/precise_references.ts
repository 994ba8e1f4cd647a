/**
 * Precise references and definitions from a commit's uploaded SCIP index:
 * the symbol the index records at a position, then every occurrence of that
 * symbol in the repository's documents, each line with the roles SCIP gives
 * it (definition, import, write, read; `reference` when it gives none).
 * Only files the caller may see (`keep`: the path groups, the paths and the
 * globs) are named or counted. Pages hold the files of
 * `REFERENCES_FILES_PER_PAGE` in Git's path order and continue after a
 * page's last row, as the search-based references do.
 *
 * @module
 */

import type { SearchPosition } from "../search/query/compiled_search.ts";
import { comparePaths } from "../search/query/path_order.ts";
import {
  type DerivedScip,
  SCIP_ROLES,
  type ScipSource,
  symbolAt,
  symbolDefinition,
  symbolSpots,
} from "../search/scip/scip_derived.ts";
import { type ReferenceFile, REFERENCES_FILES_PER_PAGE, type RowRole } from "./name_references.ts";

/** One page of precise references (null: the index records no symbol at the position). */
export interface PreciseReferences {
  files: ReferenceFile[];
  /** Files (and lines) with references the caller may see, in all pages. */
  fileCount: number;
  matchCount: number;
  /** More files follow this page. */
  truncated: boolean;
}

/** A definition from a SCIP index: 1-based line and column (UTF-16 code units + 1). */
export interface PreciseDefinition {
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  symbol: string;
  kind: string | null;
  signature: string | null;
  /** The index's tool and the commit it was made from. */
  source: ScipSource;
}

/** The roles of a SCIP occurrence as row roles. */
export function scipRowRoles(roles: number): RowRole[] {
  const named: RowRole[] = [];
  if (roles & SCIP_ROLES.definition) named.push("definition");
  if (roles & SCIP_ROLES.import) named.push("import");
  if (roles & SCIP_ROLES.write) named.push("write");
  if (roles & SCIP_ROLES.read) named.push("read");
  return named.length === 0 ? ["reference"] : named;
}

/**
 * The page of references of the symbol at a 0-based position (UTF-16
 * character), or null when the index records none there.
 */
export async function preciseReferences(
  scip: DerivedScip,
  at: {
    path: string;
    line: number;
    character: number;
    includeDeclaration: boolean;
    keep: (path: string) => boolean;
    after?: SearchPosition;
    text: (path: string) => Promise<string | null>;
  },
): Promise<PreciseReferences | null> {
  const symbol = symbolAt(scip, at);
  if (symbol === null) return null;
  const byPath = new Map<string, Map<number, RowRole[]>>();
  for (const spot of symbolSpots(scip, symbol)) {
    if (!at.keep(spot.path)) continue;
    if (!at.includeDeclaration && (spot.roles & SCIP_ROLES.definition) !== 0) continue;
    const lines = byPath.get(spot.path) ?? new Map<number, RowRole[]>();
    const roles = lines.get(spot.line + 1) ?? [];
    for (const role of scipRowRoles(spot.roles)) if (!roles.includes(role)) roles.push(role);
    lines.set(spot.line + 1, roles);
    byPath.set(spot.path, lines);
  }
  const paths = [...byPath.keys()].sort(comparePaths);
  const matchCount = [...byPath.values()].reduce((sum, lines) => sum + lines.size, 0);
  const after = at.after;
  const remaining = after === undefined ? paths : paths.filter((path) => {
    const order = comparePaths(path, after.path);
    return order > 0 || (order === 0 && after.line !== null);
  });
  const shown = remaining.slice(0, REFERENCES_FILES_PER_PAGE);
  const files: ReferenceFile[] = [];
  for (const path of shown) {
    const text = (await at.text(path))?.split(/\r?\n/) ?? [];
    const lines = [...byPath.get(path)!].sort((a, b) => a[0] - b[0])
      .filter(([number]) => after?.path !== path || after.line === null || number > after.line)
      .map(([number, roles]) => ({ number, text: text[number - 1] ?? "", roles }));
    files.push({ path, parse: "parsed", lines });
  }
  return {
    files,
    fileCount: paths.length,
    matchCount,
    truncated: remaining.length > shown.length,
  };
}

/** The definition of the symbol at a 0-based position, when the index has both. */
export function preciseDefinition(
  scip: DerivedScip,
  at: { path: string; line: number; character: number },
): PreciseDefinition | null {
  const symbol = symbolAt(scip, at);
  if (symbol === null) return null;
  const spot = symbolDefinition(scip, symbol);
  if (spot === null) return null;
  const facts = scip.symbols[symbol];
  return {
    path: spot.path,
    line: spot.line + 1,
    column: spot.character + 1,
    endLine: spot.endLine + 1,
    endColumn: spot.endCharacter + 1,
    symbol: facts.symbol,
    kind: facts.kind,
    signature: facts.signature,
    source: scip.source,
  };
}
