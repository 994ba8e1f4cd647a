import { assert, assertEquals } from "../support/assert.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { failedTests, parseSummary } from "../../tools/test_suite/deno_summary.ts";
import { removeDir, tempDir } from "../support/git_repo.ts";

const MAIN = fileURLToPath(new URL("../../tools/test_suite/main.ts", import.meta.url));

// Runs the suite runner in `dir` with `args`, as `deno task test:unit` does: its exit code and output.
async function runSuite(dir: string, args: string[]): Promise<{ code: number; text: string }> {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read=.", "--allow-run=deno,bash", MAIN, ...args],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return { code, text: new TextDecoder().decode(stdout) };
}

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
  assertEquals(parseSummary("ok | 1 passed"), null);
  // Deno colours a piped summary too unless NO_COLOR is set.
  const coloured =
    "\x1b[0m\x1b[32mok\x1b[0m | 4 passed | 0 failed \x1b[0m\x1b[38;5;245m(201ms)\x1b[0m";
  assertEquals(parseSummary(coloured)?.passed, 4);
  assertEquals(parseSummary("running 1 test from ./a_test.ts"), null);
});

Deno.test("test suite: a failing and an unloadable module and a failing check count, the table and one summary end it", async () => {
  const dir = await tempDir("test-suite-");
  try {
    await Deno.mkdir(join(dir, "tests", "fast"), { recursive: true });
    await Deno.mkdir(join(dir, "tests", "slow"), { recursive: true });
    await Deno.mkdir(join(dir, "lib"));
    await Deno.writeTextFile(
      join(dir, "tests", "fast", "pass_test.ts"),
      'Deno.test("one", () => {});\nDeno.test("two", async (t) => { await t.step("s", () => {}); });\n' +
        'Deno.test({ name: "skipped", ignore: true, fn: () => {} });\n',
    );
    await Deno.writeTextFile(
      join(dir, "tests", "slow", "fail_test.ts"),
      'Deno.test("breaks", () => { throw new Error("on purpose"); });\n',
    );
    await Deno.writeTextFile(join(dir, "tests", "slow", "broken_test.ts"), 'import "./gone.ts";\n');
    await Deno.writeTextFile(
      join(dir, "lib", "mod.ts"),
      "/**\n * @example\n * ```ts\n * if (1 + 1 !== 2) throw new Error();\n * ```\n */\nexport const x = 1;\n",
    );
    // Checks (`deno` commands beside the tests) count by their exit status.
    const checks = ["--check", "eval Deno.exit(3)", "--check", "eval console.log(6*7)"];
    const { code, text } = await runSuite(dir, ["--jobs", "2", ...checks, "--doc", "lib", "tests"]);
    const lines = text.trimEnd().split("\n");
    assertEquals(code, 1, text);
    // 2 passed and 1 ignored in pass, 1 failed in fail, the unloadable module as one failure, 1
    // example, the failing check as one failure; the passing check counts nothing.
    assertEquals(
      lines.at(-1)!.replace(/\([^)]*\)$/, ""),
      "FAILED | 3 passed (1 step) | 3 failed | 1 ignored ",
    );
    assert(/^\.\/\(checks\)\/deno eval Deno\.exit\(3\): failed \(exit 3\) \(/m.test(text), text);
    assert(/^42\n\.\/\(checks\)\/deno eval console\.log\(6\*7\): passed \(/m.test(text), text);
    // The unloadable module stops its group's process; the group runs again module by module.
    assert(
      text.includes("./tests/slow/{broken_test.ts,fail_test.ts}: did not finish together"),
      text,
    );
    assert(text.includes("./tests/slow/broken_test.ts: did not finish (exit 1)"), text);
    assert(text.includes("./tests/fast/pass_test.ts: 2 passed, 0 failed"), text);
    assert(text.includes("on purpose"), text);
    // The failed modules, each with its failed tests and their errors, come after the table and
    // right before the summary, so a log cut to its tail still says what failed.
    const failures = lines.slice(lines.indexOf("modules with failures:") + 1, -2);
    assert(text.indexOf("seconds per") < text.indexOf("modules with failures:"), text);
    assertEquals(lines.at(-2), "");
    assertEquals(
      failures.filter((line) => !line.startsWith("    ")).map((line) => line.trim()).sort(),
      [
        "./(checks)/deno eval Deno.exit(3)",
        "./tests/slow/broken_test.ts",
        "./tests/slow/fail_test.ts",
      ],
    );
    const failing = failures.indexOf("  ./tests/slow/fail_test.ts");
    assertEquals(
      failures[failing + 1],
      "    breaks => ./tests/slow/fail_test.ts:1:6: Error: on purpose",
    );
    const table = lines.slice(lines.findIndex((line) => line.startsWith("seconds per folder")) + 1);
    assertEquals(table[0].trim().split(/\s+/), ["folder", "processor", "wall", "files", "tests"]);
    const rows = new Map(
      table.slice(1, 5).map((row) => {
        const [folder, processor, wall, files, tests] = row.trim().split(/\s+/);
        // Processor seconds are measured (bash's `times`): loading a module costs some; two
        // `deno eval` checks may take under the 0.05 s the table's one decimal shows.
        const least = folder === "(checks)" ? 0 : Number.MIN_VALUE;
        assert(Number(processor) >= least && Number(wall) > 0, row);
        return [folder, `${files}/${tests}`];
      }),
    );
    assertEquals(
      rows,
      new Map([["tests/fast", "1/3"], ["tests/slow", "2/2"], ["lib", "1/1"], ["(checks)", "2/1"]]),
    );
  } finally {
    await removeDir(dir);
  }
});

Deno.test("test suite: modules of a folder share a process and an isolate; one that reads its process's memory runs alone", async () => {
  const dir = await tempDir("test-suite-");
  try {
    await Deno.mkdir(join(dir, "tests"));
    await Deno.mkdir(join(dir, "lib"));
    // A module both import records who evaluated it; each test's name says its process id and
    // who had evaluated the shared module when it was registered, so the output shows who shared.
    await Deno.writeTextFile(join(dir, "lib", "shared.ts"), "export const seen: string[] = [];\n");
    const module = (name: string, extra = "") =>
      `import { seen } from "../lib/shared.ts";\n${extra}seen.push("${name}");\n` +
      `Deno.test("${name} pid " + Deno.pid + " saw " + seen.join(""), () => {});\n`;
    await Deno.writeTextFile(join(dir, "tests", "a_test.ts"), module("a"));
    await Deno.writeTextFile(join(dir, "tests", "b_test.ts"), module("b"));
    await Deno.writeTextFile(
      join(dir, "tests", "c_test.ts"),
      module("c", "const before = Deno.memoryUsage().rss;\nif (before <= 0) throw new Error();\n"),
    );
    // Assigning a global would reach the group's other modules: such a module runs alone too.
    await Deno.writeTextFile(
      join(dir, "tests", "d_test.ts"),
      module("d", "(globalThis as Record<string, unknown>).marked = 1;\n"),
    );
    const run = async (extra: string[]) => {
      const { text } = await runSuite(dir, [...extra, "tests"]);
      const test = (name: string) => {
        const found = new RegExp(`^${name} pid (\\d+) saw (\\w+) \\.\\.\\. ok`, "m").exec(text);
        assert(found, text);
        return { pid: found[1], saw: found[2] };
      };
      return { text, a: test("a"), b: test("b"), c: test("c"), d: test("d") };
    };
    const grouped = await run([]);
    assertEquals(grouped.a.pid, grouped.b.pid, grouped.text);
    // One isolate: the shared module was evaluated once, and b's registration saw a's push.
    assertEquals([grouped.a.saw, grouped.b.saw], ["a", "ab"], grouped.text);
    assertEquals(new Set([grouped.a.pid, grouped.c.pid, grouped.d.pid]).size, 3, grouped.text);
    assertEquals([grouped.c.saw, grouped.d.saw], ["c", "d"], grouped.text);
    assert(
      grouped.text.includes("running 2 tests from ./tests/{a_test.ts,b_test.ts}"),
      grouped.text,
    );
    assert(
      grouped.text.includes("./tests/{a_test.ts,b_test.ts}: 2 passed, 0 failed"),
      grouped.text,
    );
    assert(grouped.text.trimEnd().split("\n").at(-1)!.startsWith("ok | 4 passed"), grouped.text);
    const table = grouped.text.split("\n").find((line) => line.trim().startsWith("tests "))!;
    assertEquals(table.trim().split(/\s+/).slice(3), ["4", "4"], "modules and tests of the folder");
    // A cap of 0 seconds runs every module alone.
    const alone = await run(["--group-seconds", "0"]);
    assertEquals(new Set([alone.a.pid, alone.b.pid, alone.c.pid, alone.d.pid]).size, 4, alone.text);
    assertEquals([alone.a.saw, alone.b.saw], ["a", "b"], alone.text);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("test suite: an error outside any test is named with its module, the test it cut short and its error", () => {
  const output = [
    "running 3 tests from ./a_test.ts",
    "one ... ok (700µs)",
    "two ...",
    "Uncaught error from ./a_test.ts FAILED",
    "two ... cancelled (0ms)",
    "three ... cancelled (0ms)",
    "",
    " ERRORS ",
    "",
    "breaks => ./b_test.ts:1:6",
    "error: Error: on purpose",
    "",
    "./a_test.ts (uncaught error)",
    "error: (in promise) Error: dangling",
    "This error was not caught from a test and caused the test runner to fail on the referenced module.",
    "",
    " FAILURES ",
    "",
    "breaks => ./b_test.ts:1:6",
    "./a_test.ts (uncaught error)",
    "",
    "FAILED | 1 passed | 4 failed (104ms)",
  ];
  assertEquals(failedTests(output), [
    "breaks => ./b_test.ts:1:6: Error: on purpose",
    './a_test.ts (uncaught error) (while "two" ran): (in promise) Error: dangling',
  ]);
});
