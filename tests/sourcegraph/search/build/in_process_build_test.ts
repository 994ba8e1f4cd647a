/**
 * Index builds in the test process (`tests/support/in_process_builder.ts`,
 * which the in-process services use): the builder process's build function
 * in a kept worker writes the same index (the same schema and rows in every
 * table) as the builder process, also on a worker's second build (its symbol workers kept); a
 * build stopped at once ends as a killed process does and leaves a worker
 * that builds nothing after it, so the next build starts a fresh one.
 */

import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { denoProgram } from "../../../../shared/child_lifetime.ts";
import type { BuildEvent } from "../../../../sourcegraph/search/build/build_main.ts";
import {
  builderCommand,
  type BuilderJob,
  type RunningBuilder,
} from "../../../../sourcegraph/search/build/builder_command.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { inProcessBuilder } from "../../../support/in_process_builder.ts";

const FILES = {
  "lib/shape.c": "struct point { int x; int y; };\nint area(struct point *p) { return 1; }\n",
  "tools/run.py": "class Runner:\n    def start(self):\n        return 1\n",
  "src/main.ts": "export function main(): void {}\nexport class App {}\n",
  "README.md": "# Shapes\n",
};

// The events of a build without their timings (the one thing two builds may differ in).
function untimed(stdout: string): unknown[] {
  return stdout.trim().split("\n").map((line) => {
    const event = JSON.parse(line) as BuildEvent;
    return event.event === "built" ? { ...event, ms: 0 } : event;
  });
}

// Every table's schema and rows, each table's rows in one order: tables first written while
// the symbol workers extract may take their first row (and their `sqlite_sequence` row, and
// their pages) in another order from build to build; what they hold is the same.
function indexContent(path: string): Record<string, string[]> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master ORDER BY type, name").all();
    const content: Record<string, string[]> = {};
    for (const { name, sql } of tables as { name: string; sql: string | null }[]) {
      const rows = sql?.startsWith("CREATE TABLE") || name === "sqlite_sequence"
        ? db.prepare(`SELECT * FROM "${name}"`).all().map((row) =>
          JSON.stringify(row, (_, value) => value instanceof Uint8Array ? [...value] : value)
        ).sort()
        : [];
      content[name] = [String(sql), ...rows];
    }
    return content;
  } finally {
    db.close();
  }
}

async function processBuild(job: BuilderJob): Promise<string> {
  const { args, env } = builderCommand(job);
  const output = await new Deno.Command(denoProgram(), { args, env }).output();
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout);
}

async function finished(build: RunningBuilder): Promise<{ code: number; stdout: string }> {
  const [stdout, stderr, status] = await Promise.all([
    new Response(build.stdout).text(),
    new Response(build.stderr).text(),
    build.status,
  ]);
  assertEquals(stderr, "");
  return { code: status.code, stdout };
}

// A source repository of two commits, and a folder for indexes.
async function withSource(
  fn: (source: { mirror: string; commits: string[]; folder: string }) => Promise<void>,
): Promise<void> {
  const parent = await tempDir("sg-in-process-build-");
  try {
    const repo = await createRepo(FILES, { parent, name: "source" });
    const first = await repo.git("rev-parse", "HEAD");
    await repo.write({ "src/main.ts": "export function main(): number { return 2; }\n" });
    const second = await repo.commit("second");
    const folder = join(parent, "index");
    await Deno.mkdir(folder);
    await fn({ mirror: join(repo.path, ".git"), commits: [second, first], folder });
  } finally {
    await removeDir(parent);
  }
}

// One source and one builder process build for both cases: each compares its in-process builds
// with that build (a builder process start and a source fewer than a fixture each).
Deno.test("in-process build: one source, one builder process build, case by case", (t) =>
  withSource(async ({ mirror, commits, folder }) => {
    const job = (name: string) => ({ mirror, indexFile: join(folder, name), commits });
    const expected = untimed(await processBuild(job("process.sqlite3")));
    assert(expected.some((event) => (event as BuildEvent).event === "built"));
    await t.step(
      "in-process build: the same index and events as the builder process, on a kept worker too",
      async () => {
        const content = indexContent(join(folder, "process.sqlite3"));
        for (const name of ["first.sqlite3", "second.sqlite3"]) {
          const built = await finished(inProcessBuilder(job(name)));
          assertEquals(built.code, 0);
          assertEquals(untimed(built.stdout), expected);
          assertEquals(indexContent(join(folder, name)), content, `${name} differs`);
        }
      },
    );
    await t.step(
      "in-process build: stopped at once, it ends as a killed process; the next build completes",
      async () => {
        const stopped = inProcessBuilder(job("index.sqlite3"));
        stopped.kill("SIGKILL");
        const ended = await finished(stopped);
        assertEquals(ended.code, 128 + 9);
        assertEquals(ended.stdout, "");
        stopped.kill("SIGKILL"); // nothing once ended
        const built = await finished(inProcessBuilder(job("index.sqlite3")));
        assertEquals(built.code, 0);
        assertEquals(untimed(built.stdout), expected);
      },
    );
  }));
