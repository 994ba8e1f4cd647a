/**
 * Moves the single process's control store into PostgreSQL, once, before
 * the first replica starts on it:
 *
 *   deno run <flags> sourcegraph/move_to_postgres.ts
 *
 * It reads the same settings as the service: `SOURCEGRAPH_DATA` (the data
 * folder whose `control.sqlite3` and credential files are moved),
 * `SOURCEGRAPH_DATABASE_URL` (an empty database) and
 * `SOURCEGRAPH_CREDENTIAL_KEY_FILE` (the key the replicas will use). Stop
 * the single process first (a service holding the folder is named and refused). Prints what it copied; exits 1 with one line
 * when it cannot (the target not empty, the key unusable, the server
 * unreachable), having changed nothing. See README.md (Cluster).
 *
 * @module
 */

import * as fs from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { copyFromSqlite, type MovedScip } from "./store/postgres/copy_from_sqlite.ts";
import { SCIP_PIECE_BYTES } from "./store/postgres/pg_scip_indexes.ts";
import { ScipIndexes } from "./search/scip/scip_store.ts";
import { describeHolder, lockDataFolder } from "./startup/data_lock.ts";

function env(name: string): string | undefined {
  try {
    return process.env[name] || undefined;
  } catch {
    return undefined;
  }
}

// The uploaded SCIP indexes of the data folder, each read a piece at a time when copied.
function* scipIndexes(dataDir: string): Generator<MovedScip> {
  const indexes = new ScipIndexes(dataDir);
  for (const { repositoryId, commit, path } of indexes.stored()) {
    const digest = indexes.digest(repositoryId, commit);
    if (digest === null) continue;
    const size = fs.statSync(path).size;
    yield { repositoryId, commit, digest, size, pieces: () => filePieces(path) };
  }
}

function* filePieces(path: string): Generator<Uint8Array> {
  const fd = fs.openSync(path, "r");
  try {
    for (;;) {
      const piece = new Uint8Array(SCIP_PIECE_BYTES);
      const read = fs.readSync(fd, piece, 0, piece.length, null);
      if (read === 0) return;
      yield piece.subarray(0, read);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function fail(message: string): never {
  console.error(`move-to-postgres: ${message}`);
  process.exit(1);
}

const dataDir = resolve(env("SOURCEGRAPH_DATA") ?? ".sourcegraph");
const url = env("SOURCEGRAPH_DATABASE_URL");
const keyFile = env("SOURCEGRAPH_CREDENTIAL_KEY_FILE");
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  fail("SOURCEGRAPH_DATABASE_URL must be the postgres:// URL of an empty database");
}
if (!keyFile) fail("SOURCEGRAPH_CREDENTIAL_KEY_FILE must name the replicas' credential key file");
const path = join(dataDir, "control.sqlite3");
if (!fs.existsSync(path)) fail(`there is no control store at ${path}; set SOURCEGRAPH_DATA`);
// Held while copying: a service started meanwhile on this folder is refused.
const held = lockDataFolder(dataDir);
if (held.kind === "refused") fail(held.problem);
if (held.kind === "busy") {
  fail(`the data folder ${dataDir} is in use by ${describeHolder(held.holder)}; stop it first`);
}
try {
  const copied = await copyFromSqlite({ path, dataDir }, {
    url,
    keyFile: resolve(keyFile),
  }, { scip: scipIndexes(dataDir) });
  console.log(
    `moved ${copied.repositories} repositories (${copied.versions} retained versions), ` +
      `${copied.keys} personal keys, ${copied.credentials} credentials (sealed), ` +
      `${copied.jobs} idempotency records, ${copied.sessions} sessions, ` +
      `${copied.oauthClients} OAuth clients and ${copied.scipIndexes} SCIP indexes into PostgreSQL`,
  );
} catch (error) {
  const message = (error as Error).message.split("\n")[0];
  fail(url ? message.replaceAll(url, "<database URL>") : message);
}
