import { assert, assertEquals } from "../support/assert.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSummary } from "../../tools/test_suite/deno_summary.ts";
import { removeDir, tempDir } from "../support/git_repo.ts";

const MAIN = fileURLToPath(new URL("../../tools/test_suite/main.ts", import.meta.url));

Deno.test("test suite: deno test's summary lines parse with steps, ignored and filtered counts", () => {
  assertEquals(parseSummary("ok | 496 passed (27 steps) | 0 failed | 2 ignored (18m40s)"), {
    passed: 496,
    steps: 27,
    failed: 0,
    ignored: 2,
  });
  assertEquals(parseSummary("FAILED | 1 passed | 1 failed (2 steps) (87ms)"), {
    passed: 1,
    steps: 0,
    failed: 1,
    ignored: 0,
  });
  assertEquals(parseSummary("ok | 0 passed | 0 failed | 3 filtered out (0ms)")?.passed, 0);
  assertEquals(
    parseSummary(
      "\x1b[0m\x1b[32mok\x1b[0m | 2 passed | 0 failed \x1b[0m\x1b[38;5;245m(1m56s)\x1b[0m",
    ),
    { passed: 2, steps: 0, failed: 0, ignored: 0 },
  );
  assertEquals(parseSummary("ok | 1 passed"), null);
  assertEquals(parseSummary("running 1 test from ./a_test.ts"), null);
});

Deno.test("test suite: modules run in their own processes; a failing and an unloadable module count, the table and one summary end it", async () => {
  const dir = await tempDir("test-suite-");
  try {
    await Deno.mkdir(join(dir, "tests", "fast"), { recursive: true });
    await Deno.mkdir(join(dir, "tests", "slow"), { recursive: true });
    await Deno.mkdir(join(dir, "lib"));
    await Deno.writeTextFile(
      join(dir, "tests", "fast", "pass_test.ts"),
      'Deno.test("one", () => {});\nDeno.test("two", async (t) => { await t.step("s", () => {}); });\n' +
        'Deno.test({ name: "skipped", ignore: true, fn: () => {} });\n' +
        // Each module has a process of its own: a global set by another module is never seen.
        'Deno.test("alone", () => { if ("shared" in globalThis) throw new Error("shared"); (globalThis as Record<string, unknown>).shared = 1; });\n',
    );
    await Deno.writeTextFile(
      join(dir, "tests", "slow", "fail_test.ts"),
      'Deno.test("alone", () => { if ("shared" in globalThis) throw new Error("shared"); (globalThis as Record<string, unknown>).shared = 1; });\n' +
        'Deno.test("breaks", () => { throw new Error("on purpose"); });\n',
    );
    await Deno.writeTextFile(join(dir, "tests", "slow", "broken_test.ts"), 'import "./gone.ts";\n');
    await Deno.writeTextFile(
      join(dir, "lib", "mod.ts"),
      "/**\n * @example\n * ```ts\n * if (1 + 1 !== 2) throw new Error();\n * ```\n */\nexport const x = 1;\n",
    );
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read=.",
        "--allow-run=deno,bash",
        MAIN,
        "--jobs",
        "2",
        "--doc",
        "lib",
        "tests",
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const text = new TextDecoder().decode(stdout);
    const lines = text.trimEnd().split("\n");
    assertEquals(code, 1, text);
    // 3 passed and 1 ignored in pass, 1 + 1 in fail, the unloadable module as one failure, 1 example.
    assertEquals(
      lines.at(-1)!.replace(/\([^)]*\)$/, ""),
      "FAILED | 5 passed (1 step) | 2 failed | 1 ignored ",
    );
    assert(text.includes("./tests/slow/broken_test.ts: did not finish (exit 1)"), text);
    assert(text.includes("./tests/fast/pass_test.ts: 3 passed, 0 failed"), text);
    assert(text.includes("on purpose"), text);
    assert(
      /modules with failures:\n {2}\.\/tests\/slow\/\S+\n {2}\.\/tests\/slow\/\S+\n/.test(text),
      text,
    );
    const table = lines.slice(lines.findIndex((line) => line.startsWith("seconds per folder")) + 1);
    assertEquals(table[0].trim().split(/\s+/), ["folder", "processor", "wall", "files", "tests"]);
    const rows = new Map(
      table.slice(1, 4).map((row) => {
        const [folder, processor, wall, files, tests] = row.trim().split(/\s+/);
        // Processor seconds are measured (bash's `times`): loading a module costs some.
        assert(Number(processor) > 0 && Number(wall) > 0, row);
        return [folder, `${files}/${tests}`];
      }),
    );
    assertEquals(rows, new Map([["tests/fast", "1/4"], ["tests/slow", "2/3"], ["lib", "1/1"]]));
  } finally {
    await removeDir(dir);
  }
});
