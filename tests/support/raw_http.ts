/**
 * Raw TCP clients for hostile HTTP tests: exact bytes on the wire, sockets
 * left half-sent or idle, and a check of when the server closed them.
 *
 * @module
 */

import { concatBytes } from "../../shared/byte_queue.ts";
import { beforeDeadline } from "../../shared/deadline.ts";
import * as net from "node:net";

const encoder = new TextEncoder();

/** The port of a service URL. */
export function portOf(serviceUrl: string): number {
  return Number(new URL(serviceUrl).port);
}

/** Opens a connection and writes `text` (may be a partial request). */
export async function openSocket(port: number, text = ""): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  if (text !== "") await conn.write(encoder.encode(text));
  return conn;
}

/**
 * Reads until the server closes the connection or `timeoutMs` passes (or,
 * with `until`, what arrived satisfies it: a keep-alive answer read whole);
 * returns what arrived and whether it was closed (and when, in ms).
 */
export async function readUntilClosed(
  conn: Deno.TcpConn,
  timeoutMs: number,
  options: { until?: (text: string) => boolean } = {},
): Promise<{ text: string; closed: boolean; afterMs: number }> {
  const started = performance.now();
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  const deadline = started + timeoutMs;
  let closed = false;
  for (;;) {
    // End of stream and a failed read (reset) both mean closed; null means the time ran out.
    const n = await beforeDeadline(
      conn.read(buffer).then((read) => read ?? "closed" as const, () => "closed" as const),
      deadline,
    );
    if (n === null) break;
    if (n === "closed") {
      closed = true;
      break;
    }
    chunks.push(buffer.slice(0, n));
    if (options.until?.(new TextDecoder().decode(concatBytes(chunks)))) break;
  }
  const text = new TextDecoder().decode(concatBytes(chunks));
  return { text, closed, afterMs: performance.now() - started };
}

/** Whether `text` holds a whole HTTP/1.1 response whose body has a Content-Length. */
export function wholeResponse(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  const length = /^content-length: *(\d+)\r$/im.exec(text.slice(0, end + 2))?.[1];
  return end >= 0 && length !== undefined &&
    new TextEncoder().encode(text.slice(end + 4)).length >= Number(length);
}

/** Sends one whole request with `Connection: close` and returns the status and body. */
export async function rawRequest(
  port: number,
  head: string,
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await openSocket(port, `${head}\r\nConnection: close\r\n\r\n${body}`);
  try {
    const { text } = await readUntilClosed(conn, 10_000);
    return { status: Number(text.split(" ")[1]), text };
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the server
    }
  }
}

/** The resident set size of a process in MiB (from `ps`). */
export async function rssMib(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] }).output();
  return Number(new TextDecoder().decode(out.stdout).trim()) / 1024;
}

/**
 * The most resident memory a process has had since it started, in MiB
 * (`VmHWM` of `/proc/<pid>/status`: the kernel's own high-water mark, which
 * no sampling interval can miss).
 */
export async function peakRssMib(pid: number): Promise<number> {
  // Another process's /proc entry is read through `cat`: Deno lets only --allow-all read it.
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`] }).output();
  const match = new TextDecoder().decode(out.stdout).match(/^VmHWM:\s+(\d+) kB$/m);
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Whether the process `pid` is still running. */
export async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const state = new TextDecoder().decode(out.stdout).trim();
  return out.success && state !== "" && !state.startsWith("Z");
}

/**
 * A raw connection to 127.0.0.1:`port` from another loopback source address
 * (and, when given, a chosen source port): node:net can bind the local end,
 * which Deno.connect cannot.
 */
export function connectFrom(
  port: number,
  from: { localAddress: string; localPort?: number },
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, ...from });
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.on("error", () => {}); // resets end the socket; callers watch "close"
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** What a node:net socket received until the server closed it or `timeoutMs` passed. */
export function socketOutcome(
  socket: net.Socket,
  timeoutMs: number,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.off("data", onData);
      resolve({ text, closed });
    };
    const onData = (chunk: Uint8Array) => (text += new TextDecoder().decode(chunk));
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on("data", onData);
    if (socket.destroyed || socket.readableEnded) done(true);
    else socket.once("close", () => done(true));
  });
}

/** The local ports of established connections to 127.0.0.1:`port` (from /proc/net/tcp). */
export async function connectionsTo(port: number): Promise<number[]> {
  // Deno allows /proc/net/tcp only with --allow-all; cat reads it for us.
  const out = await new Deno.Command("cat", { args: ["/proc/net/tcp"] }).output();
  const target = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const ports: number[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[2] === target && fields[3] === "01") {
      ports.push(parseInt(fields[1].split(":")[1], 16));
    }
  }
  return ports;
}
