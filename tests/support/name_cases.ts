/**
 * Cases of name resolution run as the steps of one test, with one parser
 * (its workers and their grammars started once) for all of them: its
 * answers are kept by path, text and name, so a case never sees another's
 * files.
 *
 * @module
 */

import { ReferenceParser } from "../../sourcegraph/service/name_references.ts";
import { type NameAt, resolvedReferences } from "./resolved_references.ts";

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
  return {
    nameCase: (name, fn) => void cases.push([name, fn]),
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
