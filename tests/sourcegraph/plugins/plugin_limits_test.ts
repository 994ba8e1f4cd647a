import { alive } from "../../support/raw_http.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  diagnosticCodes,
  fixture,
  fixtureWith,
  LOOPING_PLUGIN,
  PLUGIN_REPO,
  readWithLoopingPlugin,
  withPluginService,
} from "../../support/plugin_service.ts";

const TOKEN = "t".repeat(40);

Deno.test("hostile plugins: each is contained with its code, and a clean plugin still runs after it", () =>
  withPluginService({
    files: {
      "membomb.sourcegraph.wasm": fixture("membomb"),
      "bigoutput.sourcegraph.wasm": fixture("bigoutput"),
      "readflood.sourcegraph.wasm": fixture("readflood"),
      "start.sourcegraph.wasm": fixture("start"),
      "wasi.sourcegraph.wasm": fixture("wasi"),
      "imported-memory.sourcegraph.wasm": fixture("imported_memory"),
      "abi1.sourcegraph.wasm": fixture("abi1"),
      "nometa.sourcegraph.wasm": fixture("no_metadata"),
      // A plugin.json beside a module without the section has no effect.
      "plugin.json": Deno.readTextFileSync(
        new URL("../../fixtures/plugins/plugin.json", import.meta.url),
      ),
      "minimal.sourcegraph.wasm": fixture("minimal"),
      "huge.sourcegraph.wasm": fixtureWith("minimal", { name: "huge", padding: "x".repeat(5000) }),
      "fixture.json": "{}",
      "a.md": "a\n",
    },
    env: {
      SOURCEGRAPH_PLUGINS_MEMORY_MIB: "64",
      SOURCEGRAPH_PLUGINS_READ_CALLS: "5",
      SOURCEGRAPH_PLUGINS_ARTIFACT_BYTES: "4096",
    },
  }, async ({ call }) => {
    const base = (await call("read", { path: "a.md", plugins: [] }))[0];
    const expected: [string, string][] = [
      ["membomb", "PLUGIN_FAILED"],
      ["bigoutput", "PLUGIN_OUTPUT_TOO_LARGE"],
      ["start", "PLUGIN_FAILED"],
      ["wasi", "PLUGIN_INVALID"],
      ["imported-memory", "PLUGIN_INVALID"],
      ["abi1", "PLUGIN_ABI_INCOMPATIBLE"],
      ["nometa", "PLUGIN_UNAVAILABLE"],
      ["huge", "PLUGIN_TOO_LARGE"], // over ARTIFACT_BYTES
    ];
    for (const [name, code] of expected) {
      const started = performance.now();
      const blocks = await call("read", { path: "a.md", plugins: [{ name }] });
      assertEquals([blocks[0], blocks.length], [base, 2], name);
      assertEquals(diagnosticCodes(blocks), [code], name);
      // A guard against a hang, not a budget: each is refused long before a timeout.
      assert(performance.now() - started < 30_000, `${name} is contained`);
      assertEquals(
        (await call("read", { path: "a.md", plugins: [{ name: "minimal" }] })).slice(1),
        ["minimal ran"],
        `the host works after ${name}`,
      );
    }
    // READ_CALLS=5: the flood gets five reads, then a refusal.
    assertEquals(
      (await call("read", { path: "a.md", plugins: [{ name: "readflood" }] })).slice(1),
      ["reads 0005"],
    );
    // Automatic mode runs only the enabled plugin and reports every discovery issue.
    const auto = await call("read", { path: "a.md" });
    assertEquals(auto.slice(0, 2), [base, "minimal ran"]);
    assertEquals(diagnosticCodes(auto), [
      "PLUGIN_ABI_INCOMPATIBLE",
      "PLUGIN_TOO_LARGE",
      "PLUGIN_UNAVAILABLE",
    ]);
  }));

Deno.test("plugin budgets: FILE_BYTES, READ_BYTES and OUTPUT_BYTES per run", () =>
  withPluginService({
    files: {
      "readflood.sourcegraph.wasm": fixture("readflood"),
      "big/readflood.sourcegraph.wasm": fixture("readflood"),
      "fixture.sourcegraph.wasm": fixture("fixture"),
      "fixture.json": "x".repeat(60),
      "big/fixture.json": "x".repeat(200),
      "a.md": "a\n",
      "big/b.md": "b\n",
    },
    env: {
      SOURCEGRAPH_PLUGINS_FILE_BYTES: "100",
      SOURCEGRAPH_PLUGINS_READ_BYTES: "150",
      SOURCEGRAPH_PLUGINS_OUTPUT_BYTES: "100",
    },
  }, async ({ call }) => {
    const flood = (path: string) =>
      call("read", { path, plugins: [{ name: "readflood" }] }).then((blocks) => blocks.slice(1));
    assertEquals(await flood("a.md"), ["reads 0002"]); // 60 + 60 fit in 150, a third does not
    assertEquals(await flood("big/b.md"), ["reads 0000"]); // 200 bytes > FILE_BYTES
    // The echo of a read is longer than 100 bytes.
    const echo = await call("read", { path: "a.md", plugins: [{ name: "fixture" }] });
    assertEquals(diagnosticCodes(echo), ["PLUGIN_OUTPUT_TOO_LARGE"]);
  }));

Deno.test("plugin host limits: attachment budget, idle and compile caches, busy, and the repository lease", () =>
  withPluginService({
    files: {
      "fixture.sourcegraph.wasm": fixture("fixture"),
      "minimal.sourcegraph.wasm": fixture("minimal"),
      "a.md": "a\n",
    },
    env: {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      SOURCEGRAPH_PLUGINS_OUTPUT_BYTES: String(4 * 1024 * 1024),
      SOURCEGRAPH_PLUGINS_CONCURRENCY: "1",
      SOURCEGRAPH_PLUGINS_IDLE_INSTANCES: "1",
      SOURCEGRAPH_PLUGINS_CACHE_ENTRIES: "1",
      // Generous for the runs that are not about TIMEOUT; 2 s for the loop below.
      SOURCEGRAPH_PLUGINS_TIMEOUT: "60s",
    },
  }, async ({ call, fetchPath, limits }) => {
    const run = (args: Record<string, unknown>, name = "fixture") =>
      call("read", { path: "a.md", plugins: [{ name, args }] });
    const base = (await call("read", { path: "a.md", plugins: [] }))[0];

    // 2 MiB of attachment text per request: whole entries, the third is left out.
    const large = await run({ action: "large" });
    assertEquals(large.length, 4);
    assertEquals(large[0], base);
    assertEquals([large[1], large[2]], ["A".repeat(921_600), "B".repeat(921_600)]);
    assertEquals(diagnosticCodes(large), ["PLUGIN_OUTPUT_TOO_LARGE"]);
    // With an explicit max_bytes the plugin output counts too: the whole answer fits it.
    const bounded = await call("read", {
      path: "a.md",
      max_bytes: 8192,
      plugins: [{ name: "fixture", args: { action: "large" } }],
    });
    assert(bounded.join("").length <= 8192, `${bounded.join("").length} characters`);
    assertEquals(bounded[0], base);
    assertEquals(diagnosticCodes(bounded), Array(3).fill("PLUGIN_OUTPUT_TOO_LARGE"));
    assert(bounded.at(-1)!.includes("does not fit the answer's max_bytes"), bounded.at(-1));
    const echo = await call("read", {
      path: "a.md",
      max_bytes: 8192,
      plugins: [{ name: "fixture" }],
    });
    assertEquals(echo.length, 2, "a small attachment still fits");

    // IDLE_INSTANCES=1: a second key closes the first key's idle instance.
    assertEquals((await run({ action: "counter", k: 1 })).slice(1), ["counter 1"]);
    assertEquals((await run({ action: "counter", k: 1 })).slice(1), ["counter 2"]);
    assertEquals((await run({ action: "counter", k: 2 })).slice(1), ["counter 1"]);
    assertEquals((await run({ action: "counter", k: 1 })).slice(1), ["counter 1"]);
    // CACHE_ENTRIES=1: compiling another module evicts this one with its instances.
    assertEquals((await run({}, "minimal")).slice(1), ["minimal ran"]);
    assertEquals((await run({ action: "counter", k: 1 })).slice(1), ["counter 1"]);

    // CONCURRENCY=1: a second run while one loops is refused at once; the repository is leased.
    const readSeconds = async () =>
      Number(
        /sourcegraph_request_seconds_sum\{tool="read"\} (\S+)/.exec(
          await (await fetchPath(`/metrics`)).text(),
        )![1],
      );
    const readSecondsBefore = await readSeconds();
    limits!.timeoutMs = 2_000;
    const looping = run({ action: "loop" });
    let loopEnded = false;
    looping.finally(() => (loopEnded = true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assertEquals(diagnosticCodes(await run({ action: "counter", k: 9 })), ["PLUGIN_BUSY"]);
    assert(!loopEnded, "busy is answered while the loop still runs, not after it");
    const remove = await fetchPath(
      `/sourcegraph/api/admin/v1/repo?repo=${encodeURIComponent(PLUGIN_REPO)}`,
      { method: "DELETE", headers: { Authorization: `Bearer ${TOKEN}` } },
    );
    assertEquals([remove.status, (await remove.json()).code], [409, "REPOSITORY_BUSY"]);
    assertEquals(diagnosticCodes(await looping), ["PLUGIN_TIMEOUT"]);
    // Read metrics count the base read only: had the loop's 2 s been counted, the looping read
    // alone would add 2 s; the two reads' base parts add far less, however busy the machine.
    const added = (await readSeconds()) - readSecondsBefore;
    assert(added < 2, `read latency metrics exclude plugin time (${added} s added)`);
    limits!.timeoutMs = 60_000;
    assertEquals((await run({ action: "counter", k: 9 })).slice(1), ["counter 1"]);
  }));

Deno.test("SOURCEGRAPH_PLUGINS_DISABLED=1: explicit selections say so, automatic selection is silent", () =>
  withPluginService({
    files: {
      "minimal.sourcegraph.wasm": fixture("minimal"),
      "a.md": "a\n",
    },
    env: { SOURCEGRAPH_PLUGINS_DISABLED: "1" },
  }, async ({ call }) => {
    assertEquals((await call("read", { path: "a.md" })).length, 1);
    const explicit = await call("read", { path: "a.md", plugins: [{ name: "minimal" }] });
    assertEquals(diagnosticCodes(explicit), ["PLUGINS_DISABLED"]);
  }));

/** pid and state letter (R running, S sleeping, Z zombie) of the sandbox children of `parentPid`. */
async function sandboxes(parentPid: number): Promise<{ pid: number; state: string }[]> {
  const ps = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,ppid=,stat=,args="] })
    .output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((line) => line.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === parentPid && f.some((a) => a.endsWith("sandbox_main.ts")))
    .map((f) => ({ pid: Number(f[0]), state: f[2][0] }));
}

Deno.test("stopping the service (SIGTERM) ends a plugin that is still running", () =>
  withPluginService({
    ...LOOPING_PLUGIN,
    env: { ...LOOPING_PLUGIN.env, SOURCEGRAPH_STOP_GRACE: "1s" },
  }, async ({ client, service: process }) => {
    const service = process!;
    const call = readWithLoopingPlugin(client);
    // Wait until the looping instance is on a CPU (state R).
    let pids: number[] = [];
    for (let i = 0; i < 50 && pids.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const children = await sandboxes(service.pid);
      if (children.some((child) => child.state === "R")) pids = children.map((c) => c.pid);
    }
    assert(pids.length > 0, "a sandbox process runs the plugin");
    const status = await service.stop();
    assertEquals([status.code, status.signal], [0, null], "the service exits on SIGTERM by itself");
    await call;
    let left = pids;
    for (let i = 0; i < 30 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = (await Promise.all(pids.map(async (pid) => (await alive(pid)) ? [pid] : []))).flat();
    }
    assertEquals(left, [], "no sandbox outlives the service");
  }));

Deno.test("TIMEOUT covers the whole enhancement, discovery included: the read comes back with PLUGIN_TIMEOUT", () =>
  withPluginService({
    files: { "minimal.sourcegraph.wasm": fixture("minimal"), "a.md": "a\n" },
    env: { SOURCEGRAPH_PLUGINS_TIMEOUT: "1ms" },
  }, async ({ call }) => {
    const base = (await call("read", { path: "a.md", plugins: [] }))[0];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const blocks = await call("read", { path: "a.md", plugins: [{ name: "minimal" }] });
      assertEquals([blocks[0], diagnosticCodes(blocks)], [base, ["PLUGIN_TIMEOUT"]]);
      // A guard against waiting for the plugin (which never finishes in 1 ms), not a budget.
      assert(performance.now() - started < 30_000);
    }
  }));
