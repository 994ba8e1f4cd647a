/**
 * The Context Source Graph service, served by `deno serve`. With nothing
 * configured it keeps its data in `./.sourcegraph/`, and when nothing is
 * registered yet and the working directory is a Git checkout, it registers
 * that checkout as the public repository `local/<folder>` monitoring its
 * current branch. See README.md for the command lines.
 *
 * @module
 */

import * as fs from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import { runGit } from "../shared/git.ts";
import { applyConfigFile } from "./config_file.ts";
import { type PluginSettings, pluginSettings } from "./plugins/plugin_settings.ts";
import { ControlStore } from "./control_store.ts";
import { createHandler } from "./http_handler.ts";
import { RepositoryService } from "./repository_service.ts";
import { SyncScheduler } from "./sync_scheduler.ts";
import { PluginWarmup } from "./plugins/plugin_warmup.ts";

function env(name: string): string | undefined {
  try {
    return process.env[name] || undefined;
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

const cwd = process.cwd();
const dataDir = resolve(cwd, env("SOURCEGRAPH_DATA") ?? ".sourcegraph");
const serviceToken = env("SOURCEGRAPH_API_TOKEN");
if (serviceToken !== undefined && serviceToken.length < 32) {
  fail("SOURCEGRAPH_API_TOKEN must be at least 32 characters");
}
const publicUrl = env("SOURCEGRAPH_PUBLIC_URL") ?? "http://127.0.0.1:8787";
fs.mkdirSync(join(dataDir, "mirrors"), { recursive: true, mode: 0o700 });
const store = new ControlStore(join(dataDir, "control.sqlite3"));

try {
  const added = applyConfigFile(
    resolve(cwd, env("SOURCEGRAPH_CONFIG") ?? "sourcegraph.toml"),
    store,
  );
  for (const name of added) log(`registered ${name} from sourcegraph.toml`);
} catch (error) {
  fail((error as Error).message);
}
if (store.repositories().length === 0) await registerCheckout(cwd);
let plugins: PluginSettings;
try {
  plugins = pluginSettings(env);
} catch (error) {
  fail((error as Error).message);
}
const service = new RepositoryService(store, dataDir, {
  plugins,
  publicRead: env("SOURCEGRAPH_PUBLIC_READ") !== "false",
  searchCacheBytes: Number(env("SOURCEGRAPH_SEARCH_CACHE_MIB") ?? 256) * 1024 * 1024,
  debug: env("SOURCEGRAPH_LOG_LEVEL") === "debug" ? log : undefined,
});
const warmup = new PluginWarmup(async (id) => {
  const repo = store.repositories().find((candidate) => candidate.id === id);
  if (!repo || repo.disabled || plugins.disabled) return;
  const compiled = await service.precompilePlugins(repo);
  if (compiled > 0) log(`plugins of ${repo.name} precompiled: ${compiled} module(s)`);
}, () => store.repositories().map((repo) => repo.id));
const scheduler = new SyncScheduler(store, dataDir, {
  log,
  onSynced: (repo) => warmup.notify(repo.id),
});
await scheduler.syncAll();
scheduleSyncs();
warmup.start();
for (const repo of store.repositories()) {
  log(`serving ${repo.name}${repo.public_read ? " (public)" : ""}`);
}
log(`connect an MCP client to ${publicUrl}/sourcegraph/mcp`);

async function registerCheckout(directory: string): Promise<void> {
  let top: string;
  let branch: string;
  try {
    const decode = (r: { stdout: Uint8Array }) => new TextDecoder().decode(r.stdout).trim();
    top = decode(await runGit(["rev-parse", "--show-toplevel"], { cwd: directory }));
    branch = decode(await runGit(["symbolic-ref", "--short", "-q", "HEAD"], { cwd: directory }));
  } catch {
    log("the working directory is not a Git checkout on a branch; nothing registered");
    return;
  }
  if (!isAbsolute(top) || branch === "") return;
  const name = `local/${basename(top).replace(/[^A-Za-z0-9._-]/g, "-")}`;
  store.register({
    name,
    source: top,
    public_read: true,
    policy: {
      branches: [branch],
      default_branch: branch,
      count: Math.max(1, Number(env("SOURCEGRAPH_DEFAULT_RETAIN") ?? 20) || 20),
    },
    path_groups: [],
    sync_interval_minutes: 5,
  });
  log(`registered this checkout as ${name}, monitoring ${branch}`);
}

function scheduleSyncs(): void {
  const minutes = Math.max(1, Number(env("SOURCEGRAPH_SYNC_MINUTES") ?? 5));
  const timer = setInterval(() => void scheduler.syncAll(), 60_000 * minutes);
  Deno.unrefTimer(timer);
}

// On SIGTERM end the child processes (plugin sandboxes, even mid-run, and Git
// readers): they would otherwise keep the process alive or outlive it. Requests
// still in flight get one second. Ctrl-C reaches children through the process group.
Deno.addSignalListener("SIGTERM", () => {
  log("stopping");
  service.close().catch(() => {}).finally(() => setTimeout(() => Deno.exit(0), 1_000));
});

const handler = createHandler(service, scheduler, {
  serviceToken,
  allowedHosts: (env("SOURCEGRAPH_ALLOWED_HOSTS") ?? "").split(",").filter((h) => h !== ""),
  anonymousPerMinute: Number(env("SOURCEGRAPH_ANONYMOUS_PER_MINUTE") ?? 600),
});

export default {
  fetch(request: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
    const remote = info.remoteAddr as { hostname?: string };
    return handler(request, { remoteAddr: { hostname: remote.hostname } });
  },
} satisfies Deno.ServeDefaultExport;
