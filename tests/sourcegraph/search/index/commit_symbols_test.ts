/**
 * Which files define a name a search matches, found with one scan of the
 * joined name list: boundaries between names, several literals, case
 * folding (also when lower case changes a name's length), and the cap that
 * turns ranking off; the bounded scans that suggest names to a lookup that
 * found nothing.
 */

import { join } from "node:path";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import {
  CommitSymbols,
  RANK_MAX_NAMES,
  SUGGESTION_SCAN,
} from "../../../../sourcegraph/search/index/commit_symbols.ts";
import { assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";

async function withSymbols(
  names: string[],
  fn: (symbols: CommitSymbols) => void,
): Promise<void> {
  const dir = await tempDir("sg-commit-symbols-");
  const index = new IndexDatabase(join(dir, "index.sqlite3"));
  try {
    const insertName = index.db.prepare("INSERT INTO symbol_names(id, name) VALUES (?, ?)");
    const insert = index.db.prepare(
      "INSERT INTO symbols(name, blob, start_line, end_line, kind, container, language) " +
        "VALUES (?, ?, 1, 1, 0, NULL, 'c')",
    );
    // Name i is defined in blob i, which is the file f<i>.c.
    names.forEach((name, i) => {
      insertName.run(i + 1, name);
      insert.run(i + 1, i + 1);
    });
    const paths = names.map((_, i) => `f${i}.c`);
    fn(new CommitSymbols(index, { paths, blobIds: Uint32Array.from(names, (_, i) => i + 1) }));
  } finally {
    index.close();
    await removeDir(dir);
  }
}

const defining = (symbols: CommitSymbols, literals: string[], ignoreCase = false) => {
  const found = symbols.definingPaths({
    literals,
    ignoreCase,
    test: (name) =>
      literals.some((literal) =>
        ignoreCase ? name.toLowerCase().includes(literal.toLowerCase()) : name.includes(literal)
      ),
  });
  return found === null ? null : [...found].sort();
};

Deno.test("defining files: names holding the literal, never a match across two names", () =>
  withSymbols(["parse", "config", "parseConfig", "reparse", "Parser"], (symbols) => {
    assertEquals(defining(symbols, ["parse"]), [
      ["f0.c", ["parse"]],
      ["f2.c", ["parseConfig"]],
      ["f3.c", ["reparse"]],
    ]);
    // "parse\nconfig" spans two names in the joined list: nothing holds it.
    assertEquals(defining(symbols, ["eco"]), []);
    assertEquals(defining(symbols, ["Config", "Parser"]), [
      ["f2.c", ["parseConfig"]],
      ["f4.c", ["Parser"]],
    ]);
    assertEquals(defining(symbols, ["PARSE"], true)?.map(([path]) => path), [
      "f0.c",
      "f2.c",
      "f3.c",
      "f4.c",
    ]);
  }));

Deno.test("defining files: case folding that changes a name's length still finds the right names", () =>
  withSymbols(["İstanbul", "cityName", "nameOfCity"], (symbols) => {
    assertEquals(defining(symbols, ["NAME"], true)?.map(([path]) => path), ["f1.c", "f2.c"]);
  }));

Deno.test("defining files: more names than the ranking cap turn ranking off", () =>
  withSymbols(
    Array.from({ length: RANK_MAX_NAMES + 1 }, (_, i) => `item${i}`),
    (symbols) => {
      assertEquals(defining(symbols, ["item"]), null);
      assertEquals(defining(symbols, ["item42"])?.length, 11); // item42, item420…item429
    },
  ));

Deno.test("suggestions: names starting with a query ignoring case, at name starts only, within a set", async () => {
  const names = ["parseConfig", "ParseLine", "reparse", "parse", "config"];
  await withSymbols(names, (symbols) => {
    assertEquals(symbols.namesStartingCaseless("parse").sort(), [
      "ParseLine",
      "parse",
      "parseConfig",
    ]);
    // Only the names numbered in `within` (name i has number i + 1).
    assertEquals(symbols.namesStartingCaseless("parse", new Set([1, 4])).sort(), [
      "parse",
      "parseConfig",
    ]);
    assertEquals(symbols.namesHoldingCaseless(["rse", "onf"]).sort(), [
      "ParseLine",
      "config",
      "parse",
      "parseConfig",
      "reparse",
    ]);
  });
  // A name whose lower case is longer (İ) makes the scan go name by name: the same answers.
  await withSymbols([...names, "İstanbul"], (symbols) => {
    assertEquals(symbols.namesStartingCaseless("parse").sort(), [
      "ParseLine",
      "parse",
      "parseConfig",
    ]);
    assertEquals(symbols.namesStartingCaseless("i̇st"), ["İstanbul"]);
  });
});

Deno.test("suggestions: each scan takes at most SUGGESTION_SCAN names", () =>
  withSymbols(
    Array.from({ length: SUGGESTION_SCAN + 10 }, (_, i) => `name${i}`),
    (symbols) => {
      assertEquals(symbols.namesStartingCaseless("name").length, SUGGESTION_SCAN);
      assertEquals(symbols.namesHoldingCaseless(["ame"]).length, SUGGESTION_SCAN);
    },
  ));
