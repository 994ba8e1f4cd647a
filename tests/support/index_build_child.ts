/**
 * Builds the search index of one commit (symbols too, by the builder's
 * workers) and says `batch` after each write, so a test can SIGKILL the
 * build at a chosen point.
 * Usage: index_build_child.ts <mirror> <commit> <index file> <batch text bytes> [<held posting bytes>]
 *
 * @module
 */

import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";
import { buildCommitIndex } from "../../sourcegraph/search/build/index_builder.ts";
import { TrigramCollector } from "../../sourcegraph/search/index/trigrams.ts";
import { SymbolExtraction } from "../../sourcegraph/search/build/symbol_extraction.ts";

const [mirror, commit, path, batch, held] = Deno.args;
const index = new IndexDatabase(path);
const encoder = new TextEncoder();
const symbols = new SymbolExtraction();
await buildCommitIndex(index, {
  mirror,
  commit,
  collector: new TrigramCollector(),
  batchTextBytes: Number(batch),
  ...(held ? { maxHeldPostingBytes: Number(held) } : {}),
  onBatch: () => Deno.stdout.writeSync(encoder.encode("batch\n")),
  symbols,
});
symbols.close();
Deno.stdout.writeSync(encoder.encode("done\n"));
index.close();
