import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { type KnowledgeProject, withProject } from "../support/knowledge_project.ts";
import type { FakeRunner } from "../support/fake_runner.ts";
import { crashPoints } from "../support/crash_points.ts";

const KILLS = 22;
// Sources a round indexes: past the 64 from which sources are prepared in the indexing worker and
// three times its 32-source pipeline, so the kills land in the same stages as with more.
const SOURCES = 100;

function corpus(count: number, version: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    // The first half never changes, so its hits survive every refresh round.
    const tag = i % 2 === 0 ? "stablecorn" : `v${version}`;
    const lines = Array.from(
      { length: 20 },
      (_, j) => `zebracorn ${tag} file${i} line${j} parseHTTPRequest 项目知识`,
    );
    files[`src/m${String(i).padStart(4, "0")}.ts`] = lines.join("\n") + "\n";
  }
  return files;
}

// The published index must be whole: SQLite's own check passes, and the
// provider serves status and search from it.
async function assertPublishedIndexServes(
  project: KnowledgeProject,
  runner: FakeRunner,
): Promise<void> {
  const db = new DatabaseSync(join(project.cacheFolder, "index.sqlite3"), { readOnly: true });
  try {
    const check = db.prepare("PRAGMA integrity_check").get() as Record<string, string>;
    assertEquals(Object.values(check)[0], "ok");
  } finally {
    db.close();
  }
  const status = await runner.ok("status");
  assertEquals(status.indexed, true);
  assert((status.indexed_files as number) > 0, "published index has sources");
  const search = await runner.ok("search", { query: "stablecorn", limit: 3 });
  assertEquals((search.hits as unknown[]).length, 3, "published index is searchable");
}

async function timedIndex(runner: FakeRunner, mode: string): Promise<number> {
  const started = performance.now();
  await runner.ok("index", { mode });
  return performance.now() - started;
}

async function killDuringIndex(
  project: KnowledgeProject,
  mode: "rebuild" | "refresh",
  prepare: (round: number) => Promise<void>,
): Promise<void> {
  let runner = await project.admit();
  await prepare(-1);
  const duration = await timedIndex(runner, mode);
  await runner.kill();
  const { points, random } = crashPoints(`project_knowledge ${mode}`, { total: KILLS, sample: 11 });
  for (const round of points) {
    await prepare(round);
    runner = await project.admit();
    try {
      await assertPublishedIndexServes(project, runner);
      await runner.writeLine(JSON.stringify({
        jsonrpc: "2.0",
        id: 99,
        method: "tools/call",
        params: { name: "index", arguments: { mode } },
      }));
      // Spread the kill points over the whole run, from before the first
      // batch to around publication.
      const delay = (duration * 1.2 * round) / KILLS + random() * (duration / KILLS);
      await new Promise((resolve) => setTimeout(resolve, delay));
    } finally {
      await runner.kill(); // SIGKILL
    }
  }
  // What is left after the kills is read by the provider's code, served in this process.
  runner = await project.admit({ inProcess: true });
  try {
    await assertPublishedIndexServes(project, runner);
    // Recovery: temp builds left by the kills are removed by a later index
    // call once they are older than ten minutes.
    const leftovers = () =>
      [...Deno.readDirSync(project.cacheFolder)].map((entry) => entry.name).filter((name) =>
        name !== "index.sqlite3"
      );
    assert(leftovers().length > 0, "some kills landed inside a build");
    const old = new Date(Date.now() - 3_600_000);
    for (const name of leftovers()) Deno.utimeSync(join(project.cacheFolder, name), old, old);
    await runner.ok("index", { mode });
    assertEquals(leftovers(), []);
  } finally {
    await runner.kill();
  }
}

Deno.test(`SIGKILL at points of a rebuild (a sample of ${KILLS}) always leaves the last published index searchable`, () =>
  withProject(corpus(SOURCES, 0), async (project) => {
    await killDuringIndex(project, "rebuild", async () => {});
  }));

Deno.test(`SIGKILL at points of a refresh (a sample of ${KILLS}) always leaves the last published index searchable`, () =>
  withProject(corpus(SOURCES, 0), async (project) => {
    // Every round changes every file, so each refresh has real work to lose.
    await killDuringIndex(project, "refresh", async (round) => {
      await project.repo.write(corpus(SOURCES, round + 2));
    });
  }));
