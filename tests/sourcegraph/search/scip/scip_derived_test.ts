/**
 * The SCIP wire subset and the derived form: an index encoded with the
 * descriptors decodes to the same documents; its derived form finds the
 * symbol at a position (the innermost occurrence), every occurrence of a
 * symbol across documents with its roles, its definition, kind and
 * signature; a document's local symbols stay its own. Hostile input is
 * refused with one code: `..`, absolute and empty path components, a
 * malformed range, a truncated body, groups nested a million deep. An index
 * read from a file a message at a time derives to the same form as the
 * index decoded whole, and more symbols than the cap is SCIP_TOO_COSTLY.
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import {
  deriveScip,
  isDerivedScip,
  parseStoredText,
  SCIP_ROLES,
  ScipDeriver,
  symbolAt,
  symbolDefinition,
  symbolSpots,
} from "../../../../sourcegraph/search/scip/scip_derived.ts";
import {
  countScipFile,
  decodeScipIndex,
  walkScipFile,
} from "../../../../sourcegraph/search/scip/scip_proto.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import { assert, assertEquals, assertThrows } from "../../../support/assert.ts";
import { deeplyNested, encodeScip, type FixtureDocument } from "../../../support/scip_fixtures.ts";

const COMMIT = "c".repeat(40);
const PARSE = "npm pkg 1.0.0 src/`a.ts`/parse().";

const DOCUMENTS: FixtureDocument[] = [
  {
    path: "src/b.ts",
    occurrences: [
      { range: [0, 9, 14], symbol: PARSE, roles: SCIP_ROLES.import },
      { range: [2, 0, 5], symbol: PARSE },
      { range: [3, 0, 3], symbol: "local 0", roles: SCIP_ROLES.definition },
      { range: [4, 2, 5], symbol: "local 0", roles: SCIP_ROLES.write },
    ],
  },
  {
    path: "src/a.ts",
    occurrences: [
      // The enclosing definition's range (several lines) and the name inside it.
      { range: [1, 0, 3, 1], symbol: "npm pkg 1.0.0 src/`a.ts`/", roles: SCIP_ROLES.definition },
      { range: [1, 16, 21], symbol: PARSE, roles: SCIP_ROLES.definition },
      { range: [2, 4, 7], symbol: "local 0", roles: SCIP_ROLES.definition },
    ],
    symbols: [{
      symbol: PARSE,
      kind: 17,
      documentation: ["```ts\nfunction parse(text: string): number\n```"],
    }],
  },
];

function derived() {
  return deriveScip(decodeScipIndex(encodeScip(DOCUMENTS)), { commit: COMMIT });
}

function refusal(fn: () => unknown): string {
  const error = assertThrows(fn, SourcegraphError);
  return error.code;
}

Deno.test("SCIP: an encoded index decodes to its documents, tool and occurrences", () => {
  const index = decodeScipIndex(encodeScip(DOCUMENTS));
  assertEquals(index.metadata?.toolInfo?.name, "test-indexer");
  assertEquals(index.documents.map((document) => document.relativePath), ["src/b.ts", "src/a.ts"]);
  assertEquals(index.documents[0].occurrences[0].range, [0, 9, 14]);
  assertEquals(index.documents[0].occurrences[0].symbolRoles, SCIP_ROLES.import);
});

Deno.test("SCIP: the symbol at a position, its occurrences across files, its definition and facts", () => {
  const scip = derived();
  assertEquals(scip.paths, ["src/a.ts", "src/b.ts"]);
  assertEquals(scip.source, { tool: "test-indexer", version: "1.2.3", commit: COMMIT });
  const parse = symbolAt(scip, { path: "src/b.ts", line: 2, character: 3 });
  assert(parse !== null);
  assertEquals(scip.symbols[parse].symbol, PARSE);
  // Inside the enclosing range and the name: the name, the innermost.
  assertEquals(symbolAt(scip, { path: "src/a.ts", line: 1, character: 18 }), parse);
  assertEquals(
    symbolAt(scip, { path: "src/b.ts", line: 2, character: 5 }),
    null,
    "end is exclusive",
  );
  assertEquals(symbolAt(scip, { path: "src/c.ts", line: 0, character: 0 }), null);
  assertEquals(
    symbolSpots(scip, parse).map((spot) => [spot.path, spot.line, spot.roles]),
    [["src/a.ts", 1, SCIP_ROLES.definition], ["src/b.ts", 0, SCIP_ROLES.import], [
      "src/b.ts",
      2,
      0,
    ]],
  );
  assertEquals(symbolDefinition(scip, parse)?.path, "src/a.ts");
  assertEquals(scip.symbols[parse].kind, "Function");
  assertEquals(scip.symbols[parse].signature, "function parse(text: string): number");
  assert(isDerivedScip(JSON.parse(JSON.stringify(scip))));
});

Deno.test("SCIP: local symbols of two documents are two symbols", () => {
  const scip = derived();
  const inB = symbolAt(scip, { path: "src/b.ts", line: 3, character: 1 })!;
  const inA = symbolAt(scip, { path: "src/a.ts", line: 2, character: 5 })!;
  assert(inA !== inB);
  assertEquals(symbolSpots(scip, inB).map((spot) => spot.path), ["src/b.ts", "src/b.ts"]);
  assertEquals(symbolSpots(scip, inA).map((spot) => spot.path), ["src/a.ts"]);
});

Deno.test("SCIP: paths outside the repository and malformed ranges are refused", () => {
  for (const path of ["../etc/passwd", "src/../../x.ts", "/abs/a.ts", "./a.ts", "a//b.ts", ""]) {
    const bytes = encodeScip([{ path, occurrences: [] }]);
    const code = refusal(() => deriveScip(decodeScipIndex(bytes), { commit: COMMIT }));
    assertEquals(code, "SCIP_PATH_INVALID", path);
  }
  for (const range of [[1, 2], [1, 2, 3, 4, 5], [3, 5, 2], [2, 0, 1, 0], [-1, 0, 1]]) {
    const bytes = encodeScip([{ path: "a.ts", occurrences: [{ range, symbol: "local 1" }] }]);
    const code = refusal(() => deriveScip(decodeScipIndex(bytes), { commit: COMMIT }));
    assertEquals(code, "SCIP_INVALID", JSON.stringify(range));
  }
});

Deno.test("SCIP: truncated and deeply nested bodies fail to decode (the upload refuses them)", () => {
  const bytes = encodeScip(DOCUMENTS);
  for (const cut of [1, 7, bytes.length >> 1, bytes.length - 1]) {
    assertThrows(() => decodeScipIndex(bytes.subarray(0, cut)), Error);
  }
  assertThrows(() => decodeScipIndex(deeplyNested(1_000_000)), Error);
});

Deno.test("SCIP: a stored form with a wrong shape is not taken for an index", () => {
  const scip = JSON.parse(JSON.stringify(derived()));
  assert(isDerivedScip(scip));
  for (
    const damage of [
      (s: Record<string, unknown>) => delete s.paths,
      (s: Record<string, unknown>) => (s.format = 99),
      (s: { byDocument: number[][] }) => s.byDocument[0].push(1),
      (s: { bySymbol: number[][] }) => (s.bySymbol[0] = [99, 0, 0, 0, 0, 0]),
      (s: { byDocument: number[][] }) => (s.byDocument[0][4] = 1_000_000),
    ]
  ) {
    const copy = JSON.parse(JSON.stringify(scip));
    damage(copy);
    assert(!isDerivedScip(copy), damage.toString());
  }
});

// The derived form of the index in `bytes`, read from a file a message at a time.
async function derivedFromFile(
  bytes: Uint8Array,
  options: { maxSymbols?: number } = {},
): Promise<{ scip: ReturnType<typeof deriveScip> | null; counts: unknown }> {
  const folder = await tempDir("scip-walk-");
  const path = join(folder, "index.scip");
  await Deno.writeFile(path, bytes);
  const fd = fs.openSync(path, "r");
  try {
    const counts = countScipFile(fd);
    const deriver = new ScipDeriver({ commit: COMMIT, ...options });
    walkScipFile(fd, deriver);
    const decoder = new TextDecoder();
    let text = "";
    deriver.finish((chunk) => text += decoder.decode(chunk, { stream: true }));
    return { scip: parseStoredText(text + decoder.decode()), counts };
  } finally {
    fs.closeSync(fd);
    await removeDir(folder);
  }
}

Deno.test("SCIP: an index read from a file a message at a time derives as the whole index does", async () => {
  // One path in two documents, which the derived form merges.
  const documents = [...DOCUMENTS, {
    path: "src/b.ts",
    occurrences: [{ range: [9, 0, 1], symbol: PARSE }],
  }];
  const bytes = encodeScip(documents);
  const { scip, counts } = await derivedFromFile(bytes);
  assertEquals(counts, { documents: 3, occurrences: 8 });
  const whole = deriveScip(decodeScipIndex(bytes), { commit: COMMIT });
  assert(scip !== null);
  assertEquals(scip.paths, whole.paths);
  assertEquals(scip.source, whole.source);
  const spots = (derived: typeof whole, at: { path: string; line: number; character: number }) =>
    symbolSpots(derived, symbolAt(derived, at)!);
  for (
    const at of [{ path: "src/b.ts", line: 9, character: 0 }, {
      path: "src/a.ts",
      line: 2,
      character: 5,
    }]
  ) {
    assertEquals(spots(scip, at), spots(whole, at));
    assert(spots(scip, at).length > 0);
  }
  const parse = symbolAt(scip, { path: "src/b.ts", line: 2, character: 1 })!;
  assertEquals(symbolDefinition(scip, parse)?.path, "src/a.ts");
  assertEquals(scip.symbols[parse].signature, "function parse(text: string): number");
  // A file cut short is refused, wherever the cut falls.
  for (const cut of [1, bytes.length >> 1, bytes.length - 1]) {
    await assertRejectsAny(() => derivedFromFile(bytes.subarray(0, cut)));
  }
});

Deno.test("SCIP: more symbols than the cap is SCIP_TOO_COSTLY", async () => {
  const bytes = encodeScip([{
    path: "a.ts",
    occurrences: Array.from(
      { length: 20 },
      (_, i) => ({ range: [i, 0, 1], symbol: `npm p 1 s${i}.` }),
    ),
  }]);
  assertEquals((await derivedFromFile(bytes, { maxSymbols: 20 })).scip?.symbols.length, 20);
  const error = await derivedFromFile(bytes, { maxSymbols: 19 }).then(
    () => null,
    (error) => error,
  );
  assert(error instanceof SourcegraphError, String(error));
  assertEquals(error.code, "SCIP_TOO_COSTLY");
});

async function assertRejectsAny(fn: () => Promise<unknown>): Promise<void> {
  const outcome = await fn().then(() => "resolved", () => "rejected");
  assertEquals(outcome, "rejected");
}
