/**
 * The Context Source Graph service:
 *
 *   deno run <flags> sourcegraph/main.ts [--host H] [--port P] [REPOSITORY …]
 *
 * With nothing configured it keeps its data in `./.sourcegraph/`. Each
 * REPOSITORY path (a Git checkout or bare repository) is registered as the
 * public `local/<folder>` monitoring its current branch, and those an earlier
 * command line registered that this one does not name are unregistered; with
 * none given and nothing registered by other means, the working directory's
 * checkout is served. The public
 * socket belongs to the front (`http/front_door.ts`), which forwards to the
 * HTTP server on a loopback port of its own (`http/serve.ts`). SIGTERM or
 * SIGINT stops it within `SOURCEGRAPH_STOP_GRACE`. See README.md for the
 * command lines.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { bindChildrenToProcess } from "../shared/child_lifetime.ts";
import { applyConfigFile } from "./startup/config_file.ts";
import { serveCommandLine } from "./startup/local_repositories.ts";
import { type DataLock, describeHolder, lockDataFolder } from "./startup/data_lock.ts";
import { StopSignals } from "./startup/stop_signals.ts";
import { createApp } from "./http/app.ts";
import { ClientDocuments, resolveAddresses } from "./oauth/client_documents.ts";
import { ExternalIssuer } from "./oauth/external_issuer.ts";
import { storeOAuthServer } from "./oauth/oauth_server.ts";
import { Highlighter } from "./web/code/highlighter.ts";
import { MarkdownRenderer } from "./web/code/markdown_renderer.ts";
import { pagesMount } from "./web/web_pages.tsx";
import { InnerServer } from "./http/serve.ts";
import { FrontDoor } from "./http/front_door.ts";
import { Metrics } from "./http/metrics.ts";
import { composeServices, type Services } from "./service/compose.ts";
import { READ_PLUGIN_ROOM } from "./http/mcp/read_room.ts";
import type { RunningReplica } from "./startup/replica.ts";
import type { SharedStores } from "./store/postgres/shared_stores.ts";
import { readSettings } from "./settings.ts";

// Deno.env.get rather than process.env: the start asks about some 60,000 names
// (setting_names.ts), and node's proxy costs several times the lookup.
function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function log(message: string): void {
  console.error(`context-sourcegraph: ${message}`);
}

function fail(message: string): never {
  log(message);
  process.exit(1);
}

let args: { host: string; port?: number; repositories: string[] };
try {
  const parsed = parseArgs({
    args: Deno.args,
    options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const flag = parsed.values.port;
  if (flag !== undefined && (!/^\d{1,5}$/.test(flag) || Number(flag) > 65_535)) {
    throw new Error("--port must be a port number from 0 to 65535");
  }
  args = {
    host: parsed.values.host!,
    port: flag === undefined ? undefined : Number(flag),
    repositories: parsed.positionals,
  };
} catch (error) {
  fail(`${(error as Error).message}; usage: main.ts [--host H] [--port P] [REPOSITORY …]`);
}

const cwd = process.cwd();
const read = readSettings(env, cwd, { present: environmentNames() });
for (const warning of read.warnings) log(warning);
if (!read.ok) {
  for (const problem of read.problems) log(problem);
  process.exit(1);
}
const settings = read.settings;
// The command line wins over SOURCEGRAPH_PORT, which wins over the default.
const port = args.port ?? settings.port;
if (!bindChildrenToProcess()) {
  log(
    "warning: setpriv (util-linux) is missing or not in --allow-run; Git and plugin processes may outlive a killed service",
  );
}
// The data folder is taken first (one service per folder), then the port: either refusal comes
// before any repository is synced.
let dataLock: DataLock;
try {
  fs.mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const outcome = lockDataFolder(settings.dataDir);
  if (outcome.kind === "refused") fail(outcome.problem);
  if (outcome.kind === "busy") {
    fail(
      `the data folder ${settings.dataDir} is in use by ${
        describeHolder(outcome.holder)
      }; stop that service first, or give this one another data folder with SOURCEGRAPH_DATA`,
    );
  }
  dataLock = outcome.lock;
} catch (error) {
  fail(`cannot take the data folder ${settings.dataDir}: ${(error as Error).message}`);
}
let listener: Deno.TcpListener;
try {
  listener = Deno.listen({ hostname: args.host, port });
} catch (error) {
  const inUse = error instanceof Deno.errors.AddrInUse;
  fail(
    `cannot listen on ${args.host}:${port}: ${
      inUse ? "the port is in use (another service is running there?)" : (error as Error).message
    }; pick another port with --port (or SOURCEGRAPH_PORT)`,
  );
}
dataLock.recordAddress(args.host, (listener.addr as Deno.NetAddr).port);
fs.mkdirSync(join(settings.dataDir, "mirrors"), { recursive: true, mode: 0o700 });
const metrics = new Metrics();
let services: Services;
let shared: SharedStores | null = null;
try {
  shared = await sharedStores();
  services = composeServices(settings, {
    log,
    debug: settings.debug ? log : undefined,
    onSearchShared: () => metrics.searchShared(),
    stores: shared ?? undefined,
    pluginRoom: READ_PLUGIN_ROOM,
  });
} catch (error) {
  fail((error as Error).message);
}
const { store, scheduler } = services;
try {
  const added = await applyConfigFile(settings.configPath, store, {
    setCredential: (repo, credential) => services.admin.setCredential(repo.name, credential),
  });
  for (const name of added) log(`registered ${name} from sourcegraph.toml`);
} catch (error) {
  fail((error as Error).message);
}
await serveArguments();

let replica: RunningReplica | null = null;
if (shared !== null && settings.database) {
  try {
    // Loaded only here: the single process never loads the cluster or the driver.
    const { startReplica } = await import("./startup/replica.ts");
    replica = await startReplica(services, {
      store: shared.store,
      clusterSecret: shared.clusterSecret,
      database: settings.database,
      connections: settings.connections,
      dataDir: settings.dataDir,
      log,
    });
  } catch (error) {
    fail((error as Error).message);
  }
}

const sandboxProblem = await services.lifecycle.probePluginSandbox();
if (sandboxProblem !== null) {
  log(
    `warning: ${sandboxProblem}; reads are served without plugins (diagnostics name PLUGIN_SANDBOX_UNAVAILABLE). Put deno on PATH or allow this Deno executable with --allow-run`,
  );
}

// Highlighting for the pages, in a worker of its own (started on the first page that needs it).
const highlighter = new Highlighter({ log });
// Markdown, in a worker of its own under a time and heap limit, answers cached.
const markdown = new MarkdownRenderer({ timeoutMs: settings.markdownTimeoutMs, log });
metrics.watchMarkdown(() => markdown.stats());
// One authorization server for the edge and the consent page, or an external issuer's tokens.
const issuer = settings.oauthIssuer ? new ExternalIssuer(settings.oauthIssuer, { log }) : undefined;
const oauth = issuer ? null : storeOAuthServer(store, {
  serviceToken: settings.serviceToken !== undefined,
  documents: settings.oauthClientDocuments
    ? new ClientDocuments({
      fetch: (url, init) => fetch(url, init),
      resolve: resolveAddresses,
      allowPrivate: settings.oauthClientDocumentsPrivate,
    })
    : undefined,
});
const handler = createApp(services, {
  settings: {
    serviceToken: settings.serviceToken,
    publicUrl: settings.publicUrl,
    allowedHosts: settings.allowedHosts,
    anonymousPerMinute: settings.anonymousPerMinute,
    anonymousConcurrency: settings.anonymousConcurrency,
    maxBodyBytes: settings.connections.maxBodyBytes,
    maxMcpBodyBytes: settings.connections.maxMcpBodyBytes,
    maxAnonymousBodyBytes: settings.connections.maxAnonymousBodyBytes,
    bodyTimeoutMs: settings.connections.bodyTimeoutMs,
    publicRead: settings.publicRead,
  },
  metrics,
  log,
  oauth: oauth ?? undefined,
  issuer,
  pages: pagesMount(services.repositories, {
    oauth,
    store,
    serviceToken: settings.serviceToken,
    publicUrl: settings.publicUrl,
    log,
    highlighter,
    markdown,
    syncNow: (repo) => scheduler.requestSync(repo),
  }),
});
let inner: InnerServer | null = null;
const front = new FrontDoor(settings.connections, {
  upstream: { port: () => inner!.port(), retired: (port) => inner!.retired(port) },
  log,
});
inner = new InnerServer(front, {
  handler,
  log,
  rotateMs: Math.max(1_000, settings.connections.headerTimeoutMs),
  drainMs: settings.connections.headerTimeoutMs + settings.connections.bodyTimeoutMs,
  debug: settings.debug ? log : undefined,
});
metrics.watchFront(() => front.stats());
if (replica) metrics.watchInternalFront(() => replica!.stats());
await inner.start();
const stopSignals = new StopSignals();
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => {
    const meaning = stopSignals.receive(signal);
    if (meaning === "stop") void stop(signal);
    else if (meaning === "again") void stopNow(signal);
  });
}

await scheduler.syncAll();
scheduler.start();
if (replica) void replica.rebalance();
services.warmup.start();
for (const repo of store.repositories()) {
  log(`serving ${repo.name}${repo.publicRead ? " (public)" : ""}`);
}
void front.serve(listener);
const address = listener.addr as Deno.NetAddr;
const shown = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
const origin = settings.publicUrl ?? `http://${shown}:${address.port}`;
log(`listening on http://${shown}:${address.port}`);
if (settings.publicUrl) log(`public URL ${settings.publicUrl}`);
log(`connect an MCP client to ${origin}/sourcegraph/mcp`);
log(`web pages at ${origin}/sourcegraph/`);

/** The PostgreSQL stores when a database is set (the driver is loaded only then). */
async function sharedStores(): Promise<SharedStores | null> {
  if (!settings.database) return null;
  const { openSharedStores } = await import("./store/postgres/shared_stores.ts");
  const stores = await openSharedStores(settings.database.url, {
    keyFile: settings.database.credentialKeyFile,
    dataDir: settings.dataDir,
    log,
    reconnectMaxWaitMs: settings.database.reconnectMaxWaitMs,
  });
  log("control store: PostgreSQL (shared)");
  return stores;
}

/**
 * Serves exactly the repositories the command line names
 * (`serveCommandLine` of `startup/local_repositories.ts`), logging what it
 * did; a path that is not a Git repository on a branch stops the start.
 */
async function serveArguments(): Promise<void> {
  const outcome = await serveCommandLine(store, args.repositories, {
    cwd,
    shared: settings.database !== undefined,
    retain: settings.defaultRetain,
    syncMinutes: settings.syncMinutes,
    remove: (name) => services.admin.remove(name),
  }).catch((error) => fail(`cannot register the command line's repositories: ${error.message}`));
  for (const line of outcome.lines) log(line);
  if (outcome.refusal !== undefined) fail(outcome.refusal);
}

/**
 * Stops within the grace period whatever is in flight: stop accepting, end
 * background work at once (index builds, fetches, plugin warm-up), let the
 * requests in flight finish, cut the ones still running when the grace period
 * ends, end every child process, close the control store (its WAL is
 * checkpointed into the file), exit. A second signal stops at once
 * (`stopNow`); copies of the first relayed by launchers do not count
 * (`startup/stop_signals.ts`).
 */
async function stop(signal: string): Promise<void> {
  const grace = settings.stopGraceMs;
  // Whatever hangs, the process ends: the grace period, then a few seconds for the closes.
  const backstop = setTimeout(() => {
    log("the stop did not finish in time; exiting");
    Deno.exit(1);
  }, grace + 5_000);
  log(
    `stopping (${signal}): ${front.stats().inFlight} request(s) in flight get up to ${
      grace / 1000
    } s`,
  );
  // Leaving first: the other replicas take this one's repositories while its requests finish.
  if (replica) await within(replica.leave(), 2_000);
  const background = services.stopBackground();
  const finished = await within(front.drain(), grace);
  if (!finished) log(`the grace period ended; cutting ${front.stats().inFlight} request(s)`);
  front.close();
  await within(inner!.shutdown(), 1_000);
  highlighter.close();
  markdown.close();
  if (replica) await within(replica.close(), 1_000);
  await within(background, 2_000);
  // Plugin sandboxes, Git readers, index files, then the store (its WAL checkpointed).
  await within(services.close(), 2_000);
  clearTimeout(backstop);
  log("stopped");
  Deno.exit(0);
}

/** Stops at once: a second signal during a graceful stop. */
async function stopNow(signal: string): Promise<void> {
  log(`${signal} again: stopping now`);
  front.close();
  await within(store.close(), 1_000);
  Deno.exit(1);
}

/** Whether `work` settled within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every environment variable's name when this process may list them, else undefined. */
function environmentNames(): string[] | undefined {
  // With --allow-env for a list of names Deno cannot list them (setting_names.ts copes).
  if (Deno.permissions.querySync({ name: "env" }).state !== "granted") return undefined;
  return Object.keys(Deno.env.toObject());
}
