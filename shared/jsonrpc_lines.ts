/**
 * Newline-delimited JSON-RPC 2.0 over stdio, strictly serial: one line is read,
 * handled, and its response completely written before the next line is read.
 * Lines are capped (1 MiB by default, LF not counted) and a trailing CR is
 * stripped. Everything queued before stdin's EOF is answered, then serving
 * ends. Console output is sent to stderr so that only protocol reaches stdout.
 *
 * @module
 */

import { CodedError } from "./coded_error.ts";
import { Console } from "node:console";
import { LineSplitter } from "./line_splitter.ts";
import process from "node:process";

/** Standard JSON-RPC error codes used here. */
export const RPC_PARSE_ERROR = -32700;
/** The request is not a valid JSON-RPC 2.0 request object. */
export const RPC_INVALID_REQUEST = -32600;
/** No such method. */
export const RPC_METHOD_NOT_FOUND = -32601;
/** The params are not acceptable. */
export const RPC_INVALID_PARAMS = -32602;
/** The handler failed unexpectedly. */
export const RPC_INTERNAL_ERROR = -32603;

/** Default line cap: 1 MiB, not counting the LF. */
export const MAX_LINE_BYTES = 1024 * 1024;
const MAX_ERROR_MESSAGE_BYTES = 512;

/**
 * An error the handler returns to the client as a JSON-RPC error object.
 *
 * @example
 * ```ts ignore
 * serveJsonRpcLines((request) => {
 *   if (request.method !== "ping") throw new RpcError(RPC_METHOD_NOT_FOUND, "unknown method");
 *   return { pong: true };
 * });
 * ```
 */
export class RpcError extends CodedError<number> {
  override readonly name = "RpcError";
}

/** A JSON-RPC request id. */
export type RpcId = number | string | null;

/** One parsed request, handed to the handler. */
export interface RpcRequest {
  /** The request id; absent for a notification. */
  id?: RpcId;
  /** The method name. */
  method: string;
  /** The params as sent (may be undefined). */
  params: unknown;
}

/**
 * Handles one request: returns its result, or throws {@linkcode RpcError}.
 * Any other exception becomes a generic internal error.
 */
export type RpcHandler = (request: RpcRequest) => unknown;

/** Where responses are written; `Deno.stdout` by default. */
export interface RpcOutput {
  /** Writes some bytes, returning how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}

/** Options of {@linkcode serveJsonRpcLines}. */
export interface ServeOptions {
  /** Request bytes; `Deno.stdin.readable` by default. */
  input?: ReadableStream<Uint8Array>;
  /** Response sink; `Deno.stdout` by default. */
  output?: RpcOutput;
  /** Line cap in bytes, LF not counted. Default 1 MiB. */
  maxLineBytes?: number;
  /** Receives one-line local diagnostics (never sent to the client). */
  onDiagnostic?: (message: string) => void;
}

/**
 * Sends every `console` method to stderr, so that no library or stray log can
 * corrupt a protocol written on stdout. Call once at program start.
 *
 * @example
 * ```ts ignore
 * routeConsoleToStderr();
 * console.log("diagnostics go to stderr; stdout carries only the protocol");
 * ```
 */
export function routeConsoleToStderr(): void {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
}

/**
 * Serves newline-delimited JSON-RPC 2.0 until the input ends, then resolves.
 * Responses are written in request order; notifications get none.
 *
 * @example
 * ```ts ignore
 * routeConsoleToStderr();
 * await serveJsonRpcLines((request) => ({ echoed: request.params ?? null }), {
 *   onDiagnostic: (line) => console.error(line),
 * });
 * ```
 */
export async function serveJsonRpcLines(
  handler: RpcHandler,
  options: ServeOptions = {},
): Promise<void> {
  const output = options.output ?? Deno.stdout;
  const diagnose = options.onDiagnostic ?? (() => {});
  const lines = new LineSplitter(
    options.input ?? Deno.stdin.readable,
    options.maxLineBytes ?? MAX_LINE_BYTES,
  );
  while (true) {
    const line = await lines.next();
    if (line === null) return;
    const response = line === "oversized"
      ? errorResponse(null, RPC_INVALID_REQUEST, "request too large")
      : await respond(line, handler, diagnose);
    if (response !== null) await writeAll(output, encodeLine(response));
  }
}

async function respond(
  line: Uint8Array,
  handler: RpcHandler,
  diagnose: (message: string) => void,
): Promise<object | null> {
  let message: unknown;
  try {
    message = JSON.parse(STRICT_UTF8.decode(line));
  } catch {
    return errorResponse(null, RPC_PARSE_ERROR, "parse error");
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return errorResponse(null, RPC_INVALID_REQUEST, "invalid request");
  }
  const request = message as Record<string, unknown>;
  const hasId = Object.hasOwn(request, "id");
  const id = request.id;
  if (hasId && !isValidId(id)) return errorResponse(null, RPC_INVALID_REQUEST, "invalid request");
  const replyId = hasId ? id as RpcId : null;
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string") {
    return errorResponse(replyId, RPC_INVALID_REQUEST, "invalid request");
  }
  try {
    const result = await handler({
      ...(hasId ? { id: id as RpcId } : {}),
      method: request.method,
      params: request.params,
    });
    return hasId ? { jsonrpc: "2.0", id: replyId, result: result ?? null } : null;
  } catch (error) {
    if (!hasId) return null;
    if (error instanceof RpcError) return errorResponse(replyId, error.code, error.message);
    diagnose(`handler failed: ${error instanceof Error ? error.name : "unknown error"}`);
    return errorResponse(replyId, RPC_INTERNAL_ERROR, "internal error");
  }
}

function isValidId(id: unknown): boolean {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

function errorResponse(id: RpcId, code: number, message: string): object {
  return { jsonrpc: "2.0", id, error: { code, message: clampMessage(message) } };
}

function clampMessage(message: string): string {
  const text = message.length > 0 ? message : "error";
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_ERROR_MESSAGE_BYTES) return text;
  return new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_MESSAGE_BYTES)).replace(
    /\uFFFD+$/,
    "",
  );
}

function encodeLine(value: object): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value) + "\n");
}

/**
 * Writes every byte, looping over partial writes.
 *
 * @example
 * ```ts ignore
 * await writeAll(Deno.stdout, new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
 * ```
 */
export async function writeAll(output: RpcOutput, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await output.write(bytes.subarray(written));
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
