/**
 * A fake WebCodex Runner for the project-knowledge provider. It launches the
 * provider exactly as the README's runner.toml does (same flags, cwd, a
 * cleared environment) and enforces the Runner's side of webcodex-plugin-v1:
 * LF framing and the 1 MiB line cap, integer ids counting from 1, one request
 * in flight, no unsolicited lines, exact response shapes, schema profile v1
 * on the catalog, argument validation before any byte is sent, result bounds
 * and per-request timeouts.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { instanceProblems, schemaProblems } from "./schema_profile.ts";
import { providerArgs as launchArgs } from "../../project_knowledge/runner_entry.ts";
import { providerSetup } from "../../project_knowledge/main.ts";
import { createProvider } from "../../project_knowledge/protocol/provider.ts";
import { serveJsonRpcLines } from "../../shared/jsonrpc_lines.ts";

/** The provider entry point. */
export const PROVIDER_MAIN = fileURLToPath(
  new URL("../../project_knowledge/main.ts", import.meta.url),
);
/** The checkout holding the provider (its folders are readable so a worker can load). */
export const PROGRAM_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** How one provider is launched. */
export interface ProviderLaunch {
  /** The configured cwd (the project root). */
  cwd: string;
  /** The cache base (XDG_CACHE_HOME). */
  cacheBase: string;
  /** HOME of the prepared environment; defaults to the cache base's parent. */
  home?: string;
  /** Extra environment variables (e.g. inherited GIT_* or PWD). */
  env?: Record<string, string>;
  /** Extra names for --allow-env (test-only knobs). */
  allowEnv?: string[];
  /** Overrides the root used in --allow-read (defaults to cwd). */
  readRoot?: string;
  /** Another entry script (a test variant of main.ts). */
  main?: string;
  /** Leaves the program folders out of --allow-read (no indexing worker can load). */
  noProgramRead?: boolean;
  /**
   * Serves the provider's code in this process over in-memory stdio, for
   * cases about what the provider does rather than how it is launched (flags,
   * environment, exit codes, signals). Only `cwd`, `cacheBase` and `home`
   * apply: the options above name process-level properties and are refused.
   */
  inProcess?: boolean;
}

/**
 * The provider's side as the fake Runner talks to it: a child process, or
 * the provider served in this process ({@linkcode ProviderLaunch.inProcess}).
 */
export interface ProviderPipes {
  /** The process serving the provider. */
  readonly pid: number;
  /** Request bytes. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Response bytes. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Diagnostics. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles when serving ended. */
  readonly status: Promise<{ code: number }>;
  /** Stops serving at once. */
  kill(signal?: Deno.Signal): void;
}

/** A stream fed by `push` without backpressure, as a pipe's buffer is. */
function pushStream(): { stream: ReadableStream<Uint8Array>; push(bytes?: Uint8Array): void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    push(bytes) {
      try {
        if (bytes) controller.enqueue(bytes.slice());
        else controller.close();
      } catch {
        // the reader went away, as a closed pipe's would
      }
    },
  };
}

/**
 * Serves the provider in this process: the same setup from cwd and
 * environment values as main.ts, the same handler and line framing, with
 * in-memory stdio. Killing it ends its input at once; a request in progress
 * finishes, but its answer is never read.
 */
function serveInProcess(launch: ProviderLaunch): ProviderPipes {
  const refused = (["env", "allowEnv", "readRoot", "main", "noProgramRead"] as const)
    .filter((key) => launch[key] !== undefined);
  if (refused.length > 0) throw new Error(`in process, ${refused.join(", ")} cannot apply`);
  const stdin = new TransformStream<Uint8Array, Uint8Array>({}, undefined, { highWaterMark: 64 });
  const stdout = pushStream();
  const stderr = pushStream();
  const diagnose = (message: string) =>
    stderr.push(new TextEncoder().encode(`project-knowledge: ${message}\n`));
  const status = (async () => {
    const setup = await providerSetup({
      cwd: launch.cwd,
      home: launch.home ?? join(launch.cacheBase, ".."),
      xdgCacheHome: launch.cacheBase,
    });
    await serveJsonRpcLines(createProvider({ ...setup, diagnose }), {
      input: stdin.readable,
      output: { write: (bytes) => Promise.resolve((stdout.push(bytes), bytes.length)) },
      onDiagnostic: diagnose,
    });
    return { code: 0 };
  })().catch(() => ({ code: 137 })).finally(() => {
    stdout.push();
    stderr.push();
  });
  return {
    pid: Deno.pid,
    stdin: stdin.writable,
    stdout: stdout.stream,
    stderr: stderr.stream,
    status,
    kill: () => void stdin.writable.abort().catch(() => {}),
  };
}

/** The launch arguments as runner.toml gives them (one module for README, Runner and smoke). */
export function providerArgs(
  root: string,
  cacheBase: string,
  options: { allowEnv?: string[]; main?: string; noProgramRead?: boolean } = {},
): string[] {
  return launchArgs({ checkout: PROGRAM_ROOT, root, cacheBase }, {
    ...options,
    main: options.main ?? PROVIDER_MAIN,
  });
}

/** A tool result as validated by the fake Runner. */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** The outcome of one call. */
export type CallOutcome =
  | { dispatch: "not_started"; code: string; problems: string[] }
  | { dispatch: "completed"; result: ToolResult; bytes: number }
  | { dispatch: "completed"; rpcError: { code: number; message: string } };

/** A protocol violation the real Runner would treat as fatal. */
export class ProtocolViolation extends Error {
  /** The Runner's code for it. */
  readonly code: string;

  /** Creates a violation with the Runner's code. */
  constructor(code: string, detail: string) {
    super(`${code}: ${detail}`);
    this.code = code;
  }
}

/**
 * The test process's Deno cache. Without it every project's provider would
 * compile the program again into its own `XDG_CACHE_HOME/deno`.
 */
function sharedDenoDir(): string {
  const given = Deno.env.get("DENO_DIR");
  if (given) return given;
  const cache = Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "deno");
}

const MAX_LINE = 1024 * 1024;
const RESULT_KEYS = new Set(["content", "structuredContent", "isError"]);
const TOOL_KEYS = new Set([
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "projectBound",
]);
const ANNOTATION_KEYS = new Set([
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
]);
// deno-lint-ignore no-control-regex
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** One provider process driven like the Runner drives it. */
export class FakeRunner {
  readonly child: ProviderPipes;
  #nextId = 1;
  #busy = false;
  #bytes = new Uint8Array(0);
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pendingRead: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  #eof = false;
  #stderr: Promise<string>;
  /** The frozen catalog from tools/list, once admitted. */
  tools: Record<string, unknown>[] = [];

  private constructor(child: ProviderPipes) {
    this.child = child;
    this.#reader = child.stdout.getReader();
    this.#stderr = new Response(child.stderr).text();
  }

  /** Spawns the provider without talking to it. */
  static spawn(launch: ProviderLaunch): FakeRunner {
    if (launch.inProcess) return new FakeRunner(serveInProcess(launch));
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: launch.home ?? join(launch.cacheBase, ".."),
      XDG_CACHE_HOME: launch.cacheBase,
      NO_COLOR: "1",
      DENO_DIR: sharedDenoDir(),
      ...launch.env,
    };
    return FakeRunner.spawnEntry({
      command: Deno.execPath(),
      args: providerArgs(launch.readRoot ?? launch.cwd, launch.cacheBase, {
        allowEnv: launch.allowEnv,
        main: launch.main,
        noProgramRead: launch.noProgramRead,
      }),
      cwd: launch.cwd,
    }, env);
  }

  /**
   * Spawns exactly a runner.toml entry's command, arguments and cwd with the
   * given (Runner-prepared) environment and nothing else.
   */
  static spawnEntry(
    entry: { command: string; args: string[]; cwd: string },
    env: Record<string, string>,
  ): FakeRunner {
    const child = new Deno.Command(entry.command, {
      args: entry.args,
      cwd: entry.cwd,
      clearEnv: true,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new FakeRunner(child);
  }

  /** Spawns and admits the provider: initialize, then tools/list with catalog checks. */
  static async admit(launch: ProviderLaunch): Promise<FakeRunner> {
    return await FakeRunner.admitSpawned(FakeRunner.spawn(launch));
  }

  /** Admits an already spawned provider (see {@linkcode FakeRunner.spawnEntry}). */
  static async admitSpawned(runner: FakeRunner): Promise<FakeRunner> {
    try {
      const init = await runner.request("initialize", { protocolVersion: "webcodex-plugin-v1" });
      if ("error" in init) {
        throw new ProtocolViolation("plugin_initialize_invalid", JSON.stringify(init.error));
      }
      const result = init.result as Record<string, unknown>;
      if (result?.protocolVersion !== "webcodex-plugin-v1") {
        throw new ProtocolViolation("plugin_protocol_version_mismatch", JSON.stringify(result));
      }
      const list = await runner.request("tools/list", {});
      if ("error" in list) throw new ProtocolViolation("plugin_tools_list_invalid", "rpc error");
      runner.tools = validateCatalog(list.result);
      return runner;
    } catch (error) {
      await runner.kill();
      throw error;
    }
  }

  /** Sends one request and returns its validated response. */
  async request(
    method: string,
    params: unknown,
    timeoutMs = 30_000,
  ): Promise<{ result: unknown } | { error: { code: number; message: string } }> {
    if (this.#busy) throw new ProtocolViolation("plugin_provider_busy", "one request at a time");
    this.#busy = true;
    try {
      if (this.#bytes.length > 0) {
        throw new ProtocolViolation("plugin_unexpected_message", "line nobody asked for");
      }
      const id = this.#nextId++;
      await this.writeLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      const line = await this.readLine(timeoutMs);
      if (line === null) throw new ProtocolViolation("plugin_eof", `no response to ${method}`);
      return parseResponse(line, id);
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Calls a tool the way the gateway does: arguments are validated against the
   * frozen catalog first (NotStarted on failure, nothing sent).
   */
  async call(name: string, args: unknown = {}, timeoutMs = 30_000): Promise<CallOutcome> {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) return { dispatch: "not_started", code: "plugin_tool_unavailable", problems: [] };
    const problems = instanceProblems(tool.inputSchema as Record<string, unknown>, args);
    if (problems.length > 0) {
      return { dispatch: "not_started", code: "plugin_arguments_schema_invalid", problems };
    }
    if (new TextEncoder().encode(JSON.stringify(args)).length > 64 * 1024) {
      return { dispatch: "not_started", code: "plugin_request_too_large", problems: [] };
    }
    const response = await this.request("tools/call", { name, arguments: args }, timeoutMs);
    if ("error" in response) return { dispatch: "completed", rpcError: response.error };
    const bytes = new TextEncoder().encode(JSON.stringify(response.result)).length;
    const result = validateResult(response.result, bytes);
    checkOutput(tool.outputSchema as Record<string, unknown> | undefined, result);
    return { dispatch: "completed", result, bytes };
  }

  /** Calls a tool and returns its structuredContent, failing on anything but success. */
  async ok(name: string, args: unknown = {}): Promise<Record<string, unknown>> {
    const outcome = await this.call(name, args);
    if (outcome.dispatch !== "completed" || !("result" in outcome) || outcome.result.isError) {
      throw new Error(`${name} did not succeed: ${JSON.stringify(outcome)}`);
    }
    return outcome.result.structuredContent;
  }

  /** Calls a tool expecting a known error; returns its code. */
  async errorCode(name: string, args: unknown = {}): Promise<string> {
    const outcome = await this.call(name, args);
    if (outcome.dispatch !== "completed" || !("result" in outcome) || !outcome.result.isError) {
      throw new Error(`${name} did not fail: ${JSON.stringify(outcome).slice(0, 2000)}`);
    }
    return (outcome.result.structuredContent.error as { code: string }).code;
  }

  /** Writes one raw line (LF appended). */
  async writeLine(line: string): Promise<void> {
    const bytes = new TextEncoder().encode(line + "\n");
    if (bytes.length - 1 > MAX_LINE) {
      throw new ProtocolViolation("plugin_request_too_large", "line");
    }
    const writer = this.child.stdin.getWriter();
    try {
      await writer.write(bytes);
    } finally {
      writer.releaseLock();
    }
  }

  /** Reads one raw stdout line without its LF, or null at EOF. */
  async readLine(timeoutMs = 30_000): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const newline = this.#bytes.indexOf(10);
      if (newline !== -1) {
        if (newline > MAX_LINE) throw new ProtocolViolation("plugin_message_too_large", "line");
        const line = this.#bytes.subarray(0, newline);
        this.#bytes = this.#bytes.slice(newline + 1);
        return new TextDecoder("utf-8", { fatal: true }).decode(line).replace(/\r$/, "");
      }
      if (this.#bytes.length > MAX_LINE) {
        throw new ProtocolViolation("plugin_message_too_large", "line");
      }
      if (this.#eof) {
        if (this.#bytes.length > 0) {
          throw new ProtocolViolation("plugin_malformed_json", "no final LF");
        }
        return null;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ProtocolViolation("plugin_timeout", "no response in time");
      this.#pendingRead ??= this.#reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), remaining);
      });
      const step = await Promise.race([this.#pendingRead, timedOut]);
      clearTimeout(timer);
      if (step === "timeout") continue;
      this.#pendingRead = null;
      if (step.done) this.#eof = true;
      else {
        const joined = new Uint8Array(this.#bytes.length + step.value.length);
        joined.set(this.#bytes);
        joined.set(step.value, this.#bytes.length);
        this.#bytes = joined;
      }
    }
  }

  /** Closes stdin (EOF) and waits for the exit; returns the code and stderr. */
  async close(timeoutMs = 10_000): Promise<{ code: number; stderr: string; extraStdout: string }> {
    await this.child.stdin.close().catch(() => {});
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const status = await this.child.status;
    clearTimeout(timer);
    let extra = "";
    while (true) {
      const line = await this.readLine(5_000).catch(() => null);
      if (line === null) break;
      extra += line + "\n";
    }
    return { code: status.code, stderr: await this.#stderr, extraStdout: extra };
  }

  /** Kills the process tree (as on retire) and waits for it. */
  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.child.status;
    await this.child.stdin.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.#stderr.catch(() => "");
  }
}

function parseResponse(
  line: string,
  id: number,
): { result: unknown } | { error: { code: number; message: string } } {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line);
  } catch {
    throw new ProtocolViolation("plugin_malformed_json", line.slice(0, 200));
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw new ProtocolViolation("plugin_protocol_error", "not an object");
  }
  if (message.jsonrpc !== "2.0" || "method" in message) {
    throw new ProtocolViolation("plugin_protocol_error", "not a response");
  }
  if (typeof message.id !== "number" || !Number.isInteger(message.id) || message.id < 0) {
    throw new ProtocolViolation("plugin_response_id_invalid", String(message.id));
  }
  if (message.id < id) {
    throw new ProtocolViolation("plugin_duplicate_response_id", String(message.id));
  }
  if (message.id > id) {
    throw new ProtocolViolation("plugin_unknown_response_id", String(message.id));
  }
  if (("result" in message) === ("error" in message)) {
    throw new ProtocolViolation("plugin_protocol_error", "exactly one of result or error");
  }
  if ("error" in message) {
    const error = message.error as { code?: unknown; message?: unknown };
    const bytes = typeof error?.message === "string"
      ? new TextEncoder().encode(error.message).length
      : 0;
    if (!Number.isInteger(error?.code) || bytes < 1 || bytes > 512) {
      throw new ProtocolViolation("plugin_protocol_error", "malformed error");
    }
    return { error: error as { code: number; message: string } };
  }
  return { result: message.result };
}

/** Validates a tools/list result and returns its tools. */
export function validateCatalog(result: unknown): Record<string, unknown>[] {
  if (typeof result !== "object" || result === null || Object.keys(result).join() !== "tools") {
    throw new ProtocolViolation("plugin_tools_list_invalid", "tools_list_result_malformed");
  }
  const tools = (result as { tools: unknown }).tools;
  if (!Array.isArray(tools) || tools.length > 128) {
    throw new ProtocolViolation("plugin_tools_list_invalid", "tool_count_exceeded");
  }
  const names = new Set<string>();
  for (const tool of tools as Record<string, unknown>[]) {
    const bad = (diagnostic: string) =>
      new ProtocolViolation("plugin_tools_list_invalid", `${diagnostic} (${String(tool?.name)})`);
    if (typeof tool !== "object" || tool === null) throw bad("tool_definition_invalid");
    for (const key of Object.keys(tool)) {
      if (!TOOL_KEYS.has(key)) throw bad("tool_definition_invalid");
    }
    if (typeof tool.name !== "string" || !/^[A-Za-z0-9_.-]{1,128}$/.test(tool.name)) {
      throw bad("invalid_tool_name");
    }
    if (names.has(tool.name)) throw bad("duplicate_tool_name");
    names.add(tool.name);
    if (
      tool.title !== undefined &&
      (typeof tool.title !== "string" || tool.title.length === 0 || tool.title.length > 128 ||
        FORBIDDEN_CONTROL.test(tool.title))
    ) {
      throw bad("invalid_tool_title");
    }
    if (
      tool.description !== undefined &&
      (typeof tool.description !== "string" || tool.description.length > 4096 ||
        FORBIDDEN_CONTROL.test(tool.description))
    ) {
      throw bad("invalid_tool_description");
    }
    const problems = schemaProblems(tool.inputSchema);
    if (problems.length > 0) throw bad(`input_schema_invalid: ${problems.join("; ")}`);
    if (tool.outputSchema !== undefined) {
      const outputProblems = schemaProblems(tool.outputSchema);
      if (outputProblems.length > 0) {
        throw bad(`output_schema_invalid: ${outputProblems.join("; ")}`);
      }
    }
    if (tool.annotations !== undefined) {
      const annotations = tool.annotations as Record<string, unknown>;
      if (typeof annotations !== "object" || annotations === null) throw bad("annotations_invalid");
      for (const [key, value] of Object.entries(annotations)) {
        if (!ANNOTATION_KEYS.has(key) || typeof value !== "boolean") {
          throw bad("annotations_invalid");
        }
      }
    }
    if (tool.projectBound !== undefined && typeof tool.projectBound !== "boolean") {
      throw bad("tool_definition_invalid");
    }
  }
  const sorted = [...names].sort();
  if (sorted.join() !== [...names].join()) {
    throw new ProtocolViolation("plugin_tools_list_invalid", "catalog not sorted by name");
  }
  return tools as Record<string, unknown>[];
}

/**
 * With an `outputSchema`, every `structuredContent` (errors too) must
 * satisfy it, else the Runner retires the provider.
 */
export function checkOutput(schema: Record<string, unknown> | undefined, result: ToolResult): void {
  if (schema === undefined) return;
  const problems = instanceProblems(schema, result.structuredContent);
  if (problems.length > 0) {
    throw new ProtocolViolation("plugin_output_schema_violation", problems.join("; "));
  }
}

/** Validates a tools/call result as the Runner does, plus our own 16 KiB bound. */
function validateResult(result: unknown, bytes: number): ToolResult {
  const invalid = (detail: string) => new ProtocolViolation("plugin_result_invalid", detail);
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw invalid("not an object");
  }
  for (const key of Object.keys(result)) if (!RESULT_KEYS.has(key)) throw invalid(`key ${key}`);
  const { content, structuredContent, isError } = result as Record<string, unknown>;
  if (!Array.isArray(content) || content.length > 32) throw invalid("content");
  for (const item of content) {
    if (item?.type !== "text" || typeof item.text !== "string" || Object.keys(item).length !== 2) {
      throw invalid("content item");
    }
    if (
      new TextEncoder().encode(item.text).length > 64 * 1024 || FORBIDDEN_CONTROL.test(item.text)
    ) {
      throw invalid("content text");
    }
  }
  if (
    typeof structuredContent !== "object" || structuredContent === null ||
    Array.isArray(structuredContent)
  ) {
    throw invalid("structuredContent");
  }
  if (new TextEncoder().encode(JSON.stringify(structuredContent)).length > 128 * 1024) {
    throw invalid("structuredContent too large");
  }
  if (isError !== undefined && typeof isError !== "boolean") throw invalid("isError");
  if (bytes > 256 * 1024) throw invalid("result too large");
  // The provider's own bound is stricter than the Runner's.
  if (bytes > 16 * 1024) throw invalid(`result of ${bytes} bytes exceeds 16 KiB`);
  return { content, structuredContent, isError: isError === true } as ToolResult;
}
