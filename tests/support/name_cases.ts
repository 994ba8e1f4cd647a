/**
 * Cases of name resolution run as the steps of one test, with one parser
 * (its workers and their grammars started once) for all of them: its
 * answers are kept by path, text and name, so a case never sees another's
 * files.
 *
 * @module
 */

import { ReferenceParser } from "../../sourcegraph/service/name_references.ts";
import { definitionAt, resolveAt } from "../../sourcegraph/service/name_resolution.ts";
import { type NameAt, resolvedReferences, resolverOver } from "./resolved_references.ts";

/** A test file's cases and the parser they share. */
export interface NameCases {
  /** Adds a case (a step of the test `runCases` runs). */
  nameCase(name: string, fn: () => Promise<void>): void;
  /** The parser of the running cases. */
  sharedParser(): ReferenceParser;
  /** The lines of `files` that refer to the name at `at` (see `resolvedReferences`). */
  referencesIn(
    files: Record<string, string>,
    at: NameAt,
  ): ReturnType<typeof resolvedReferences>;
  /** Where the name at `at` resolves to (`resolveAt`), as `path:line`, or null. */
  resolvedIn(files: Record<string, string>, at: NameAt): Promise<string | null>;
  /** Where `definition` leads from the name at `at` (`definitionAt`), as `path:line`, or null. */
  definedIn(files: Record<string, string>, at: NameAt): Promise<string | null>;
  /** Runs every case as a step of `t`, with one parser made for them and closed after. */
  runCases(t: Deno.TestContext): Promise<void>;
}

/** A new, empty set of cases. */
export function nameCases(): NameCases {
  let parser: ReferenceParser | null = null;
  const cases: [string, () => Promise<void>][] = [];
  const sharedParser = (): ReferenceParser => {
    if (parser === null) throw new Error("the cases run inside the file's one test");
    return parser;
  };
  // The name's position: the column of its `nth` whole-word occurrence on its line.
  const positioned = (files: Record<string, string>, at: NameAt) => {
    const text = files[at.path].split("\n")[at.line - 1];
    const columns = [...text.matchAll(new RegExp(`\\b${at.name}\\b`, "g"))].map((m) => m.index);
    return { ...at, column: columns[at.nth ?? 0] };
  };
  const where = (found: { path: string; line: number } | null) =>
    found === null ? null : `${found.path}:${found.line}`;
  return {
    nameCase: (name, fn) => void cases.push([name, fn]),
    resolvedIn: async (files, at) =>
      where(await resolveAt(resolverOver(sharedParser(), files), positioned(files, at))),
    definedIn: async (files, at) =>
      where(await definitionAt(resolverOver(sharedParser(), files), positioned(files, at))),
    sharedParser,
    referencesIn: (files, at) => resolvedReferences(sharedParser(), files, at),
    async runCases(t) {
      // Generous deadlines, the wait before a parse begins too (a grammar's load counts toward it).
      parser = new ReferenceParser({ fileMs: 60_000, queuedMs: 60_000 });
      try {
        for (const [name, fn] of cases) await t.step(name, fn);
      } finally {
        parser.close();
        parser = null;
      }
    },
  };
}
