/**
 * The deep-JSON flood: anonymous MCP POSTs whose tool arguments hold
 * 1.9 million nested arrays (a 3.9 MB body, with a length or chunked), sent
 * in loops from several
 * loopback source addresses, beside a token holder that reads. Used by the
 * flood test (a short run, mechanisms and memory) and the flood benchmark
 * (the full run, latencies).
 *
 * @module
 */

import type * as net from "node:net";
import { connectFrom, rssMib } from "./raw_http.ts";

/** The attack body. */
export const DEEP_BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read",' +
  `"arguments":{"repo":"local/pub","path":"x","x":${"[".repeat(1_900_000)}${
    "]".repeat(1_900_000)
  }}}}`;

/** What the token holder saw. */
export interface FloodOutcome {
  /** Read latencies (ms). */
  latencies: number[];
  /** Failed reads (status or error), in order. */
  failures: string[];
  /** Attack requests sent and answered. */
  attacks: number;
  /** The service's largest RSS seen (MiB). */
  peakRssMib: number;
}

/**
 * Runs `threads` attack loops spread over `addresses` for `seconds` (and on
 * until `minReads` reads were answered, however slowly a loaded machine
 * answers), while `read` is called back to back; samples the RSS of `pid`.
 */
export async function deepJsonFlood(
  port: number,
  options: {
    pid: number;
    addresses: string[];
    threads: number;
    seconds: number;
    minReads?: number;
    read: () => Promise<string | null>;
  },
): Promise<FloodOutcome> {
  const outcome: FloodOutcome = { latencies: [], failures: [], attacks: 0, peakRssMib: 0 };
  const until = performance.now() + options.seconds * 1000;
  const going = () =>
    performance.now() < until || outcome.latencies.length < (options.minReads ?? 0);
  const head = `POST /sourcegraph/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
    "Connection: close\r\n";
  // Every other loop declares no length: the body comes as one chunk.
  const requests = [
    [`${head}Content-Length: ${DEEP_BODY.length}\r\n\r\n`, DEEP_BODY, ""],
    [
      `${head}Transfer-Encoding: chunked\r\n\r\n${DEEP_BODY.length.toString(16)}\r\n`,
      DEEP_BODY,
      "\r\n0\r\n\r\n",
    ],
  ];
  const attack = async (address: string, [before, body, after]: string[]) => {
    while (going()) {
      let socket: net.Socket;
      try {
        socket = await connectFrom(port, { localAddress: address });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      await new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.on("data", () => {});
        socket.write(before);
        socket.write(body);
        socket.write(after, () => socket.end());
        setTimeout(() => socket.destroy(), 5_000);
      });
      outcome.attacks++;
    }
  };
  const sample = async () => {
    while (going()) {
      outcome.peakRssMib = Math.max(outcome.peakRssMib, await rssMib(options.pid));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const reader = async () => {
    while (going()) {
      const started = performance.now();
      const failure = await options.read().catch((error) => String(error));
      outcome.latencies.push(performance.now() - started);
      if (failure !== null) outcome.failures.push(failure);
    }
  };
  await Promise.all([
    ...Array.from(
      { length: options.threads },
      (_, i) => attack(options.addresses[i % options.addresses.length], requests[i % 2]),
    ),
    sample(),
    reader(),
  ]);
  return outcome;
}
