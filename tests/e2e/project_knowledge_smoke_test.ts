import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { providerEntry } from "../../project_knowledge/runner_entry.ts";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import { removeDir, tempDir } from "../support/git_repo.ts";
import { PROGRAM_ROOT } from "../support/fake_runner.ts";
import { parseSmokeArgs, refusedBeforeDispatch } from "../../e2e/project_knowledge_ws.ts";

const SMOKE = fileURLToPath(new URL("../../e2e/project_knowledge_ws.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** Runs the smoke as `deno task e2e:project-knowledge -- …` does (same flags). */
async function smoke(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const task = JSON.parse(await Deno.readTextFile(CONFIG)).tasks["e2e:project-knowledge"]
    .command as string;
  const flags = task.split(" ").filter((word) => word.startsWith("--"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--config", CONFIG, ...flags, SMOKE, "--", ...args],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("e2e smoke --dry-run: the whole fixture, a redacted plan, the provider entry through the fake Runner, then nothing left", async () => {
  const { code, stdout, stderr } = await smoke("--dry-run");
  assertEquals(code, 0, stdout + stderr);
  for (
    const check of [
      "admission: four tools",
      "index (rebuild)",
      "edit + index (refresh)",
      "status",
      "search",
      "read with the hit's source_hash",
      "a root argument is refused by the schema",
      "a stale source is omitted from search",
      "read with the old hash is refused",
    ]
  ) {
    assertIncludes(stdout, `ok   ${check}`);
  }
  assert(!stdout.includes("FAIL"), stdout);
  assertIncludes(stdout, "Authorization: Bearer <redacted: bootstrap>");
  assert(!/Bearer [0-9a-f]{16,}/.test(stdout), "no token is printed");
  for (
    const step of [
      "check: ready with four tools",
      "binding for the other project",
      "remove the provider, reload",
    ]
  ) {
    assertIncludes(stdout, step);
  }
  const fixture = /^fixture: (.+)$/m.exec(stdout)![1];
  assert(!(await exists(fixture)), "the folder is removed");
});

Deno.test("e2e smoke: without binaries it names what is missing and exits 2", async () => {
  const empty = await tempDir("pk-e2e-bin-");
  try {
    const none = await smoke("--bin-dir", empty);
    assertEquals(none.code, 2);
    assertIncludes(none.stderr, "webcodex-server, webcodex-runner");
    await Deno.writeTextFile(join(empty, "webcodex-server"), "#!/bin/sh\n", { mode: 0o755 });
    await Deno.writeTextFile(join(empty, "webcodex-runner"), "not executable\n", { mode: 0o644 });
    const one = await smoke("--bin-dir", empty);
    assertEquals(one.code, 2);
    assertIncludes(one.stderr, `missing in ${empty}: webcodex-runner (`);
    const usage = await smoke();
    assertEquals(usage.code, 2);
    assertIncludes(usage.stderr, "usage: deno task e2e:project-knowledge");
  } finally {
    await removeDir(empty);
  }
});

Deno.test("e2e smoke: runner.toml parses back, 0600, with the provider entry the README documents", async () => {
  const { code, stdout, stderr } = await smoke("--dry-run", "--keep");
  assertEquals(code, 0, stdout + stderr);
  const dir = /^kept (.+)$/m.exec(stdout)![1];
  try {
    const path = join(dir, "runner.toml");
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(join(dir, "xdg", "cache"))).mode! & 0o777, 0o700);
    const config = parseToml(await Deno.readTextFile(path)) as Record<string, unknown> & {
      plugins: { request_timeout_secs: number; providers: Record<string, unknown>[] };
      policy: { allowed_roots: string[] };
    };
    assertEquals(config.transport, "websocket");
    assertEquals(config.project_registry_dir, join(dir, "registry"));
    assertEquals(config.plugins.request_timeout_secs, 30);
    assertEquals(config.plugins.providers.map((entry) => ({ ...entry })), [
      providerEntry({
        deno: Deno.execPath(),
        checkout: PROGRAM_ROOT,
        root: join(dir, "projects", "app"),
        cacheBase: join(dir, "xdg", "cache"),
      }),
    ]);
    for (const id of ["app", "other"]) {
      const entry = parseToml(await Deno.readTextFile(join(dir, "registry", `${id}.toml`)));
      assertEquals(entry.path, join(dir, "projects", id));
    }
  } finally {
    await removeDir(dir);
  }
});

Deno.test("e2e smoke: both refusal shapes the gateway documents are accepted, and nothing else", () => {
  const answer = (httpStatus: number, isError: boolean, structured: Record<string, unknown>) => ({
    httpStatus,
    isError,
    structured,
  });
  assert(refusedBeforeDispatch(answer(403, false, {})), "HTTP 403 scope error");
  assert(refusedBeforeDispatch(answer(403, false, {}), "insufficient_scope"));
  const notStarted = answer(200, true, {
    error: { code: "plugin_project_mismatch", message: "…" },
    dispatchState: "not_started",
  });
  assert(refusedBeforeDispatch(notStarted));
  assert(refusedBeforeDispatch(notStarted, "plugin_project_mismatch"));
  assert(!refusedBeforeDispatch(notStarted, "plugin_arguments_schema_invalid"), "another code");
  assert(!refusedBeforeDispatch(answer(200, true, { dispatchState: "outcome_unknown" })));
  assert(!refusedBeforeDispatch(answer(200, false, { hits: [] })), "a success is no refusal");
  assertEquals(parseSmokeArgs(["--", "--bin-dir", "/x", "--keep"]), {
    binDir: "/x",
    keep: true,
    dryRun: false,
  });
  assertEquals(parseSmokeArgs(["--bin-dir"]), null);
  assertEquals(parseSmokeArgs(["--dry-run", "--unknown"]), null);
});
