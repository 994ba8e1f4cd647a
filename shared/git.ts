/**
 * The hardened Git runner for read paths. It runs on Deno and on Node (it
 * uses only `node:` modules), so bundled Node programs share it.
 *
 * Every call runs `git` without a shell, in a cleared environment (only `PATH`
 * plus fixed safety variables, and an allocator setting for the calls that
 * ask `largeHeap`), with hooks, fsmonitor and every transport
 * disabled, with a deadline and byte caps on stdout and stderr. Inherited
 * `GIT_*` variables never reach Git, so they cannot redirect a call to another
 * repository, index or configuration.
 *
 * @module
 */

import { concatBytes } from "./byte_queue.ts";
import { CodedError } from "./coded_error.ts";
import { spawn } from "node:child_process";
import { childCommand } from "./child_lifetime.ts";
import process from "node:process";
import { Readable, Writable } from "node:stream";

/** Stable codes of {@linkcode GitError}. */
export type GitErrorCode =
  | "GIT_UNAVAILABLE"
  | "GIT_TIMEOUT"
  | "GIT_OUTPUT_LIMIT"
  | "GIT_FAILED"
  | "GIT_BAD_OBJECT_NAME"
  | "GIT_READER_STOPPED"
  | "GIT_AUTH_FAILED"
  | "GIT_ACCESS_DENIED"
  | "GIT_FETCH_FAILED";

/**
 * A failed Git call. `message` is short and safe to show; `stderr` may name
 * host paths and is for local diagnostics only.
 *
 * @example
 * ```ts ignore
 * try {
 *   await runGit(["rev-parse", "--verify", "no-such-branch"], { cwd: "." });
 * } catch (error) {
 *   if (error instanceof GitError) console.error(error.code); // GIT_FAILED
 * }
 * ```
 */
export class GitError extends CodedError<GitErrorCode> {
  override readonly name = "GitError";
  /** Git's exit code, when it exited. */
  readonly exitCode: number | null;
  /** The head of Git's stderr: diagnostics only, never shown to callers. */
  readonly stderr: string;

  /** Creates an error with a stable code and a short lower-case message. */
  constructor(
    code: GitErrorCode,
    message: string,
    details: { exitCode?: number | null; stderr?: string } = {},
  ) {
    super(code, message);
    this.exitCode = details.exitCode ?? null;
    this.stderr = details.stderr ?? "";
  }
}

/** Options of one Git call. */
export interface GitRunOptions {
  /** Working directory: the repository (or its work tree). */
  cwd: string;
  /** Deadline for the whole call, in milliseconds. Default 10 s. */
  timeoutMs?: number;
  /** Most stdout bytes accepted; more fails with GIT_OUTPUT_LIMIT. Default 8 MiB. */
  maxStdoutBytes?: number;
  /** Most stderr bytes accepted; more fails with GIT_OUTPUT_LIMIT. Default 64 KiB. */
  maxStderrBytes?: number;
  /** Exit codes that count as success. Default `[0]`. */
  okExitCodes?: readonly number[];
  /** Bytes written to Git's stdin, which is then closed. Default: no stdin. */
  stdin?: Uint8Array;
  /** Aborting the signal kills Git and fails the call with GIT_TIMEOUT. */
  signal?: AbortSignal;
  /**
   * Transports this call may use (for example `["file", "https", "ssh"]` for
   * a fetch). Default: none, every transport is blocked.
   */
  transports?: readonly string[];
  /**
   * Configuration for this call given through the environment
   * (`GIT_CONFIG_COUNT`), so a value such as an authorization header never
   * appears in a process listing.
   */
  config?: Readonly<Record<string, string>>;
  /**
   * Whether Git builds many large buffers in this call (blame, line
   * history: every version of a file, diffed): its allocator then keeps its
   * heap in transparent huge pages (see `LARGE_HEAP_ENVIRONMENT`).
   */
  largeHeap?: boolean;
}

/** What a successful Git call produced. */
export interface GitResult {
  /** The exit code (one of `okExitCodes`). */
  exitCode: number;
  /** Everything Git wrote to stdout. */
  stdout: Uint8Array;
  /** Git's stderr, decoded leniently. */
  stderr: string;
}

const FULL_COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether `text` is a full commit id (SHA-1 or SHA-256, lower-case hex). */
export function isFullCommitId(text: string): boolean {
  return FULL_COMMIT_ID.test(text);
}

/** Default deadline of one call. */
export const GIT_DEFAULT_TIMEOUT_MS = 10_000;
/** Default stdout cap of one call. */
export const GIT_DEFAULT_MAX_STDOUT = 8 * 1024 * 1024;
/** Default stderr cap of one call. */
export const GIT_DEFAULT_MAX_STDERR = 64 * 1024;

const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";

// Configuration that could run a program or reach the network is pinned on the
// command line, which outranks repository configuration.
const SAFETY_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "protocol.allow=never",
  "credential.helper=",
  "gc.auto=0",
  "maintenance.auto=false",
];

/**
 * The environment every Git call gets, and nothing else. An empty
 * `GIT_ALLOW_PROTOCOL` blocks every transport even where repository
 * configuration allows one. `config` entries are passed as
 * `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (readable only by the same user,
 * unlike arguments).
 *
 * @example
 * ```ts ignore
 * const env = gitEnvironment(["https"]);
 * console.assert(env.GIT_ALLOW_PROTOCOL === "https" && env.GIT_TERMINAL_PROMPT === "0");
 * ```
 */
export function gitEnvironment(
  transports: readonly string[] = [],
  config: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const entries = Object.entries(config);
  const configured = Object.fromEntries([
    ...(entries.length > 0 ? [["GIT_CONFIG_COUNT", String(entries.length)]] : []),
    ...entries.flatMap(([key, value], i) => [[`GIT_CONFIG_KEY_${i}`, key], [
      `GIT_CONFIG_VALUE_${i}`,
      value,
    ]]),
  ]);
  return {
    ...configured,
    PATH: hostPath(),
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_LAZY_FETCH: "1",
    GIT_ALLOW_PROTOCOL: transports.join(":"),
    GIT_LITERAL_PATHSPECS: "1",
  };
}

/**
 * The environment added for a call with `largeHeap`. glibc's allocator
 * serves each blob version and diff buffer of a blame or line history (a
 * few hundred KiB each, thousands of them) from fresh pages, and Git spends
 * a third of its time in page faults; with its heap in huge pages
 * (`glibc.malloc.hugetlb=1`, where the kernel allows them through
 * `madvise`) the same call faults a few thousand times instead of tens of
 * thousands. Other C libraries ignore the variable; the output is the same.
 */
export const LARGE_HEAP_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: "glibc.malloc.hugetlb=1",
};

function hostPath(): string {
  try {
    return process.env.PATH || FALLBACK_PATH;
  } catch {
    return FALLBACK_PATH; // Deno without --allow-env=PATH
  }
}

let leadingArgs: Promise<string[]> | undefined;

/**
 * The options placed before every subcommand: `--no-lazy-fetch` when this Git
 * has it (probed once), then the pinned safety configuration.
 *
 * @example
 * ```ts ignore
 * const args = [...await gitLeadingArgs(), "cat-file", "--batch"];
 * ```
 */
export function gitLeadingArgs(): Promise<string[]> {
  leadingArgs ??= probeLeadingArgs();
  return leadingArgs;
}

async function probeLeadingArgs(): Promise<string[]> {
  const config = SAFETY_CONFIG.flatMap((entry) => ["-c", entry]);
  const common = ["--no-pager", ...config];
  const noLazyFetch = await gitAccepts(["--no-lazy-fetch", "version"]);
  return noLazyFetch ? ["--no-lazy-fetch", ...common] : common;
}

async function gitAccepts(args: string[]): Promise<boolean> {
  try {
    const child = spawnGit(args, { cwd: ".", stdin: "null" });
    void child.stdout.cancel().catch(() => {});
    void child.stderr.cancel().catch(() => {});
    return (await child.status).code === 0;
  } catch {
    return false;
  }
}

/**
 * Reports whether the installed Git understands `--no-lazy-fetch`.
 *
 * @example
 * ```ts ignore
 * if (!await gitHasNoLazyFetch()) console.error("this Git may fetch missing objects lazily");
 * ```
 */
export async function gitHasNoLazyFetch(): Promise<boolean> {
  return (await gitLeadingArgs())[0] === "--no-lazy-fetch";
}

/**
 * Runs one Git command on a read path and returns its output, or throws a
 * {@linkcode GitError}: GIT_UNAVAILABLE, GIT_TIMEOUT, GIT_OUTPUT_LIMIT or
 * GIT_FAILED.
 *
 * @example
 * ```ts ignore
 * const { stdout } = await runGit(["rev-parse", "HEAD"], { cwd: ".", timeoutMs: 5_000 });
 * const head = new TextDecoder().decode(stdout).trim();
 * ```
 */
export async function runGit(
  args: readonly string[],
  options: GitRunOptions,
): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? GIT_DEFAULT_TIMEOUT_MS;
  const okExitCodes = options.okExitCodes ?? [0];
  // GIT_ALLOW_PROTOCOL is the allowlist once set; the -c lifts the blanket ban.
  const transport = options.transports?.length ? ["-c", "protocol.allow=always"] : [];
  const child = spawnGit([...await gitLeadingArgs(), ...transport, ...args], {
    cwd: options.cwd,
    stdin: options.stdin ? "piped" : "null",
    transports: options.transports,
    config: options.config,
    largeHeap: options.largeHeap,
  });

  let stopReason: "timeout" | "output" | null = null;
  const stop = (reason: "timeout" | "output") => {
    stopReason ??= reason;
    killQuietly(child);
  };
  const deadline = gitDeadline(timeoutMs, () => stop("timeout"));
  const onAbort = () => stop("timeout");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stop("timeout");

  const stdoutReader = child.stdout.getReader();
  const stderrReader = child.stderr.getReader();
  const stdoutDone = collectCapped(stdoutReader, {
    cap: options.maxStdoutBytes ?? GIT_DEFAULT_MAX_STDOUT,
    onOverflow: () => stop("output"),
  });
  const stderrDone = collectCapped(stderrReader, {
    cap: options.maxStderrBytes ?? GIT_DEFAULT_MAX_STDERR,
    onOverflow: () => stop("output"),
  });
  if (options.stdin) void writeAndClose(child.stdin, options.stdin);

  try {
    const status = await child.status;
    if (status.spawnFailed) throw new GitError("GIT_UNAVAILABLE", "git could not be started");
    // A grandchild may still hold the pipes open after Git was killed.
    if (stopReason) {
      await stdoutReader.cancel().catch(() => {});
      await stderrReader.cancel().catch(() => {});
    }
    const [stdout, stderrBytes] = await Promise.all([stdoutDone, stderrDone]);
    const stderr = new TextDecoder().decode(stderrBytes);
    if (stopReason === "timeout") {
      throw new GitError("GIT_TIMEOUT", "git timed out", { stderr });
    }
    if (stopReason === "output") {
      throw new GitError("GIT_OUTPUT_LIMIT", "git output exceeded its limit", { stderr });
    }
    if (!okExitCodes.includes(status.code)) {
      throw new GitError("GIT_FAILED", "git failed", { exitCode: status.code, stderr });
    }
    return { exitCode: status.code, stdout, stderr };
  } finally {
    deadline.clear();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** How Git is started. */
export interface SpawnOptions {
  cwd: string;
  stdin: "piped" | "null";
  /** Transports the call may use (default: none). */
  transports?: readonly string[];
  /** Configuration given through the environment, never the command line (see `gitEnvironment`). */
  config?: Readonly<Record<string, string>>;
  /** Git's allocator tuned for many large buffers (see `GitRunOptions.largeHeap`). */
  largeHeap?: boolean;
}

/** A running Git process with web streams, the same on Deno and Node. */
export interface GitProcess {
  /** Git's stdin, when piped. */
  stdin: WritableStream<Uint8Array>;
  /** Git's stdout. */
  stdout: ReadableStream<Uint8Array>;
  /** Git's stderr. */
  stderr: ReadableStream<Uint8Array>;
  /** Resolves when Git exits; `spawnFailed` when it never started. */
  status: Promise<{ code: number; spawnFailed: boolean }>;
  /** Sends SIGKILL, ignoring a process that already exited. */
  kill(): void;
}

/**
 * Spawns Git with the hardened environment; GIT_UNAVAILABLE if it cannot
 * start. Deno's own process API is used under Deno (Deno's `node:` process
 * shim looks `git` up on the parent's PATH, not the one given); Node uses
 * `node:child_process`.
 *
 * @example
 * ```ts ignore
 * const child = spawnGit(["cat-file", "--batch"], { cwd: ".", stdin: "piped" });
 * // … write requests to child.stdin, read child.stdout …
 * child.kill();
 * await child.status;
 * ```
 */
export function spawnGit(
  args: readonly string[],
  options: SpawnOptions,
): GitProcess {
  return typeof Deno !== "undefined" ? spawnWithDeno(args, options) : spawnWithNode(args, options);
}

function spawnEnvironment(options: SpawnOptions): Record<string, string> {
  const env = gitEnvironment(options.transports, options.config);
  return options.largeHeap ? { ...env, ...LARGE_HEAP_ENVIRONMENT } : env;
}

function spawnWithDeno(
  args: readonly string[],
  options: SpawnOptions,
): GitProcess {
  let child: Deno.ChildProcess;
  try {
    const launch = childCommand("git", args);
    child = new Deno.Command(launch.command, {
      args: launch.args,
      cwd: options.cwd,
      clearEnv: true,
      env: spawnEnvironment(options),
      stdin: options.stdin,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch {
    throw new GitError("GIT_UNAVAILABLE", "git could not be started");
  }
  return {
    stdin: options.stdin === "piped" ? child.stdin : new WritableStream<Uint8Array>(),
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.status.then((status) => ({ code: status.code, spawnFailed: false })),
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
  };
}

function spawnWithNode(
  args: readonly string[],
  options: SpawnOptions,
): GitProcess {
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn("git", [...args], {
      cwd: options.cwd,
      env: spawnEnvironment(options),
      stdio: [options.stdin === "piped" ? "pipe" : "ignore", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
    });
  } catch {
    throw new GitError("GIT_UNAVAILABLE", "git could not be started");
  }
  // A stream error is never news here (the exit status tells): swallow it.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", () => {});
  const status = new Promise<{ code: number; spawnFailed: boolean }>((resolve) => {
    child.once("error", () => resolve({ code: -1, spawnFailed: true }));
    child.once(
      "exit",
      (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), spawnFailed: false }),
    );
  });
  return {
    stdin: child.stdin ? webWritable(child.stdin) : new WritableStream<Uint8Array>(),
    stdout: webReadable(child.stdout!),
    stderr: webReadable(child.stderr!),
    status,
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
  };
}

// Node's own Readable.toWeb rejects internal promises with AbortError on
// cancel; this adapter just stops reading, with backpressure by pause/resume.
function webReadable(stream: Readable): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stream.on("data", (chunk: Uint8Array) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) stream.pause();
      });
      stream.once("end", () => {
        if (!done) controller.close();
        done = true;
      });
      stream.once("error", (error) => {
        if (!done) controller.error(error);
        done = true;
      });
    },
    pull() {
      stream.resume();
    },
    cancel() {
      done = true;
      stream.destroy();
    },
  }, { highWaterMark: 4 });
}

function webWritable(stream: Writable): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise((resolve, reject) =>
        stream.write(chunk, (error) => error ? reject(error) : resolve())
      );
    },
    close() {
      // Settles on finish, or on error/close when Git is already gone.
      return new Promise((resolve) => {
        stream.once("error", () => resolve());
        stream.once("close", () => resolve());
        stream.end(() => resolve());
      });
    },
    abort() {
      stream.destroy();
    },
  });
}

/**
 * Sends SIGKILL, ignoring a process that already exited.
 *
 * @example
 * ```ts ignore
 * const child = spawnGit(["version"], { cwd: ".", stdin: "null" });
 * killQuietly(child);
 * killQuietly(child); // a second kill of an exited process is ignored
 * ```
 */
export function killQuietly(child: GitProcess): void {
  child.kill();
}

/**
 * A Git process's deadline: `stop` runs when `timeoutMs` has passed, or at
 * once when it is not positive (a timer's turn could come after a quick
 * Git's whole answer); `expired` also says so when the time is up before
 * the timer has run, so a reader of output that keeps arriving can stop on
 * its own. `clear` when the process is done.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * let stopped = 0;
 * const late = gitDeadline(0, () => stopped++);
 * assert(stopped === 1 && late.expired());
 * late.clear();
 * ```
 */
export function gitDeadline(
  timeoutMs: number,
  stop: () => void,
): { expired: () => boolean; clear: () => void } {
  const ends = performance.now() + timeoutMs;
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    stop();
  };
  const timer = setTimeout(end, Math.max(0, timeoutMs));
  if (timeoutMs <= 0) end();
  return {
    expired: () => {
      if (!done && performance.now() >= ends) end();
      return done;
    },
    clear: () => clearTimeout(timer),
  };
}

/**
 * Collects a stream's bytes up to `cap`; past it, calls `onOverflow` and keeps
 * draining (dropping the excess) so the writer is never blocked on a full pipe.
 *
 * @example
 * ```ts ignore
 * const child = spawnGit(["log", "--oneline"], { cwd: ".", stdin: "null" });
 * let overflowed = false;
 * const bytes = await collectCapped(child.stdout, 64 * 1024, () => (overflowed = true));
 * ```
 */
export async function collectCapped(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: { cap: number; onOverflow: () => void },
): Promise<Uint8Array> {
  const { cap, onOverflow } = limit;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > cap) {
        onOverflow();
        continue; // keep draining so Git is never blocked on a full pipe
      }
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // cancelled after a kill
  }
  return concatBytes(chunks);
}

async function writeAndClose(stdin: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = stdin.getWriter();
  try {
    await writer.write(bytes);
    await writer.close();
  } catch {
    // Git may exit without reading its input
  }
}
