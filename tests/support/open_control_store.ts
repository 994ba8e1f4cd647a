/**
 * Test helper program: opens the control store at the path given (which
 * migrates it) and prints its schema version, or the refusal's message.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { SqliteControlStore } from "../../sourcegraph/store/sqlite_control_store.ts";

const [path] = Deno.args;
try {
  new SqliteControlStore(path).close();
  // Waits like the store does: another opener may be closing the store, which
  // locks the file while it checkpoints the write-ahead log.
  const db = new DatabaseSync(path, { timeout: 10_000 });
  console.log((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  db.close();
} catch (error) {
  console.log(`refused: ${(error as Error).message}`);
}
