/**
 * The Context Source Graph service:
 *
 *   deno run <flags> sourcegraph/main.ts [--host H] [--port P] [REPOSITORY …]
 *
 * With nothing configured it keeps its data in `./.sourcegraph/`. Each
 * REPOSITORY path (a Git checkout or bare repository) is registered as the
 * public `local/<folder>` monitoring its current branch; with none given and
 * nothing registered yet, the working directory's checkout is. The public
 * socket belongs to the front (`http/front_door.ts`), which forwards to the
 * HTTP server on a loopback port of its own. See README.md for the command
 * lines.
 *
 * @module
 */

import * as fs from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { bindChildrenToProcess } from "../shared/child_lifetime.ts";
import { applyConfigFile } from "./store/config_file.ts";
import { FetchCredentials } from "./git/fetch_credentials.ts";
import { ControlStore } from "./store/control_store.ts";
import { registerLocalRepository } from "./store/local_repositories.ts";
import { createHandler } from "./http/handler.ts";
import { serveBehindFront } from "./http/serve.ts";
import { FrontDoor } from "./http/front_door.ts";
import { Metrics } from "./http/metrics.ts";
import { PluginWarmup } from "./plugins/plugin_warmup.ts";
import { RepositoryService } from "./service/repository_service.ts";
import { readSettings } from "./settings.ts";
import { SyncScheduler } from "./git/sync_scheduler.ts";

function env(name: string): string | undefined {
  try {
    return process.env[name];
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

let args: { host: string; port: number; repositories: string[] };
try {
  const parsed = parseArgs({
    args: Deno.args,
    options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const port = Number(parsed.values.port ?? "8787");
  if (!/^\d{1,5}$/.test(parsed.values.port ?? "8787") || port > 65_535) {
    throw new Error("--port must be a port number from 0 to 65535");
  }
  args = { host: parsed.values.host!, port, repositories: parsed.positionals };
} catch (error) {
  fail(`${(error as Error).message}; usage: main.ts [--host H] [--port P] [REPOSITORY …]`);
}

const cwd = process.cwd();
const read = readSettings(env, cwd);
if (!read.ok) {
  for (const problem of read.problems) log(problem);
  process.exit(1);
}
const settings = read.settings;
if (!bindChildrenToProcess()) {
  log(
    "warning: setpriv (util-linux) is missing or not in --allow-run; Git and plugin processes may outlive a killed service",
  );
}
fs.mkdirSync(join(settings.dataDir, "mirrors"), { recursive: true, mode: 0o700 });
let store: ControlStore;
try {
  store = new ControlStore(join(settings.dataDir, "control.sqlite3"));
} catch (error) {
  fail((error as Error).message);
}

try {
  const credentials = new FetchCredentials(settings.dataDir);
  const added = applyConfigFile(settings.configPath, store, {
    setCredential: (repo, credential) => credentials.set(repo.id, credential),
  });
  for (const name of added) log(`registered ${name} from sourcegraph.toml`);
} catch (error) {
  fail((error as Error).message);
}
for (const path of args.repositories) {
  const registered = await registerLocal(resolve(cwd, path));
  if (registered === null) fail(`${path} is not a Git repository on a branch`);
}
if (args.repositories.length === 0 && store.repositories().length === 0) {
  if ((await registerLocal(cwd)) === null) {
    log("the working directory is not a Git checkout on a branch; nothing registered");
  }
}

const metrics = new Metrics();
const service = new RepositoryService(store, settings.dataDir, {
  onSearchShared: () => metrics.searchShared(),
  plugins: settings.plugins,
  publicRead: settings.publicRead,
  searchIndex: settings.searchIndex,
  debug: settings.debug ? log : undefined,
  log,
});
const sandboxProblem = await service.probePluginSandbox();
if (sandboxProblem !== null) {
  log(
    `warning: ${sandboxProblem}; reads are served without plugins (diagnostics name PLUGIN_SANDBOX_UNAVAILABLE). Put deno on PATH or allow this Deno executable with --allow-run`,
  );
}
const warmup = new PluginWarmup(async (id) => {
  const repo = store.repositories().find((candidate) => candidate.id === id);
  if (!repo || repo.disabled || settings.plugins.disabled) return;
  const compiled = await service.precompilePlugins(repo);
  if (compiled > 0) log(`plugins of ${repo.name} precompiled: ${compiled} module(s)`);
}, () => store.repositories().map((repo) => repo.id));
const scheduler = new SyncScheduler(store, settings.dataDir, {
  log,
  onSynced: (repo) => {
    warmup.notify(repo.id);
    void service.indexRepository(repo);
  },
});
await scheduler.syncAll();
scheduler.start();
warmup.start();
for (const repo of store.repositories()) {
  log(`serving ${repo.name}${repo.publicRead ? " (public)" : ""}`);
}

const handler = createHandler(service, {
  store,
  scheduler,
  settings: {
    serviceToken: settings.serviceToken,
    allowedHosts: settings.allowedHosts,
    anonymousPerMinute: settings.anonymousPerMinute,
    anonymousConcurrency: settings.anonymousConcurrency,
    maxBodyBytes: settings.connections.maxBodyBytes,
    maxMcpBodyBytes: settings.connections.maxMcpBodyBytes,
    bodyTimeoutMs: settings.connections.bodyTimeoutMs,
    publicUrl: settings.publicUrl,
  },
  metrics,
  log,
});

let upstreamPort = () => 0;
const front = new FrontDoor(settings.connections, { upstreamPort: () => upstreamPort(), log });
metrics.watchFront(() => front.stats());
upstreamPort = await serveBehindFront(front, { handler, log });
let listener: Deno.TcpListener;
try {
  listener = Deno.listen({ hostname: args.host, port: args.port });
} catch (error) {
  fail(`cannot listen on ${args.host}:${args.port}: ${(error as Error).message}`);
}
void front.serve(listener);
const address = listener.addr as Deno.NetAddr;
const shown = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
log(`listening on http://${shown}:${address.port}`);
if (settings.publicUrl) log(`public URL ${settings.publicUrl}`);
log(
  `connect an MCP client to ${
    settings.publicUrl ?? `http://${shown}:${address.port}`
  }/sourcegraph/mcp`,
);

/** Registers `directory` as `local/<folder>`; null when it is not a Git repository on a branch. */
async function registerLocal(directory: string): Promise<string | null> {
  const outcome = await registerLocalRepository(store, directory, {
    retain: settings.defaultRetain,
    syncMinutes: settings.syncMinutes,
  });
  switch (outcome.kind) {
    case "not_a_repository":
      return null;
    case "name_taken":
      fail(`${outcome.name} is already registered for another source; rename the folder`);
      break;
    case "known":
      return outcome.name;
    case "registered": {
      const what = directory === cwd ? "this checkout" : outcome.source;
      log(`registered ${what} as ${outcome.name}, monitoring ${outcome.branch}`);
      return outcome.name;
    }
  }
  return null;
}

// On SIGTERM stop accepting, end the child processes (plugin sandboxes, even
// mid-run, and Git readers: they would otherwise outlive the service), give
// requests in flight one second, then exit. Ctrl-C reaches children through
// the process group.
Deno.addSignalListener("SIGTERM", () => {
  log("stopping");
  try {
    listener.close();
  } catch {
    // already closed
  }
  service.close().catch(() => {}).finally(() =>
    setTimeout(() => {
      front.close();
      store.close(); // checkpoints the WAL into the store file
      Deno.exit(0);
    }, 1_000)
  );
});
