/**
 * The admission probes run by initialize: SQLite FTS5 must really work
 * (create a table, insert a token, query it) and the symlink guard must
 * refuse symlinks on this host. There is no fallback engine and no weaker
 * guard; a failed probe fails admission with a safe diagnostic.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runGit } from "../shared/git.ts";
import { checkSymlinkGuard } from "../shared/safe_fs.ts";
import { KnowledgeError } from "./errors.ts";

/**
 * Creates an FTS5 table in memory, inserts a token and finds it again.
 * `module` names the virtual-table module (tests pass a missing one to see
 * what a SQLite build without FTS5 does).
 */
export function probeFts5(module = "fts5"): void {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(":memory:");
    db.exec(`CREATE VIRTUAL TABLE probe USING ${module}(terms)`);
    db.prepare("INSERT INTO probe(rowid, terms) VALUES (7, ?)").run("probe token");
    const row = db.prepare("SELECT rowid AS id FROM probe WHERE probe MATCH ?").get('"token"') as
      | { id: number }
      | undefined;
    if (row?.id !== 7) throw new Error("no match");
  } catch {
    throw new KnowledgeError("engine_unavailable", "sqlite fts5 is unavailable in this runtime");
  } finally {
    db?.close();
  }
}

// Git creates the fixture's symlinks: Deno refuses to create symlinks under
// path-scoped permissions, and the provider runs with nothing wider.
const FIXTURE_PATCH = [
  "diff --git a/real/file b/real/file",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/real/file",
  "@@ -0,0 +1 @@",
  "+probe",
  "diff --git a/real/link b/real/link",
  "new file mode 120000",
  "--- /dev/null",
  "+++ b/real/link",
  "@@ -0,0 +1 @@",
  "+file",
  "\\ No newline at end of file",
  "diff --git a/linked b/linked",
  "new file mode 120000",
  "--- /dev/null",
  "+++ b/linked",
  "@@ -0,0 +1 @@",
  "+real",
  "\\ No newline at end of file",
  "",
].join("\n");

/**
 * Proves in a fresh folder below the private `scratchDir` that the symlink
 * guard refuses a final symlink and a symlinked parent.
 */
export async function probeSymlinkGuardWithGit(scratchDir: string): Promise<void> {
  let dir: string | undefined;
  try {
    dir = fs.mkdtempSync(join(scratchDir, ".probe-"));
    await runGit(["init", "-q", "--template=", "."], { cwd: dir, timeoutMs: 10_000 });
    await runGit(["apply", "-"], {
      cwd: dir,
      timeoutMs: 10_000,
      stdin: new TextEncoder().encode(FIXTURE_PATCH),
    });
    checkSymlinkGuard(dir);
  } catch {
    throw new KnowledgeError(
      "engine_unavailable",
      "the symlink guard (O_NOFOLLOW-equivalent file access) is unsupported on this host",
    );
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
