import { assert, assertEquals } from "../support/assert.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSummary } from "../../tools/test_suite/deno_summary.ts";
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

Deno.test("test suite: modules run in isolates of their own; a failing and an unloadable module count, the table and one summary end it", async () => {
  const dir = await tempDir("test-suite-");
  try {
    await Deno.mkdir(join(dir, "tests", "fast"), { recursive: true });
    await Deno.mkdir(join(dir, "tests", "slow"), { recursive: true });
    await Deno.mkdir(join(dir, "lib"));
    await Deno.writeTextFile(
      join(dir, "tests", "fast", "pass_test.ts"),
      'Deno.test("one", () => {});\nDeno.test("two", async (t) => { await t.step("s", () => {}); });\n' +
        'Deno.test({ name: "skipped", ignore: true, fn: () => {} });\n' +
        // Each module has an isolate of its own: a global set by another module is never seen.
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
    const { code, text } = await runSuite(dir, ["--jobs", "2", "--doc", "lib", "tests"]);
    const lines = text.trimEnd().split("\n");
    assertEquals(code, 1, text);
    // 3 passed and 1 ignored in pass, 1 + 1 in fail, the unloadable module as one failure, 1 example.
    assertEquals(
      lines.at(-1)!.replace(/\([^)]*\)$/, ""),
      "FAILED | 5 passed (1 step) | 2 failed | 1 ignored ",
    );
    // The unloadable module stops its group's process; the group runs again module by module.
    assert(
      text.includes("./tests/slow/{broken_test.ts,fail_test.ts}: did not finish together"),
      text,
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

Deno.test("test suite: modules of a folder share a process; one that reads its process's memory runs alone", async () => {
  const dir = await tempDir("test-suite-");
  try {
    await Deno.mkdir(join(dir, "tests"));
    // Each module prints its process id as a test name's suffix, so the output shows who shared.
    const module = (extra: string) => `${extra}Deno.test("pid " + Deno.pid, () => {});\n`;
    await Deno.writeTextFile(join(dir, "tests", "a_test.ts"), module(""));
    await Deno.writeTextFile(join(dir, "tests", "b_test.ts"), module(""));
    await Deno.writeTextFile(
      join(dir, "tests", "c_test.ts"),
      module("const before = Deno.memoryUsage().rss;\nif (before <= 0) throw new Error();\n"),
    );
    const run = async (extra: string[]) => {
      const { text } = await runSuite(dir, [...extra, "tests"]);
      const pid = (file: string) => {
        const at = text.indexOf(`running 1 test from ./tests/${file}`);
        assert(at >= 0, text);
        return /pid (\d+)/.exec(text.slice(at))![1];
      };
      return { text, a: pid("a_test.ts"), b: pid("b_test.ts"), c: pid("c_test.ts") };
    };
    const grouped = await run([]);
    assertEquals(grouped.a, grouped.b, grouped.text);
    assert(grouped.c !== grouped.a, grouped.text);
    assert(
      grouped.text.includes("./tests/{a_test.ts,b_test.ts}: 2 passed, 0 failed"),
      grouped.text,
    );
    assert(grouped.text.trimEnd().split("\n").at(-1)!.startsWith("ok | 3 passed"), grouped.text);
    const table = grouped.text.split("\n").find((line) => line.trim().startsWith("tests "))!;
    assertEquals(table.trim().split(/\s+/).slice(3), ["3", "3"], "modules and tests of the folder");
    // A cap of 0 seconds runs every module alone.
    const alone = await run(["--group-seconds", "0"]);
    assert(new Set([alone.a, alone.b, alone.c]).size === 3, alone.text);
  } finally {
    await removeDir(dir);
  }
});
