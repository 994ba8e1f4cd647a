/**
 * The plugin sandbox: a child process started with no Deno permissions at
 * all (no read, write, net, env, run or ffi), holding one Wasm instance. It
 * speaks the frame protocol of `sandbox_frames.ts` on stdin/stdout and
 * answers the guest's `sourcegraph.read_file` / `read_files` imports by
 * asking the host synchronously. Guest memory growth is capped by the V8
 * flag `--wasm-max-mem-pages` the host starts it with; the host kills the
 * process on timeout. Nothing here is trusted by the host: it re-validates
 * every frame.
 *
 * @module
 */

import { decodeHeader, encodeFrame, Frame, HEADER_BYTES } from "./sandbox_frames.ts";

const MAX_PATH_BYTES = 4096;
const MAX_READ_FILES_BYTES = 1024 * 1024;

interface GuestExports {
  memory: WebAssembly.Memory;
  alloc: (length: number) => unknown;
  dealloc: (pointer: number, length: number) => unknown;
  enrich: (pointer: number, length: number) => unknown;
}

class RunFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

function readExact(length: number): Uint8Array | null {
  const bytes = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const n = Deno.stdin.readSync(bytes.subarray(at));
    if (n === null) return null;
    at += n;
  }
  return bytes;
}

function readFrame(): { kind: number; payload: Uint8Array } | null {
  const header = readExact(HEADER_BYTES);
  if (header === null) return null;
  const { kind, length } = decodeHeader(header);
  const payload = readExact(length);
  return payload === null ? null : { kind, payload };
}

function writeFrame(kind: number, payload: Uint8Array): void {
  const frame = encodeFrame(kind, payload);
  let at = 0;
  while (at < frame.length) at += Deno.stdout.writeSync(frame.subarray(at));
}

function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

let guest: GuestExports | null = null;
let lastError = "";

function pack(pointer: number, length: number): bigint {
  return (BigInt(pointer >>> 0) << 32n) | BigInt(length >>> 0);
}

function guestBytes(pointer: number, length: number): Uint8Array | null {
  const memory = new Uint8Array(guest!.memory.buffer);
  const start = pointer >>> 0;
  const end = start + (length >>> 0);
  return end <= memory.length ? memory.slice(start, end) : null;
}

/** Copies bytes into a fresh guest buffer; the guest frees it. */
function toGuest(bytes: Uint8Array): bigint {
  const pointer = Number(guest!.alloc(bytes.length)) >>> 0;
  const memory = new Uint8Array(guest!.memory.buffer);
  if (pointer === 0 || pointer + bytes.length > memory.length) {
    throw new RunFailure("PLUGIN_FAILED");
  }
  memory.set(bytes, pointer);
  return pack(pointer, bytes.length);
}

function hostRead(kind: number, request: Uint8Array): bigint {
  writeFrame(kind, request);
  const reply = readFrame();
  if (reply === null) throw new RunFailure("PLUGIN_FAILED");
  if (reply.kind === Frame.DATA) {
    lastError = "";
    return toGuest(reply.payload);
  }
  lastError = new TextDecoder().decode(reply.payload);
  return 0n;
}

/** Sends a guest buffer to the host as a read request, after the size and bounds checks. */
function guestRequest(
  kind: number,
  pointer: number,
  length: number,
  refusals: { limit: number; tooLarge: string; outside: string },
): bigint {
  if (length >>> 0 > refusals.limit) {
    lastError = refusals.tooLarge;
    return 0n;
  }
  const request = guestBytes(pointer, length);
  if (request === null) {
    lastError = refusals.outside;
    return 0n;
  }
  return hostRead(kind, request);
}

const imports = {
  sourcegraph: {
    read_file(pointer: number, length: number): bigint {
      return guestRequest(Frame.READ_FILE, pointer, length, {
        limit: MAX_PATH_BYTES,
        tooLarge: "path too long",
        outside: "INVALID_PATH: the path is outside guest memory",
      });
    },
    read_files(pointer: number, length: number): bigint {
      return guestRequest(Frame.READ_FILES, pointer, length, {
        limit: MAX_READ_FILES_BYTES,
        tooLarge: "INVALID_REQUEST: the path list is larger than 1 MiB",
        outside: "INVALID_REQUEST: the path list is outside guest memory",
      });
    },
    last_error(): bigint {
      return toGuest(text(lastError));
    },
  },
};

function load(bytes: Uint8Array): void {
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  } catch {
    writeFrame(Frame.FAILED, text("PLUGIN_INVALID: the module does not compile"));
    return;
  }
  try {
    const exports = new WebAssembly.Instance(module, imports).exports as Record<string, unknown>;
    if (
      !(exports.memory instanceof WebAssembly.Memory) || typeof exports.alloc !== "function" ||
      typeof exports.dealloc !== "function" || typeof exports.enrich !== "function"
    ) {
      writeFrame(
        Frame.FAILED,
        text("PLUGIN_ABI_INCOMPATIBLE: missing memory, alloc, dealloc or enrich"),
      );
      return;
    }
    guest = exports as unknown as GuestExports;
    writeFrame(Frame.READY, new Uint8Array());
  } catch {
    writeFrame(Frame.FAILED, text("PLUGIN_FAILED: the module cannot be instantiated"));
  }
}

function call(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    if (error instanceof RunFailure) throw error;
    throw new RunFailure("PLUGIN_FAILED");
  }
}

function run(payload: Uint8Array): void {
  const outputLimit = new DataView(payload.buffer, payload.byteOffset).getUint32(0, true);
  const input = payload.subarray(4);
  try {
    if (guest === null) throw new RunFailure("PLUGIN_FAILED");
    const active = guest;
    const packedInput = call(() => toGuest(input)) as bigint;
    const inputPointer = Number(packedInput >> 32n);
    const result = call(() => active.enrich(inputPointer, input.length));
    if (typeof result !== "bigint") throw new RunFailure("PLUGIN_ABI_INCOMPATIBLE");
    const pointer = Number((result >> 32n) & 0xffffffffn);
    const length = Number(result & 0xffffffffn);
    if (length > outputLimit) throw new RunFailure("PLUGIN_OUTPUT_TOO_LARGE");
    const overlapsInput = length > 0 && input.length > 0 &&
      pointer < inputPointer + input.length && inputPointer < pointer + length;
    const output = overlapsInput ? null : guestBytes(pointer, length);
    if (output === null) throw new RunFailure("PLUGIN_INVALID_OUTPUT");
    call(() => active.dealloc(pointer, length));
    call(() => active.dealloc(inputPointer, input.length));
    writeFrame(Frame.DONE, output);
  } catch (error) {
    writeFrame(Frame.FAILED, text(error instanceof RunFailure ? error.code : "PLUGIN_FAILED"));
  }
}

function serve(): void {
  for (let frame = readFrame(); frame !== null; frame = readFrame()) {
    if (frame.kind === Frame.LOAD && guest === null) load(frame.payload);
    else if (frame.kind === Frame.RUN) run(frame.payload);
    else return;
  }
}

serve();
