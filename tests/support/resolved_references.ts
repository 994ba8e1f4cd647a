/**
 * The search-based references of a name over a set of files, as the
 * service computes them but without an index: the name at a position is
 * resolved (`resolveAt`), then every file's occurrences of it are kept when
 * they refer to that declaration (`refersTo`).
 *
 * @module
 */

import type { ReferenceParser } from "../../sourcegraph/service/name_references.ts";
import {
  NameResolver,
  refersTo,
  resolveAt,
  type ResolvedDeclaration,
} from "../../sourcegraph/service/name_resolution.ts";

/** A resolver whose repository is `files` (path to text). */
export function resolverOver(
  parser: ReferenceParser,
  files: Readonly<Record<string, string>>,
): NameResolver {
  return new NameResolver(parser, {
    text: (path) => Promise.resolve(files[path] ?? null),
    exists: (path) => Promise.resolve(path in files),
  });
}

/** Where the name is asked from. */
export interface NameAt {
  path: string;
  name: string;
  line: number;
  /** Which whole-word occurrence of the name on the line (default the first). */
  nth?: number;
  /** Taken as a member whose name other types declare too. */
  shared?: boolean;
}

/**
 * Resolves the name at `at` over `files` with `parser`, then lists the
 * `path:line` of every occurrence in the files (sorted by path) that refers
 * to it, each line once.
 */
export async function resolvedReferences(
  parser: ReferenceParser,
  files: Record<string, string>,
  at: NameAt,
): Promise<{ target: ResolvedDeclaration | null; lines: string[] }> {
  const resolver = resolverOver(parser, files);
  const text = files[at.path].split("\n")[at.line - 1];
  const columns = [...text.matchAll(new RegExp(`\\b${at.name}\\b`, "g"))].map((m) => m.index);
  const resolved = await resolveAt(resolver, { ...at, column: columns[at.nth ?? 0] });
  if (resolved === null) return { target: null, lines: [] };
  const target = at.shared === undefined ? resolved : { ...resolved, shared: at.shared };
  const lines: string[] = [];
  for (const path of Object.keys(files).sort()) {
    const analysis = await resolver.analysis(path, at.name);
    for (const occurrence of analysis?.occurrences ?? []) {
      if (await refersTo(resolver, { path, name: at.name, occurrence }, target)) {
        lines.push(`${path}:${occurrence.line}`);
      }
    }
  }
  return { target, lines: [...new Set(lines)] };
}
