/**
 * Test helper program: says `opening`, opens the search index at the path
 * given (creating it when new), and prints `ok` or the refusal's message.
 *
 * @module
 */

import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";

const [path] = Deno.args;
console.log("opening");
try {
  new IndexDatabase(path).db.close();
  console.log("ok");
} catch (error) {
  console.log(`refused: ${(error as Error).message}`);
}
