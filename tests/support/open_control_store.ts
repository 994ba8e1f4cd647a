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
  const db = new DatabaseSync(path);
  console.log((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  db.close();
} catch (error) {
  console.log(`refused: ${(error as Error).message}`);
}
