import { assert, assertEquals } from "../../support/assert.ts";
import { ENABLED, fixture, fixtureWith, withPluginService } from "../../support/plugin_service.ts";

async function waitForLine(log: string[], part: string, after = 0): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = log.slice(after).find((candidate) => candidate.includes(part));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no log line with ${part}:\n${log.join("\n")}`);
}

function runLines(log: string[]): Record<string, unknown>[] {
  return log.filter((line) => line.includes('"event":"plugin_run"')).map((line) =>
    JSON.parse(line.slice(line.indexOf("{")))
  );
}

Deno.test("plugin warm-up: default-enabled plugins of each head are precompiled in the background; debug logs carry timings, never content or args", () =>
  withPluginService({
    files: {
      "minimal.sourcegraph.wasm": fixture("minimal"),
      "sub/fixture.sourcegraph.wasm": fixture("fixture"),
      "sub/late.sourcegraph.wasm": fixtureWith("minimal", { name: "late", ...ENABLED }),
      "a.md": "alpha-content\n",
      "sub/b.md": "beta-content\n",
    },
    env: { SOURCEGRAPH_LOG_LEVEL: "debug" },
  }, async ({ call, log }) => {
    // minimal and late are enabled (two distinct modules: metadata differs); fixture is not.
    await waitForLine(log, "plugins of local/project precompiled: 2 module(s)");
    assertEquals(runLines(log), [], "warm-up never runs a plugin");
    assertEquals((await call("read", { path: "a.md" })).slice(1), ["minimal ran"]);
    const [first] = runLines(log);
    assertEquals([first.plugin, first.code, first.compile_hit, first.instance_hit], [
      "minimal",
      "OK",
      true,
      false,
    ]);
    for (
      const field of ["total_ms", "compile_ms", "instantiate_ms", "run_ms", "read_ms", "reads"]
    ) {
      assert(typeof first[field] === "number", field);
    }
    await call("read", { path: "a.md" });
    assertEquals(runLines(log)[1].instance_hit, true);
    await call("read", {
      path: "sub/b.md",
      plugins: [{ name: "fixture", args: { action: "read", marker: "TOPSECRET" } }],
    });
    const third = runLines(log)[2];
    assertEquals([third.plugin, third.compile_hit, third.code], [
      "fixture",
      false,
      "PLUGIN_PROTOCOL_ERROR",
    ]);
    assertEquals(third.reads, 1);
    const logged = log.join("\n");
    for (const secret of ["TOPSECRET", "alpha-content", "beta-content", "minimal ran"]) {
      assert(!logged.includes(secret), `the log never carries ${secret}`);
    }
  }));
