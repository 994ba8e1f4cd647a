/**
 * Test helper program: opens the control store at the path given (which
 * migrates it) and prints its schema version, or the refusal's message.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { ControlStore } from "../../sourcegraph/store/control_store.ts";

const [path] = Deno.args;
try {
  new ControlStore(path).close();
  const db = new DatabaseSync(path);
  console.log((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  db.close();
} catch (error) {
  console.log(`refused: ${(error as Error).message}`);
}
