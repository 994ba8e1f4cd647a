import { assert, assertEquals } from "../../support/assert.ts";
import {
  diagnosticCodes,
  diagnostics,
  echoed,
  fixture,
  type PluginWorld,
  withPluginService,
} from "../../support/plugin_service.ts";

const FILES = {
  "fixture.sourcegraph.wasm": fixture("fixture"),
  "sub/fixture.sourcegraph.wasm": fixture("fixture"),
  "fixture.json": '{"attachments":[{"text":"fixture file"}]}',
  "a.md": 'say "quoted" and back\\slash\n\ttab line\n',
  "sub/c.md": "c\n",
};

// The actions' runs are not about TIMEOUT: a generous one, so a busy machine does not end them.
async function everyAction({ call, repo }: PluginWorld): Promise<void> {
  const base = (await call("read", { path: "a.md", plugins: [] }))[0];
  const run = (action: string, extra: Record<string, unknown> = {}, path = "a.md") =>
    call("read", { path, plugins: [{ name: "fixture", args: { action, ...extra } }] });
  const failure = async (action: string, code: string) => {
    const blocks = await run(action);
    assertEquals(blocks[0], base, `${action} keeps the read`);
    assertEquals(diagnosticCodes(blocks), [code], action);
    assertEquals(blocks.length, 2, action);
  };

  // Guest state persists across clean runs with the same key, never after a failure.
  assertEquals((await run("counter")).slice(1), ["counter 1"]);
  assertEquals((await run("counter")).slice(1), ["counter 2"]);
  assertEquals((await run("counter", { key: "other" })).slice(1), ["counter 1"]);
  assertEquals(diagnosticCodes(await run("counter")), ["PLUGIN_FAILED"]); // third call traps
  assertEquals((await run("counter")).slice(1), ["counter 1"]);
  assertEquals((await run("counter", { key: "other" })).slice(1), ["counter 2"]);

  await failure("trap", "PLUGIN_FAILED");
  await failure("badptr", "PLUGIN_INVALID_OUTPUT");
  await failure("invalid", "PLUGIN_INVALID_OUTPUT");
  await failure("scalar", "PLUGIN_PROTOCOL_ERROR");

  assertEquals((await run("batch")).slice(1), ["batch true"]);
  assertEquals((await run("read")).slice(1), ["fixture file"]);
  // sub/ has no fixture.json: the guest returns its issues form, which is not an attachments output.
  assertEquals(diagnosticCodes(await run("read", {}, "sub/c.md")), ["PLUGIN_PROTOCOL_ERROR"]);
  const escape = (await run("escape")).slice(1);
  assertEquals(escape.length, 1);
  assert(escape[0].startsWith("denied: INVALID_PATH:"), escape[0]);
  assert(!escape[0].includes(repo.path), "no host path reaches the guest");

  const mixed = await run("mixed");
  assertEquals(mixed[0], `${base.replace(/\n+$/, "")}\n\nfirst\n\nsecond`);
  assertEquals(mixed[1], "batch note");
  assertEquals(diagnosticCodes(mixed), Array(4).fill("PLUGIN_PROTOCOL_ERROR"));

  // Echo: the input arrives intact (quotes, backslashes, tabs).
  const echo = echoed((await run("echo"))[1]);
  assertEquals((echo.files as { content: string }[])[0].content, FILES["a.md"]);
}

// TIMEOUT is 1 s for the loop only, then generous again.
async function loopStopped({ call, repo, limits }: PluginWorld): Promise<void> {
  const base = (await call("read", { path: "a.md", plugins: [] }))[0];
  const run = (action: string, extra: Record<string, unknown> = {}) =>
    call("read", { path: "a.md", plugins: [{ name: "fixture", args: { action, ...extra } }] });
  limits!.timeoutMs = 1_000;
  const started = performance.now();
  const loop = await run("loop");
  const elapsed = performance.now() - started;
  assertEquals(diagnosticCodes(loop), ["PLUGIN_TIMEOUT"]);
  assertEquals(loop[0], base);
  // The loop never ends by itself: only the timeout can have stopped it.
  assert(elapsed < 30_000, `a looping plugin is stopped at the timeout (${elapsed} ms)`);
  assert(!diagnostics(loop)[0].includes(repo.path));
  // The host is fine afterwards: a new sandbox runs the next action (under a generous
  // limit, which a busy machine's sandbox start does not outlast).
  limits!.timeoutMs = 60_000;
  assertEquals((await run("counter", { key: "after" })).slice(1), ["counter 1"]);
}

// The two share one service (a composed service's start each cost more than their reads).
Deno.test("plugin actions over MCP", (t) =>
  withPluginService(
    { files: FILES, env: { SOURCEGRAPH_PLUGINS_TIMEOUT: "60s" } },
    async (world) => {
      await t.step(
        "every fixture action, and the host survives each failure",
        () => everyAction(world),
      );
      await t.step(
        "a looping action is stopped at TIMEOUT, and the host serves the next run",
        () => loopStopped(world),
      );
    },
  ));
