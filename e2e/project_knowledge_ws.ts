/**
 * The end-to-end smoke of project_knowledge through WebCodex: an MCP client
 * → `webcodex-server` → WebSocket → `webcodex-runner` → the provider, as the
 * README's runner.toml entry launches it.
 *
 *   deno task e2e:project-knowledge -- --bin-dir /abs/target/dogfood [--keep]
 *   deno task e2e:project-knowledge -- --dry-run [--keep]
 *
 * Everything lives in one disposable folder with its own HOME and XDG
 * folders and a cleared environment: the Server on a free loopback port with
 * a random bootstrap token, an owner and a foreign user with tokens of the
 * scopes each check needs, a Runner agent token, a project Git repository
 * and a second project with their registry entries, and a 0600 runner.toml
 * whose provider entry comes from `project_knowledge/runner_entry.ts` (the
 * same module the README test and the fake Runner use). Without binaries the
 * smoke says which are missing and exits 2. `--dry-run` needs none: it builds
 * the whole fixture, prints the request plan with tokens redacted, then
 * launches the provider entry exactly as configured through the fake Runner
 * of the tests and checks admission, index/search/read, the refusal of a
 * `root` argument and the exclusion of a stale source. Exit status: 0 every
 * check passed, 1 one failed, 2 usage or missing binaries. The folder is
 * removed unless `--keep`.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "smol-toml";
import {
  PROVIDER_ID,
  type ProviderEntry,
  providerEntry,
} from "../project_knowledge/runner_entry.ts";
import { FakeRunner } from "../tests/support/fake_runner.ts";

const CHECKOUT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
/** The binaries a live run needs in `--bin-dir`. */
export const BINARIES = ["webcodex-server", "webcodex-runner"] as const;
const USAGE =
  "usage: deno task e2e:project-knowledge -- --bin-dir /abs/target/dogfood [--keep] | --dry-run [--keep]";
const MARKER = "zebracornsmoke";
const PROTOCOL_VERSION = "2026-07-28";
/** Every scope a full check needs (what the WebCodex smokes grant). */
export const FULL_SCOPES = [
  "runtime:read",
  "project:read",
  "project:write",
  "job:run",
  "session:collaborate",
  "plugin:inspect",
  "plugin:invoke",
  "plugin:manage",
  "runner:manage",
];

/** Command-line options. */
export interface SmokeOptions {
  binDir: string | null;
  keep: boolean;
  dryRun: boolean;
}

/** Reads the command line (a leading `--` from `deno task` is ignored); null on a usage error. */
export function parseSmokeArgs(args: readonly string[]): SmokeOptions | null {
  const options: SmokeOptions = { binDir: null, keep: false, dryRun: false };
  for (let i = args[0] === "--" ? 1 : 0; i < args.length; i++) {
    if (args[i] === "--keep") options.keep = true;
    else if (args[i] === "--dry-run") options.dryRun = true;
    else if (args[i] === "--bin-dir" && args[i + 1] !== undefined) options.binDir = args[++i];
    else return null;
  }
  if (!options.dryRun && options.binDir === null) return null;
  return options;
}

/** The binaries missing from (or not executable in) `binDir`. */
export function missingBinaries(binDir: string): string[] {
  return BINARIES.filter((name) => {
    try {
      const info = Deno.statSync(join(binDir, name));
      return !info.isFile || ((info.mode ?? 0o755) & 0o111) === 0;
    } catch {
      return true;
    }
  });
}

/** The disposable world of one run. */
export interface Fixture {
  dir: string;
  home: string;
  xdg: { cache: string; config: string; data: string; state: string };
  serverData: string;
  project: string;
  other: string;
  registry: string;
  runnerToml: string;
  clientId: string;
  owner: string;
  foreign: string;
}

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

const commit = (repo: string, message: string) =>
  run("git", [
    "-c",
    "user.name=smoke",
    "-c",
    "user.email=smoke@example.org",
    "commit",
    "-qam",
    message,
  ], repo);

/** Builds the folders, repositories and registry entries (runner.toml comes later, with its token). */
export async function buildFixture(): Promise<Fixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pk-e2e-" }));
  const at = (...parts: string[]) => join(dir, ...parts);
  const fixture: Fixture = {
    dir,
    home: at("home"),
    xdg: {
      cache: at("xdg", "cache"),
      config: at("xdg", "config"),
      data: at("xdg", "data"),
      state: at("xdg", "state"),
    },
    serverData: at("server-data"),
    project: at("projects", "app"),
    other: at("projects", "other"),
    registry: at("registry"),
    runnerToml: at("runner.toml"),
    clientId: "smoke-runner",
    owner: "smoke-owner",
    foreign: "smoke-foreign",
  };
  for (
    const folder of [
      fixture.home,
      fixture.xdg.config,
      fixture.xdg.data,
      fixture.xdg.state,
      fixture.serverData,
      fixture.registry,
    ]
  ) {
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
  }
  await Deno.mkdir(fixture.xdg.cache, { recursive: true, mode: 0o700 });
  await Deno.chmod(fixture.xdg.cache, 0o700);
  for (
    const [repo, files] of [
      [fixture.project, {
        "README.md": `# App\n\nThe ${MARKER} notes live here.\n`,
        "src/server.ts":
          `export function startServer(port: number) {\n  return port; // ${MARKER}\n}\n`,
        "docs/guide.md": "# Guide\n\nHow to run the app.\n",
      }],
      [fixture.other, { "README.md": `# Other\n\nNot the ${MARKER} project.\n` }],
    ] as const
  ) {
    await Deno.mkdir(repo, { recursive: true });
    await run("git", ["init", "-q", "-b", "main"], repo);
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(join(repo, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(repo, path), text);
    }
    await run("git", ["add", "-A"], repo);
    await commit(repo, "initial");
  }
  for (const [id, path] of [["app", fixture.project], ["other", fixture.other]]) {
    await Deno.writeTextFile(
      join(fixture.registry, `${id}.toml`),
      stringify({ id, path, name: id, allow_patch: true }) + "\n",
    );
  }
  return fixture;
}

/** The provider entry of this checkout for the fixture's project. */
export function fixtureEntry(fixture: Fixture, deno = Deno.execPath()): ProviderEntry {
  return providerEntry({
    deno,
    checkout: CHECKOUT,
    root: fixture.project,
    cacheBase: fixture.xdg.cache,
  });
}

/** runner.toml for the fixture (written 0600 by {@linkcode writeRunnerToml}). */
export function runnerConfig(
  fixture: Fixture,
  options: { serverUrl: string; token: string; providers: ProviderEntry[] },
): string {
  return stringify({
    server_url: options.serverUrl,
    token: options.token,
    client_id: fixture.clientId,
    owner: fixture.owner,
    transport: "websocket",
    project_registry_dir: fixture.registry,
    policy: {
      allow_raw_shell: false,
      allow_cwd_anywhere: false,
      allowed_roots: [fixture.project, fixture.other],
    },
    plugins: { request_timeout_secs: 30, providers: options.providers },
  }) + "\n";
}

/** Writes runner.toml readable by its owner only. */
export async function writeRunnerToml(fixture: Fixture, text: string): Promise<void> {
  await Deno.writeTextFile(fixture.runnerToml, text, { mode: 0o600 });
  await Deno.chmod(fixture.runnerToml, 0o600);
}

/** The environment the Runner prepares for a provider: cleared, secrets never present. */
export function providerEnvironment(fixture: Fixture): Record<string, string> {
  return {
    HOME: fixture.home,
    XDG_CACHE_HOME: fixture.xdg.cache,
    XDG_CONFIG_HOME: fixture.xdg.config,
    XDG_DATA_HOME: fixture.xdg.data,
    XDG_STATE_HOME: fixture.xdg.state,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
  };
}

/** One request of the live run, for the plan. */
export interface PlannedRequest {
  step: string;
  path: string;
  token: string;
  body: unknown;
  expect: string;
}

/** What a live run sends, in order (tokens named, never shown). */
export function requestPlan(fixture: Fixture): PlannedRequest[] {
  const tool = (action: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    method: "tools/call",
    params: { name: "plugin_tool", arguments: action },
  });
  const runner = fixture.clientId;
  const project = `agent:${runner}:app`;
  return [
    {
      step: "wait for the Server",
      path: "/api/tools/call",
      token: "bootstrap",
      body: { tool: "list_projects", params: {} },
      expect: "success",
    },
    {
      step: "create the owner",
      path: "/api/users/create",
      token: "bootstrap",
      body: { username: fixture.owner },
      expect: "ok",
    },
    {
      step: "create the foreign user",
      path: "/api/users/create",
      token: "bootstrap",
      body: { username: fixture.foreign },
      expect: "ok",
    },
    {
      step: "owner token, every scope",
      path: "/api/tokens/create",
      token: "bootstrap",
      body: { username: fixture.owner, name: "smoke-full", scopes: FULL_SCOPES },
      expect: "token",
    },
    {
      step: "owner token without plugin:invoke",
      path: "/api/tokens/create",
      token: "bootstrap",
      body: {
        username: fixture.owner,
        name: "smoke-no-invoke",
        scopes: FULL_SCOPES.filter((s) => s !== "plugin:invoke"),
      },
      expect: "token",
    },
    {
      step: "foreign token",
      path: "/api/tokens/create",
      token: "bootstrap",
      body: { username: fixture.foreign, name: "smoke-foreign", scopes: FULL_SCOPES },
      expect: "token",
    },
    {
      step: "Runner agent token",
      path: "/api/agent-tokens/create",
      token: "bootstrap",
      body: { username: fixture.owner, client_id: runner, name: "smoke-runner" },
      expect: "token",
    },
    {
      step: "check: ready with four tools",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "check", runner, plugin: PROVIDER_ID }),
      expect: "ready, toolCount 4",
    },
    {
      step: "describe index/search/read/status with the project",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "describe", runner, plugin: PROVIDER_ID, tool: "search", project }),
      expect: "binding",
    },
    {
      step: "index (rebuild)",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<index binding>", arguments: { mode: "rebuild" } }),
      expect: "indexed",
    },
    {
      step: "edit a file, index (refresh)",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<index binding>", arguments: { mode: "refresh" } }),
      expect: "updated_files 1",
    },
    {
      step: "status",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<status binding>", arguments: {} }),
      expect: "indexed",
    },
    {
      step: "search",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<search binding>", arguments: { query: MARKER } }),
      expect: "hits",
    },
    {
      step: "read with the hit's source_hash",
      path: "/mcp",
      token: "owner",
      body: tool({
        action: "call",
        binding: "<read binding>",
        arguments: { path: "<hit path>", source_hash: "<hit hash>" },
      }),
      expect: "text",
    },
    {
      step: "call without plugin:invoke",
      path: "/mcp",
      token: "owner-no-invoke",
      body: tool({ action: "call", binding: "<search binding>", arguments: { query: MARKER } }),
      expect: "403 insufficient_scope or isError not_started",
    },
    {
      step: "describe as the foreign user",
      path: "/mcp",
      token: "foreign",
      body: tool({ action: "describe", runner, plugin: PROVIDER_ID, tool: "search", project }),
      expect: "refused",
    },
    {
      step: "binding for the other project",
      path: "/mcp",
      token: "owner",
      body: tool({
        action: "call",
        binding: "<search binding of agent:runner:other>",
        arguments: { query: MARKER },
      }),
      expect: "plugin_project_mismatch, not_started",
    },
    {
      step: "a root argument",
      path: "/mcp",
      token: "owner",
      body: tool({
        action: "call",
        binding: "<search binding>",
        arguments: { query: MARKER, root: "/" },
      }),
      expect: "plugin_arguments_schema_invalid, not_started",
    },
    {
      step: "edit without refresh: search omits the stale source",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<search binding>", arguments: { query: MARKER } }),
      expect: "stale_candidates_omitted ≥ 1",
    },
    {
      step: "read with the old hash",
      path: "/mcp",
      token: "owner",
      body: tool({
        action: "call",
        binding: "<read binding>",
        arguments: { path: "<stale path>", source_hash: "<old hash>" },
      }),
      expect: "source_changed",
    },
    {
      step: "remove the provider, reload",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "reload", runner }),
      expect: "plugins without project-knowledge",
    },
    {
      step: "the old binding",
      path: "/mcp",
      token: "owner",
      body: tool({ action: "call", binding: "<search binding>", arguments: { query: MARKER } }),
      expect: "not_started",
    },
  ];
}

/** The plan as text, every token shown as `<redacted: name>`. */
export function renderPlan(plan: PlannedRequest[]): string {
  return plan.map((request, i) =>
    `${
      String(i + 1).padStart(2)
    }. ${request.step}\n    POST ${request.path}  Authorization: Bearer <redacted: ${request.token}>\n    ${
      JSON.stringify(request.body)
    }\n    expect: ${request.expect}`
  ).join("\n");
}

/** A check's outcome line. */
function report(ok: boolean, what: string, detail = ""): boolean {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
  return ok;
}

/** The dry run: the provider entry through the fake Runner. */
export async function dryRun(fixture: Fixture): Promise<number> {
  const entry = fixtureEntry(fixture);
  await writeRunnerToml(
    fixture,
    runnerConfig(fixture, {
      serverUrl: "http://127.0.0.1:0",
      token: "<agent token: created by the live run>",
      providers: [entry],
    }),
  );
  console.log(
    `fixture: ${fixture.dir}\nrunner.toml: ${fixture.runnerToml}\n\nrequest plan of a live run:\n${
      renderPlan(requestPlan(fixture))
    }\n`,
  );
  console.log(`launching ${entry.command} ${entry.args.join(" ")} in ${entry.cwd}\n`);
  const runner = await FakeRunner.admitSpawned(
    FakeRunner.spawnEntry(entry, providerEnvironment(fixture)),
  );
  let passed = true;
  try {
    const tools = runner.tools.map((tool) => tool.name).sort();
    passed = report(
      tools.join(",") === "index,read,search,status",
      "admission: four tools",
      tools.join(", "),
    ) && passed;
    const rebuilt = await runner.ok("index", { mode: "rebuild" });
    passed = report(
      rebuilt.indexed_files === 3,
      "index (rebuild)",
      `indexed_files=${rebuilt.indexed_files}`,
    ) && passed;
    await Deno.writeTextFile(
      join(fixture.project, "docs/guide.md"),
      `# Guide\n\nRun the ${MARKER} app.\n`,
    );
    const refreshed = await runner.ok("index", { mode: "refresh" });
    passed = report(
      refreshed.updated_files === 1,
      "edit + index (refresh)",
      `updated_files=${refreshed.updated_files}`,
    ) && passed;
    const status = await runner.ok("status");
    passed = report(status.indexed === true, "status", `format=${status.format}`) && passed;
    const search = await runner.ok("search", { query: MARKER });
    const hits = search.hits as { path: string; source_hash: string; start_line: number }[];
    passed = report(hits.length === 3, "search", hits.map((hit) => hit.path).join(", ")) && passed;
    const server = hits.find((hit) => hit.path === "src/server.ts")!;
    const read = await runner.ok("read", {
      path: server.path,
      source_hash: server.source_hash,
      start_line: server.start_line,
    });
    passed = report(String(read.text).includes(MARKER), "read with the hit's source_hash") &&
      passed;
    const root = await runner.call("search", { query: MARKER, root: "/" });
    passed = report(
      root.dispatch === "not_started" && "code" in root &&
        root.code === "plugin_arguments_schema_invalid",
      "a root argument is refused by the schema",
      root.dispatch,
    ) && passed;
    await Deno.writeTextFile(
      join(fixture.project, "src/server.ts"),
      "export const changed = true;\n",
    );
    const stale = await runner.ok("search", { query: MARKER });
    const stalePaths = (stale.hits as { path: string }[]).map((hit) => hit.path);
    passed = report(
      !stalePaths.includes("src/server.ts") && Number(stale.stale_candidates_omitted) >= 1,
      "a stale source is omitted from search",
      `omitted=${stale.stale_candidates_omitted}`,
    ) && passed;
    const refused = await runner.errorCode("read", {
      path: server.path,
      source_hash: server.source_hash,
    });
    passed = report(refused === "source_changed", "read with the old hash is refused", refused) &&
      passed;
  } finally {
    await runner.kill();
  }
  console.log(
    "\nnot covered by a dry run: the Server, the WebSocket Runner, scopes, project bindings, reload (see e2e/README.md)",
  );
  return passed ? 0 : 1;
}

/** Stops a process: SIGINT, then SIGKILL after `graceMs`. */
async function stop(child: Deno.ChildProcess, graceMs: number): Promise<void> {
  try {
    child.kill("SIGINT");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
  }, graceMs);
  await child.status;
  clearTimeout(timer);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function randomToken(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(24)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** A plugin_tool answer, in either refusal shape. */
interface ToolAnswer {
  httpStatus: number;
  isError: boolean;
  structured: Record<string, unknown>;
}

/** Whether an answer is a refusal before dispatch: HTTP 403, or isError not_started (optionally with `code`). */
export function refusedBeforeDispatch(answer: ToolAnswer, code?: string): boolean {
  if (answer.httpStatus === 403) return code === undefined || code === "insufficient_scope";
  if (!answer.isError) return false;
  const error = answer.structured.error as { code?: string } | undefined;
  return answer.structured.dispatchState === "not_started" &&
    (code === undefined || error?.code === code);
}

/** The live run against real binaries. */
async function liveRun(fixture: Fixture, binDir: string): Promise<number> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const bootstrap = randomToken();
  const server = new Deno.Command(join(binDir, "webcodex-server"), {
    cwd: fixture.dir,
    clearEnv: true,
    env: {
      WEBCODEX_ADDR: `127.0.0.1:${port}`,
      WEBCODEX_DATA: fixture.serverData,
      WEBCODEX_TOKEN: bootstrap,
      ...providerEnvironment(fixture),
      RUST_LOG: "warn",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
    },
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  let runnerProcess: Deno.ChildProcess | null = null;
  let passed = true;
  const api = async (path: string, token: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  const pluginTool = async (
    token: string,
    action: Record<string, unknown>,
  ): Promise<ToolAnswer> => {
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "plugin_tool",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "plugin_tool",
          arguments: action,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const text = await response.text();
    const json = JSON.parse(text.startsWith("{") ? text : text.replace(/^[\s\S]*?data: /, "")) as {
      result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
    };
    return {
      httpStatus: response.status,
      isError: json.result?.isError === true,
      structured: json.result?.structuredContent ?? {},
    };
  };
  try {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const ready = await api("/api/tools/call", bootstrap, { tool: "list_projects", params: {} })
        .catch(() => null);
      if (ready?.body?.success === true) break;
      if (Date.now() > deadline) throw new Error("the Server did not answer within 45 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const username of [fixture.owner, fixture.foreign]) {
      const created = await api("/api/users/create", bootstrap, { username });
      if (created.status >= 300) throw new Error(`creating ${username} answered ${created.status}`);
    }
    const token = async (username: string, name: string, scopes: string[]) =>
      (await api("/api/tokens/create", bootstrap, { username, name, scopes })).body.token as string;
    const owner = await token(fixture.owner, "smoke-full", FULL_SCOPES);
    const noInvoke = await token(
      fixture.owner,
      "smoke-no-invoke",
      FULL_SCOPES.filter((s) => s !== "plugin:invoke"),
    );
    const foreign = await token(fixture.foreign, "smoke-foreign", FULL_SCOPES);
    const agent = (await api("/api/agent-tokens/create", bootstrap, {
      username: fixture.owner,
      client_id: fixture.clientId,
      name: "smoke-runner",
    })).body.token as string;
    const entry = fixtureEntry(fixture);
    await writeRunnerToml(
      fixture,
      runnerConfig(fixture, { serverUrl: base, token: agent, providers: [entry] }),
    );
    runnerProcess = new Deno.Command(join(binDir, "webcodex-runner"), {
      args: ["--config", fixture.runnerToml],
      cwd: fixture.dir,
      clearEnv: true,
      env: providerEnvironment(fixture),
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const runner = fixture.clientId;
    const project = `agent:${runner}:app`;
    let check: ToolAnswer | null = null;
    for (let i = 0; i < 120; i++) {
      check = await pluginTool(owner, { action: "check", runner, plugin: PROVIDER_ID });
      if (!check.isError && check.structured.ready === true) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    passed = report(
      check?.structured.ready === true && check.structured.toolCount === 4,
      "check: ready with four tools",
      JSON.stringify(check?.structured).slice(0, 200),
    ) && passed;
    const describe = async (tool: string, as = owner, target = project) =>
      await pluginTool(as, {
        action: "describe",
        runner,
        plugin: PROVIDER_ID,
        tool,
        project: target,
      });
    const bindings: Record<string, string> = {};
    for (const tool of ["index", "search", "read", "status"]) {
      const described = await describe(tool);
      bindings[tool] = String(described.structured.binding ?? "");
      passed = report(
        !described.isError && bindings[tool].startsWith("wc_pbind_"),
        `describe ${tool} with the project`,
      ) && passed;
    }
    const call = (binding: string, args: Record<string, unknown>, as = owner) =>
      pluginTool(as, { action: "call", binding, arguments: args });
    passed =
      report(!(await call(bindings.index, { mode: "rebuild" })).isError, "index (rebuild)") &&
      passed;
    await Deno.writeTextFile(
      join(fixture.project, "docs/guide.md"),
      `# Guide\n\nRun the ${MARKER} app.\n`,
    );
    const refreshed = await call(bindings.index, { mode: "refresh" });
    passed = report(refreshed.structured.updated_files === 1, "edit + index (refresh)") && passed;
    passed = report((await call(bindings.status, {})).structured.indexed === true, "status") &&
      passed;
    const search = await call(bindings.search, { query: MARKER });
    const hits = (search.structured.hits ?? []) as { path: string; source_hash: string }[];
    passed = report(hits.length === 3, "search", hits.map((hit) => hit.path).join(", ")) && passed;
    const server0 = hits.find((hit) => hit.path === "src/server.ts");
    const read = server0
      ? await call(bindings.read, { path: server0.path, source_hash: server0.source_hash })
      : null;
    passed = report(
      String(read?.structured.text ?? "").includes(MARKER),
      "read with the hit's source_hash",
    ) && passed;
    passed = report(
      refusedBeforeDispatch(await call(bindings.search, { query: MARKER }, noInvoke)),
      "a token without plugin:invoke is refused",
    ) && passed;
    const foreignDescribe = await describe("search", foreign);
    passed = report(
      refusedBeforeDispatch(foreignDescribe) || foreignDescribe.isError,
      "the foreign user cannot describe the owner's project",
    ) && passed;
    const otherBinding = String(
      (await describe("search", owner, `agent:${runner}:other`)).structured.binding ?? "",
    );
    passed = report(
      refusedBeforeDispatch(
        await call(otherBinding, { query: MARKER }),
        "plugin_project_mismatch",
      ),
      "a binding for the other project is refused before dispatch",
    ) && passed;
    passed = report(
      refusedBeforeDispatch(
        await call(bindings.search, { query: MARKER, root: "/" }),
        "plugin_arguments_schema_invalid",
      ),
      "a root argument is refused by the schema",
    ) && passed;
    await Deno.writeTextFile(
      join(fixture.project, "src/server.ts"),
      "export const changed = true;\n",
    );
    const stale = await call(bindings.search, { query: MARKER });
    passed = report(
      Number(stale.structured.stale_candidates_omitted) >= 1,
      "a stale source is omitted from search",
    ) && passed;
    if (server0) {
      const old = await call(bindings.read, {
        path: server0.path,
        source_hash: server0.source_hash,
      });
      passed = report(
        old.isError && (old.structured.error as { code?: string })?.code === "source_changed",
        "read with the old hash is refused",
      ) && passed;
    }
    await writeRunnerToml(
      fixture,
      runnerConfig(fixture, { serverUrl: base, token: agent, providers: [] }),
    );
    const reloaded = await pluginTool(owner, { action: "reload", runner });
    passed = report(!reloaded.isError, "config reload without the provider") && passed;
    passed = report(
      refusedBeforeDispatch(await call(bindings.search, { query: MARKER })),
      "the old binding is unusable after removal",
    ) && passed;
  } finally {
    if (runnerProcess) await stop(runnerProcess, 20_000);
    await stop(server, 20_000);
  }
  return passed ? 0 : 1;
}

if (import.meta.main) {
  const options = parseSmokeArgs(Deno.args);
  if (options === null) {
    console.error(USAGE);
    Deno.exit(2);
  }
  if (!options.dryRun) {
    const missing = missingBinaries(options.binDir!);
    if (missing.length > 0) {
      console.error(
        `missing in ${options.binDir}: ${
          missing.join(", ")
        } (build them with cargo build --profile dogfood ` +
          `-p webcodex --bin webcodex-server -p webcodex-runner --bin webcodex-runner, or run --dry-run)`,
      );
      Deno.exit(2);
    }
  }
  const fixture = await buildFixture();
  let status = 1;
  try {
    status = options.dryRun ? await dryRun(fixture) : await liveRun(fixture, options.binDir!);
  } catch (error) {
    console.error(`smoke failed: ${(error as Error).message}`);
    status = 1;
  } finally {
    if (options.keep) console.log(`kept ${fixture.dir}`);
    else await Deno.remove(fixture.dir, { recursive: true });
  }
  console.log(status === 0 ? "smoke passed" : "smoke failed");
  Deno.exit(status);
}
