/**
 * The host side of one sandbox child process (see `sandbox_main.ts`): spawn
 * with no permissions and a guest memory cap, load a module, run it while
 * answering host reads, and kill it on a deadline. A process that failed,
 * timed out or misbehaved is never reused.
 *
 * @module
 */

import { childCommand, denoProgram } from "../../../shared/child_lifetime.ts";
import { ByteQueue } from "../../../shared/byte_queue.ts";
import { decodeHeader, encodeFrame, Frame, HEADER_BYTES } from "./sandbox_frames.ts";

const CHILD = new URL("./sandbox_main.ts", import.meta.url).pathname;
const WASM_PAGE_MIB = 16;
// Largest frame the child may send besides DONE: a read_files request.
const MAX_REQUEST_FRAME = 1024 * 1024;

/** A failed load or run: a plugin code. */
export type SandboxFailure = { code: string; message?: string };

/** How the run ended: the raw output, or a plugin code. */
export type RunOutcome = { output: Uint8Array } | SandboxFailure;

/** Answers one guest read: bytes, or a refusal text "CODE: message". */
export type HostReadHandler = (
  kind: "read_file" | "read_files",
  request: Uint8Array,
) => Promise<{ data: Uint8Array } | { denied: string }>;

/** The sandbox's Deno executable cannot be started (missing, or not permitted). */
export class SandboxUnavailable extends Error {
  override readonly name = "SandboxUnavailable";
}

/** One sandbox child process holding at most one Wasm instance. */
export class SandboxProcess {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #received = new ByteQueue();
  #exited = false;
  #killedAtDeadline = false;

  /** Starts a child whose guest memory may grow to `memoryMib`. */
  constructor(options: { memoryMib: number }) {
    const pages = options.memoryMib * WASM_PAGE_MIB;
    this.#child = spawnSandbox(denoProgram(), pages);
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.getReader();
    this.#child.status.then(() => (this.#exited = true), () => (this.#exited = true));
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Whether the process can still be used. */
  get alive(): boolean {
    return !this.#exited;
  }

  /** Compiles and instantiates `bytes`; resolves null when ready, else a failure. */
  async load(bytes: Uint8Array, deadline: number): Promise<SandboxFailure | null> {
    const outcome = await this.#withDeadline(deadline, async () => {
      await this.#send(Frame.LOAD, bytes);
      const frame = await this.#receive(MAX_REQUEST_FRAME);
      if (frame?.kind === Frame.READY) return null;
      return this.#failure(frame);
    });
    return outcome !== null && "output" in outcome ? { code: "PLUGIN_FAILED" } : outcome;
  }

  /** Runs enrich on `input`, answering host reads through `onRead`. */
  async run(
    input: Uint8Array,
    options: { outputBytes: number; deadline: number; onRead: HostReadHandler },
  ): Promise<RunOutcome> {
    const outcome = await this.#withDeadline(options.deadline, async () => {
      const payload = new Uint8Array(4 + input.length);
      new DataView(payload.buffer).setUint32(0, options.outputBytes, true);
      payload.set(input, 4);
      await this.#send(Frame.RUN, payload);
      const limit = Math.max(options.outputBytes, MAX_REQUEST_FRAME);
      for (;;) {
        const frame = await this.#receive(limit);
        if (frame?.kind === Frame.READ_FILE || frame?.kind === Frame.READ_FILES) {
          const kind = frame.kind === Frame.READ_FILE ? "read_file" : "read_files";
          const answer = await options.onRead(kind, frame.payload);
          if ("data" in answer) await this.#send(Frame.DATA, answer.data);
          else await this.#send(Frame.DENIED, new TextEncoder().encode(answer.denied));
          continue;
        }
        if (frame?.kind === Frame.DONE && frame.payload.length <= options.outputBytes) {
          return { output: frame.payload };
        }
        return this.#failure(frame);
      }
    });
    return outcome ?? { code: "PLUGIN_FAILED" };
  }

  /** Stops the process now. */
  kill(): void {
    if (this.#exited) return;
    this.#exited = true;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  async #withDeadline(
    deadlineAt: number,
    work: () => Promise<RunOutcome | null>,
  ): Promise<RunOutcome | null> {
    const remaining = deadlineAt - performance.now();
    if (remaining <= 0) {
      this.kill();
      return { code: "PLUGIN_TIMEOUT" };
    }
    const timer = setTimeout(() => {
      this.#killedAtDeadline = true;
      this.kill();
    }, remaining);
    try {
      const outcome = await work().catch(() => ({ code: "PLUGIN_FAILED" }) as RunOutcome);
      if (this.#killedAtDeadline) return { code: "PLUGIN_TIMEOUT" };
      if (outcome !== null && "code" in outcome) this.kill();
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  #failure(frame: { kind: number; payload: Uint8Array } | null): SandboxFailure {
    this.kill();
    if (frame?.kind !== Frame.FAILED) return { code: "PLUGIN_FAILED" };
    const text = new TextDecoder().decode(frame.payload.subarray(0, 256));
    const [code, message] = text.split(": ", 2);
    return /^PLUGIN_[A-Z_]+$/.test(code)
      ? { code, ...(message ? { message } : {}) }
      : { code: "PLUGIN_FAILED" };
  }

  async #send(kind: number, payload: Uint8Array): Promise<void> {
    await this.#writer.write(encodeFrame(kind, payload));
  }

  async #receive(maxPayload: number): Promise<{ kind: number; payload: Uint8Array } | null> {
    const header = await this.#take(HEADER_BYTES);
    if (header === null) return null;
    const { kind, length } = decodeHeader(header);
    if (length > maxPayload) return null;
    const payload = await this.#take(length);
    return payload === null ? null : { kind, payload };
  }

  async #take(length: number): Promise<Uint8Array | null> {
    while (this.#received.size < length) {
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#received.push(value);
    }
    return this.#received.take(length);
  }
}

/** Spawns a sandbox process; SandboxUnavailable when Deno cannot be started. */
function spawnSandbox(executable: string, pages: number): Deno.ChildProcess {
  try {
    const launch = childCommand(executable, [
      "run",
      "--no-config",
      "--no-lock",
      "--no-prompt",
      "--no-remote",
      "--no-npm",
      "--quiet",
      `--v8-flags=--wasm-max-mem-pages=${pages},--max-old-space-size=256`,
      CHILD,
    ]);
    return new Deno.Command(launch.command, {
      args: launch.args,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch (error) {
    throw new SandboxUnavailable(
      `the plugin sandbox (${executable}) cannot be started: ${(error as Error).message}`,
    );
  }
}
