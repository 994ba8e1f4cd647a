/**
 * The index builder as the service starts it (`builderCommand`: the same
 * flags, permissions and malloc settings), in a process of its own: on one core (pinned with
 * `taskset`, V8 without background threads, symbols extracted on the
 * builder's own thread) and on every core (workers), it publishes the same
 * commit with the same symbols.
 */

import { join } from "node:path";
import { denoProgram } from "../../../../shared/child_lifetime.ts";
import type { BuildEvent } from "../../../../sourcegraph/search/build/build_main.ts";
import {
  BUILDER_MALLOC_TUNABLES,
  builderCommand,
  ONE_CORE_V8_FLAGS,
} from "../../../../sourcegraph/search/build/builder_command.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

const FILES = {
  "lib/shape.c": [
    "#include <stddef.h>",
    "struct point { int x; int y; };",
    "int area(struct point *p, size_t scale);",
    "static int (*hook)(int);",
    "int area(struct point *p, size_t scale)",
    "{",
    "  struct point *q = p;",
    "  return q->x * q->y * (int)scale;",
    "}",
  ].join("\n") + "\n",
  "tools/run.py": "class Runner:\n    def start(self):\n        return 1\n",
  "README.md": "# Shapes\n",
};

function v8Flags(args: readonly string[]): string[] {
  return args.find((arg) => arg.startsWith("--v8-flags="))!.slice("--v8-flags=".length)
    .split(",");
}

Deno.test("builder command: V8's background threads are left out on one core only", () => {
  const job = { mirror: "/m", indexFile: "/i/index.sqlite3", commits: ["c"] };
  for (const flag of ONE_CORE_V8_FLAGS) {
    assert(v8Flags(builderCommand({ ...job, cores: 1 }).args).includes(flag));
    assert(!v8Flags(builderCommand({ ...job, cores: 2 }).args).includes(flag));
  }
});

Deno.test("builder command: glibc applies every malloc setting it gives", async () => {
  const { env } = builderCommand({ mirror: "/m", indexFile: "/i/index.sqlite3", commits: ["c"] });
  assertEquals(env.GLIBC_TUNABLES, BUILDER_MALLOC_TUNABLES);
  // The dynamic loader Deno itself runs with lists the settings in effect; a
  // misspelt name would be ignored there, silently, as in the builder.
  const linked = new TextDecoder().decode(
    (await new Deno.Command("ldd", { args: [denoProgram()] }).output()).stdout,
  );
  const loader = /(\/\S*ld-linux\S*)/.exec(linked)?.[1];
  assert(loader, `no dynamic loader in: ${linked}`);
  const listed = new TextDecoder().decode(
    (await new Deno.Command(loader, { args: ["--list-tunables"], env }).output()).stdout,
  );
  const applied = (name: string) => new RegExp(`^${name}: (\\S+)`, "m").exec(listed)?.[1];
  assertEquals(applied("glibc.malloc.hugetlb"), "0x1");
  assertEquals(applied("glibc.malloc.mmap_threshold"), "0x2000000");
  assertEquals(applied("glibc.malloc.trim_threshold"), "0x10000000");
});

for (const cores of [1, navigator.hardwareConcurrency]) {
  Deno.test(`builder process on ${cores} core(s): publishes the commit and its symbols`, async () => {
    const parent = await tempDir("sg-builder-process-");
    try {
      const repo = await createRepo(FILES, { parent, name: "source" });
      const commit = await repo.git("rev-parse", "HEAD");
      const indexFile = join(parent, "index", "index.sqlite3");
      await Deno.mkdir(join(parent, "index"));
      const { args, env } = builderCommand({
        mirror: join(repo.path, ".git"),
        indexFile,
        commits: [commit],
        cores,
      });
      const command = cores === 1
        ? new Deno.Command("taskset", { args: ["-c", "0", denoProgram(), ...args], env })
        : new Deno.Command(denoProgram(), { args, env });
      const output = await command.output();
      const stderr = new TextDecoder().decode(output.stderr);
      assertEquals(output.code, 0, stderr);
      const events = new TextDecoder().decode(output.stdout).trim().split("\n")
        .map((line) => JSON.parse(line) as BuildEvent);
      const built = events.find((event) => event.event === "built");
      assert(built?.event === "built", stderr);
      assertEquals(built.commit, commit);
      assertEquals(built.files, 3);
      assertEquals(built.extraction.parsed, 2);
      // Progress comes before the outcome, and its last report counts every new blob.
      const progress = events.slice(0, events.indexOf(built))
        .filter((event) => event.event === "progress");
      assert(progress.length > 0, "progress reported");
      assertEquals(progress.at(-1), {
        event: "progress",
        commit,
        blobsRead: built.newBlobs,
        newBlobs: built.newBlobs,
        bytesRead: built.newBytes,
      });
      const index = new IndexDatabase(indexFile);
      try {
        assert(index.hasCommit(commit));
        const symbols = index.db.prepare(
          `SELECT n.name AS name, s.start_line AS line FROM symbols s
           JOIN symbol_names n ON n.id = s.name ORDER BY name, line`,
        ).all().map((row) => `${row.name}:${row.line}`);
        // The prototype and the local of a struct type define nothing.
        assertEquals(symbols, [
          "Runner:1",
          "area:5",
          "hook:4",
          "point:2",
          "start:2",
          "x:2",
          "y:2",
        ]);
      } finally {
        index.close();
      }
    } finally {
      await removeDir(parent);
    }
  });
}
