/**
 * Starts the real sourcegraph service with `deno run` on a free loopback
 * port, with the same narrow flags as `deno task start` (net: loopback;
 * read: the working directory; write: its data folder; run: git and deno),
 * optionally under a lowered open-file limit (`ulimit -n`), and talks
 * to it with the SDK's Client over StreamableHTTPClientTransport.
 *
 * @module
 */

import { HIGHLIGHT_WORKER_MODULES } from "../../sourcegraph/web/code/highlighter.ts";
import { MARKDOWN_WORKER_MODULES } from "../../sourcegraph/web/code/markdown_renderer.ts";
import { SCAN_WORKER_MODULES } from "../../sourcegraph/search/scan/chunk_scanner.ts";
import { OCCURRENCES_WORKER_MODULES } from "../../sourcegraph/service/name_references.ts";
import { SCIP_WORKER_MODULES } from "../../sourcegraph/search/scip/scip_jobs.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createRepo, removeDir, tempDir } from "./git_repo.ts";
import { LineReader } from "./processes.ts";

const MAIN = fileURLToPath(new URL("../../sourcegraph/main.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** A running service. */
export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** The service's process id. */
  pid: number;
  /** Lines the service logged (stderr), appended as they arrive. */
  log: string[];
  /**
   * Stops it (SIGTERM; SIGKILL only if it is still running 20 s later: the
   * stop is bounded by SOURCEGRAPH_STOP_GRACE, 10 s by default, plus a few
   * seconds) and returns how it ended.
   */
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Picks a free loopback port for another process to listen on. It is drawn
 * at random below the kernel's ephemeral range: a port the kernel handed out
 * (`port: 0`) and closed again is soon handed to another socket (a client's
 * connection, another test module's listener), which would take it before
 * the process that was told to listen there. It starts above 10080, the
 * last port browsers and `fetch` refuse to connect to.
 */
export function freePort(): number {
  const ephemeralLow = ephemeralPortsStart();
  const low = 11_000;
  for (let attempt = 0; ephemeralLow - low >= 1_000 && attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (ephemeralLow - low));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
  // No room below the ephemeral range (or all taken): one the kernel picks.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

// Where Linux's ephemeral port range starts (its default where /proc does not say).
function ephemeralPortsStart(): number {
  try {
    const range = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range");
    const low = Number(range.trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux, or /proc is hidden
  }
  return 32_768;
}

/** The service's V8 flags as `deno task start` gives them. */
export const SERVICE_V8_FLAGS = "--v8-flags=--max-semi-space-size=8";

/**
 * The service's permission flags as `deno task start` gives them (read is
 * added per test, beside the modules of the pages' highlighting worker, of
 * the search's scanning workers and of the SCIP worker, which the start
 * task's `--allow-read=.` covers); with `shared`, as the README gives them for a replica
 * of a shared PostgreSQL store (the driver reads `PG*` defaults; the key
 * file is readable).
 */
export function serviceFlags(data: string, shared?: { keyFile: string }): string[] {
  return [
    SERVICE_V8_FLAGS,
    "--allow-net=127.0.0.1",
    `--allow-write=${data}`,
    "--allow-run=git,deno,setpriv",
    shared ? "--allow-env=SOURCEGRAPH_*,PATH,PG*" : "--allow-env=SOURCEGRAPH_*,PATH",
    `--allow-read=${
      [
        ...HIGHLIGHT_WORKER_MODULES,
        ...MARKDOWN_WORKER_MODULES,
        ...SCAN_WORKER_MODULES,
        ...OCCURRENCES_WORKER_MODULES,
        ...SCIP_WORKER_MODULES,
      ].join(",")
    }`,
    ...(shared ? [`--allow-read=${shared.keyFile}`] : []),
  ];
}

/** Starts the service in `cwd` with extra environment. */
export async function startService(
  cwd: string,
  env: Record<string, string> = {},
  options: {
    repositories?: string[];
    /** The port to listen on (default: a free one). */
    port?: number;
    /** Whether the port is given as `--port` (default); otherwise `env` names it. */
    portFlag?: boolean;
    ulimitFiles?: number;
    /** How long the start-up (sync included) may go without a log line (default 120 s). */
    lineTimeoutMs?: number;
    /** Run as a replica of a shared store (the flags of `serviceFlags`). */
    shared?: { keyFile: string };
  } = {},
): Promise<RunningService> {
  const port = options.port ?? freePort();
  const data = join(cwd, ".sourcegraph");
  const denoArgs = [
    "run",
    "--quiet",
    "--no-prompt",
    "--config",
    CONFIG,
    ...serviceFlags(data, options.shared),
    `--allow-read=${cwd}`,
    MAIN,
    "--host",
    "127.0.0.1",
    ...(options.portFlag === false ? [] : ["--port", String(port)]),
    ...(options.repositories ?? []),
  ];
  const limited = options.ulimitFiles !== undefined;
  const child = new Deno.Command(limited ? "bash" : Deno.execPath(), {
    args: limited
      ? [
        "-c",
        `ulimit -n ${options.ulimitFiles} && exec "$@"`,
        "bash",
        Deno.execPath(),
        ...denoArgs,
      ]
      : denoArgs,
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const lines = new LineReader(child.stderr);
  const log: string[] = [];
  while (true) {
    const line = await lines.next(options.lineTimeoutMs ?? 120_000);
    if (line === null) throw new Error(`service exited: ${log.join("\n")}`);
    log.push(line);
    if (line.includes("connect an MCP client")) break;
  }
  // Wait until it accepts connections.
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.text()).then(() => true, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const drain = (async () => {
    for (;;) {
      const line = await lines.next(3_600_000).catch(() => null);
      if (line === null) break;
      if (log.length < 10_000) log.push(line); // keep stderr flowing; tests read the log
    }
  })();
  return {
    url,
    pid: child.pid,
    log,
    async stop() {
      const kill = (signal: Deno.Signal) => {
        try {
          child.kill(signal);
        } catch {
          // gone
        }
      };
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), 20_000);
      const status = await child.status;
      clearTimeout(timer);
      await child.stdout.cancel().catch(() => {});
      await drain;
      return status;
    },
  };
}

/** Starts the service expecting it to refuse; returns what it logged (throws if it started). */
export async function startFailure(
  cwd: string,
  env: Record<string, string> = {},
  options: {
    repositories?: string[];
    port?: number;
    portFlag?: boolean;
    shared?: { keyFile: string };
  } = {},
): Promise<string> {
  const outcome = await startService(cwd, env, options).then(
    async (service) => {
      await service.stop();
      return null;
    },
    (error: Error) => error.message,
  );
  if (outcome === null) throw new Error("the service started but should have refused");
  return outcome;
}

/** An MCP client connected to the service. */
export async function connectClient(
  serviceUrl: string,
  options: { token?: string; query?: string } = {},
): Promise<Client> {
  const client = new Client({ name: "test", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(
    new URL(`${serviceUrl}/sourcegraph/mcp${options.query ?? ""}`),
    options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {},
  );
  await client.connect(transport);
  return client;
}

/**
 * Calls the admin API of the service at `baseUrl` (`path` below
 * `/sourcegraph/api/admin/v1`) with `init.token`, a JSON body and an
 * Idempotency-Key when given.
 */
export function adminRequest(
  baseUrl: string,
  path: string,
  init: { token: string; method?: string; body?: unknown; key?: string },
): Promise<Response> {
  return fetch(`${baseUrl}/sourcegraph/api/admin/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      Authorization: `Bearer ${init.token}`,
      "Content-Type": "application/json",
      ...(init.key ? { "Idempotency-Key": init.key } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** The service token of `withProjectService`. */
export const PROJECT_TOKEN = "t".repeat(40);

/**
 * Runs `fn` against a service started on a fresh `local/project` (one file,
 * `a.txt` = "alpha\nbeta\n") with the service token `PROJECT_TOKEN` and
 * `env`; everything is removed afterwards.
 */
export async function withProjectService(
  env: Record<string, string>,
  fn: (service: RunningService) => Promise<void>,
  options: { ulimitFiles?: number } = {},
): Promise<void> {
  const parent = await tempDir("sg-project-");
  const repo = await createRepo({ "a.txt": "alpha\nbeta\n", ".gitignore": ".sourcegraph/\n" }, {
    parent,
    name: "project",
  });
  const service = await startService(
    repo.path,
    { SOURCEGRAPH_API_TOKEN: PROJECT_TOKEN, ...env },
    options,
  );
  try {
    await fn(service);
  } finally {
    await service.stop();
    await removeDir(parent);
  }
}

/**
 * Reads `a.txt` of `local/project` with `token` over the HTTP API: null when
 * it answers 200 with "alpha\n", else the status and the start of the body,
 * for an assertion's message.
 */
export async function readAlpha(serviceUrl: string, token: string): Promise<string | null> {
  const response = await fetch(`${serviceUrl}/sourcegraph/v1/repo/read?repo=local/project`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ Path: "a.txt" }),
  });
  const body = await response.json();
  return response.status === 200 && body.Content === "alpha\n"
    ? null
    : `${response.status} ${JSON.stringify(body).slice(0, 120)}`;
}
