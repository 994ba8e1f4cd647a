/**
 * Test helper program: stores two SCIP indexes of one commit in turn
 * (`scip_store.ts`), each about a MiB, forever, until killed. Arguments: the
 * data folder written, and a data folder holding the two indexes to store as
 * those of repositories 1 and 2 (read back there rather than derived again, which
 * took most of the program's start).
 *
 * @module
 */

import { deriveScip } from "../../sourcegraph/search/scip/scip_derived.ts";
import { decodeScipIndex } from "../../sourcegraph/search/scip/scip_proto.ts";
import { ScipIndexes } from "../../sourcegraph/search/scip/scip_store.ts";
import { encodeScip } from "./scip_fixtures.ts";

/** The commit the writer stores. */
export const WRITER_COMMIT = "d".repeat(40);

/** One of the writer's two indexes: `tool` names which. */
export function writerIndex(tool: string): ReturnType<typeof deriveScip> {
  const documents = Array.from({ length: 200 }, (_, i) => ({
    path: `src/file_${i}.ts`,
    occurrences: Array.from({ length: 100 }, (_, line) => ({
      range: [line, 0, 5],
      symbol: `npm pkg 1.0.0 src/name_${line % 7}.`,
    })),
  }));
  const index = decodeScipIndex(encodeScip(documents, { name: tool, version: "1" }));
  return deriveScip(index, { commit: WRITER_COMMIT });
}

if (import.meta.main) {
  const indexes = new ScipIndexes(Deno.args[0]);
  const stored = new ScipIndexes(Deno.args[1]);
  const both = [1, 2].map((id) => stored.get(id, WRITER_COMMIT)!);
  await Deno.stdout.write(new TextEncoder().encode("writing\n"));
  for (let i = 0;; i++) indexes.put(1, both[i % 2]);
}
