/**
 * The MCP stdio transport of the Git knowledge source: newline-delimited
 * JSON-RPC on stdin and stdout, like the SDK's, but a line over the cap is
 * answered with a JSON-RPC error (`-32600`, id null) and skipped while every
 * other line, before and after it, is still served. (The SDK's transport
 * drops its buffer and stops reading at 10 MiB, so the server exited without
 * a word and lost the requests queued behind the line.) A line that is not
 * JSON-RPC gets `-32700`. Runs under Deno and Node.
 *
 * @module
 */

import process from "node:process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { LineSplitter } from "../shared/line_splitter.ts";

/** The largest request line accepted: 8 MiB, LF not counted. */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024 * 1024;

/** stdio as an MCP transport with a per-line cap. */
export class LineStdioTransport implements Transport {
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onclose?: () => void;
  #maxLineBytes: number;
  #closed = false;

  /** A transport on the process's stdin and stdout. */
  constructor(options: { maxLineBytes?: number } = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? MAX_REQUEST_LINE_BYTES;
  }

  /** Starts reading stdin; reading ends at its EOF (answers in flight still go out). */
  start(): Promise<void> {
    const input = ReadableStream.from(process.stdin as AsyncIterable<Uint8Array>);
    void this.#read(new LineSplitter(input, this.#maxLineBytes));
    return Promise.resolve();
  }

  async #read(lines: LineSplitter): Promise<void> {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    while (!this.#closed) {
      const line = await lines.next().catch(() => null);
      if (line === null) return;
      if (line === "oversized") {
        await this.#refuse(-32600, `request line larger than ${this.#maxLineBytes} bytes`);
        continue;
      }
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(decoder.decode(line)));
      } catch {
        await this.#refuse(-32700, "parse error");
        continue;
      }
      this.onmessage?.(message);
    }
  }

  #refuse(code: number, message: string): Promise<void> {
    return this.send({ jsonrpc: "2.0", id: null, error: { code, message } } as never);
  }

  /** Writes one message as a line, waiting for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (process.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else process.stdout.once("drain", () => resolve());
    });
  }

  /** Stops reading. */
  close(): Promise<void> {
    this.#closed = true;
    process.stdin.pause();
    this.onclose?.();
    return Promise.resolve();
  }
}
