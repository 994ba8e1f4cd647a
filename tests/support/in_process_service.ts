/**
 * The real request handler over a real control store, real mirrors and the
 * real repository service, called in process as `Request → Response`
 * (no socket): fast tests of routing, authentication and pages. Its index
 * builds run in the test process (`in_process_builder.ts`: the builder
 * process's build function in a kept worker, the same index, without a
 * process's start and the grammars' loading on every build) unless a test
 * asks for builder processes or gives a builder command of its own.
 *
 * @module
 */

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { keyHash } from "../../sourcegraph/access/credentials.ts";
import { createApp, type HttpSettings } from "../../sourcegraph/http/app.ts";
import type { ExternalIssuer } from "../../sourcegraph/oauth/external_issuer.ts";
import { pagesMount } from "../../sourcegraph/web/web_pages.tsx";
import { Highlighter } from "../../sourcegraph/web/code/highlighter.ts";
import {
  MarkdownRenderer,
  type MarkdownRendererOptions,
} from "../../sourcegraph/web/code/markdown_renderer.ts";
import type { Handler } from "../../sourcegraph/http/edge_env.ts";
import { Metrics } from "../../sourcegraph/http/metrics.ts";
import type { SyncScheduler } from "../../sourcegraph/git/sync_scheduler.ts";
import {
  DEFAULT_PLUGIN_SETTINGS,
  type PluginSettings,
} from "../../sourcegraph/plugins/plugin_settings.ts";
import { composeServices } from "../../sourcegraph/service/compose.ts";
import { READ_PLUGIN_ROOM } from "../../sourcegraph/http/mcp/read_room.ts";
import type { RepositoryService } from "../../sourcegraph/service/repository_service.ts";
import type { RoutedCalls } from "../../sourcegraph/service/routed_calls.ts";
import type { BuilderCommand, BuilderJob } from "../../sourcegraph/search/build/builder_command.ts";
import type { ControlStore } from "../../sourcegraph/store/control_store.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "./git_repo.ts";
import { inProcessBuilder } from "./in_process_builder.ts";

// Whether plugin sandboxes start is a fact of this test module's process (the same deno, the
// same permissions): with the default plugin settings the first world checks, as the service
// does when it starts, and later ones reuse a good answer instead of starting one more sandbox
// process each.
let defaultSandboxCheck: Promise<string | null> | null = null;

async function probeSandbox(
  lifecycle: { probePluginSandbox(): Promise<string | null> },
  defaults: boolean,
): Promise<void> {
  if (!defaults) {
    await lifecycle.probePluginSandbox();
    return;
  }
  if (defaultSandboxCheck === null) {
    defaultSandboxCheck = lifecycle.probePluginSandbox();
    await defaultSandboxCheck;
    return;
  }
  // A problem found before: this world checks for itself (its runs then say it).
  if ((await defaultSandboxCheck) !== null) await lifecycle.probePluginSandbox();
}

/** The service token of in-process worlds. */
export const WORLD_TOKEN = "i".repeat(40);
/** The personal key of in-process worlds (id `key_1`). */
export const WORLD_KEY = "sgk_in_process_key_0001";

/** A repository to register: its files (committed on `main`) and whether it is public. */
export interface WorldRepository {
  name: string;
  publicRead: boolean;
  files: Record<string, string | Uint8Array>;
  /** Runs in the work tree before the first commit (symlinks, more commits…). */
  prepare?: (repo: TestRepo) => Promise<void>;
  /** The first commit's message. */
  message?: string;
  /** Versions kept (the policy's count); default the store's default. */
  retain?: number;
  /** Its path groups (default none: the whole repository is visible). */
  pathGroups?: { name: string; paths: string[] }[];
}

/** What a test gets. */
export interface InProcessWorld {
  handle: Handler;
  store: ControlStore;
  service: RepositoryService;
  /** The service's routed calls as they run here (never routed). */
  localCalls: RoutedCalls;
  scheduler: SyncScheduler;
  /** The source repositories by registered name. */
  sources: Map<string, TestRepo>;
  /** The synced head of `main` by registered name. */
  heads: Map<string, string>;
  /** The data folder. */
  data: string;
  /** A scratch folder removed with the world (more source repositories go here). */
  parent: string;
  /** What `/metrics` renders (a front composed over `handle` may add its counters). */
  metrics: Metrics;
}

/**
 * The references parse limits of in-process worlds: far above the service's
 * (1 s a file, 4 s a page, 20 s queued), so an answer's roles do not depend on how busy
 * the machine is; the limits themselves are tested on the parser with a
 * clock of their own.
 */
export const GENEROUS_REFERENCE_LIMITS = { fileMs: 60_000, pageMs: 120_000, queuedMs: 120_000 };

/**
 * How long the pages' highlighting and Markdown rendering may take a
 * document in in-process worlds: far above the service's 2 s, for the same
 * reason (the limits are tested with small ones of their own).
 */
export const GENEROUS_RENDER_MS = 60_000;

/** `org/open` (public) and `org/closed` (private), each with one `a.txt`. */
export const DEFAULT_REPOSITORIES: WorldRepository[] = [
  { name: "org/open", publicRead: true, files: { "a.txt": "org/open\n" } },
  { name: "org/closed", publicRead: false, files: { "a.txt": "org/closed\n" } },
];

/** Runs `fn` in a fresh world; everything is removed afterwards. */
export async function withInProcessService(
  fn: (world: InProcessWorld) => Promise<void>,
  options: {
    repositories?: WorldRepository[];
    settings?: Partial<HttpSettings>;
    /** The origin the pages advertise and answers' links start with. */
    publicUrl?: string;
    /** Serve no web pages (as a service built without them). */
    withoutPages?: boolean;
    publicRead?: boolean;
    /** Whether syncs build (and searches use) the trigram index; default off. */
    searchIndex?: boolean;
    /** How long each commit's symbol extraction may take; default the service's. */
    symbolBudgetMs?: number;
    /** The plugin host's limits; default the service's defaults. */
    plugins?: PluginSettings;
    /** The index builder's command (its builds are then processes); default the service's. */
    indexBuilder?: (job: BuilderJob) => BuilderCommand;
    /** Builds as builder processes, as the service runs them; default in the test process. */
    builderProcesses?: boolean;
    /** Receives the operator's log lines (and debug lines when `debug`). */
    log?: (line: string) => void;
    debug?: boolean;
    /** The clock that refills the anonymous buckets (default `Date.now`). */
    rateLimitClock?: () => number;
    /** The pages' Markdown renderer's bounds; default the service's with `GENEROUS_RENDER_MS`. */
    markdown?: MarkdownRendererOptions;
    /** An external OAuth issuer whose JWTs are accepted (the embedded server off). */
    issuer?: ExternalIssuer;
    /** The references parse limits; default `GENEROUS_REFERENCE_LIMITS`. */
    references?: { fileMs?: number; pageMs?: number };
  } = {},
): Promise<void> {
  const log = options.log ?? (() => {});
  const parent = await tempDir("sg-inproc-");
  const data = join(parent, "data");
  await Deno.mkdir(join(data, "mirrors"), { recursive: true });
  const metrics = new Metrics();
  const services = composeServices({
    dataDir: data,
    publicRead: options.publicRead ?? true,
    searchIndex: options.searchIndex ?? false,
    symbolBudgetMs: options.symbolBudgetMs,
    plugins: options.plugins ?? DEFAULT_PLUGIN_SETTINGS,
  }, {
    log,
    debug: options.debug ? log : undefined,
    onSearchShared: () => metrics.searchShared(),
    indexBuilder: options.indexBuilder,
    launchIndexBuilder: options.indexBuilder || options.builderProcesses
      ? undefined
      : inProcessBuilder,
    pluginRoom: READ_PLUGIN_ROOM,
    references: options.references ?? GENEROUS_REFERENCE_LIMITS,
  });
  const { store, scheduler, repositories: service } = services;
  const highlighter = new Highlighter({ timeoutMs: GENEROUS_RENDER_MS });
  const markdown = new MarkdownRenderer({ timeoutMs: GENEROUS_RENDER_MS, ...options.markdown });
  const sources = new Map<string, TestRepo>();
  const heads = new Map<string, string>();
  try {
    for (const [i, spec] of (options.repositories ?? DEFAULT_REPOSITORIES).entries()) {
      const source = await createRepo({}, { parent, name: `source${i}` });
      await source.write(spec.files);
      await spec.prepare?.(source);
      heads.set(spec.name, await source.commit(spec.message ?? "initial"));
      sources.set(spec.name, source);
      const repo = await store.register({
        name: spec.name,
        source: source.path,
        publicRead: spec.publicRead,
        policy: { branches: ["main"], ...(spec.retain ? { count: spec.retain } : {}) },
        pathGroups: spec.pathGroups ?? [],
        syncIntervalMinutes: 5,
      });
      await scheduler.sync(repo);
    }
    // As the service starts: the sandbox checked, then warm-up after the first syncs.
    await probeSandbox(services.lifecycle, options.plugins === undefined);
    services.warmup.start();
    await store.addKey("key_1", { keyHash: keyHash(WORLD_KEY), name: "reader" });
    const settings: HttpSettings = {
      serviceToken: WORLD_TOKEN,
      publicUrl: options.publicUrl,
      allowedHosts: [],
      anonymousPerMinute: 10_000,
      anonymousConcurrency: 100,
      maxBodyBytes: 1024 * 1024,
      maxMcpBodyBytes: 4 * 1024 * 1024,
      maxAnonymousBodyBytes: 128 * 1024,
      bodyTimeoutMs: 5_000,
      ...options.settings,
    };
    const handle = createApp(services, {
      settings,
      metrics,
      log,
      now: options.rateLimitClock,
      issuer: options.issuer,
      pages: options.withoutPages ? undefined : pagesMount(service, {
        ...(options.issuer ? { oauth: null } : {}),
        store,
        serviceToken: settings.serviceToken,
        publicUrl: options.publicUrl,
        log,
        highlighter,
        markdown,
        syncNow: (repo) => scheduler.requestSync(repo),
      }),
    });
    await fn({
      handle,
      store,
      service,
      localCalls: services.localCalls,
      scheduler,
      sources,
      heads,
      data,
      parent,
      metrics,
    });
  } finally {
    highlighter.close();
    markdown.close();
    await services.close();
    await removeDir(parent);
  }
}

// Hands `request` to the edge as if it came from `address` (default
// 127.0.0.1) with `Host: 127.0.0.1`.
function toEdge(
  handle: Handler,
  request: Request,
  options: { token?: string; address?: string } = {},
): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set("host", "127.0.0.1");
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  return handle(new Request(request, { headers }), {
    remoteAddr: { hostname: options.address ?? "127.0.0.1" },
  });
}

/**
 * Runs `fn` with an MCP client of a fresh in-process world made with
 * `options` (as `withInProcessService`); the client is closed and the world
 * removed afterwards.
 */
export function withInProcessClient(
  fn: (client: Client) => Promise<void>,
  options: Parameters<typeof withInProcessService>[1] = {},
): Promise<void> {
  return withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      await fn(client);
    } finally {
      await client.close();
    }
  }, options);
}

/**
 * An MCP client (the SDK's) whose HTTP requests go straight to `handle`,
 * as if from `address` (default 127.0.0.1) with `Host: 127.0.0.1`; `token`
 * as a bearer.
 */
export async function connectInProcess(
  handle: Handler,
  options: { token?: string; query?: string; address?: string } = {},
): Promise<Client> {
  const client = new Client({ name: "test", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1/sourcegraph/mcp${options.query ?? ""}`),
    {
      fetch: (url: string | URL, init?: RequestInit) =>
        toEdge(handle, new Request(url, init), options),
    },
  );
  await client.connect(transport);
  return client;
}

/**
 * A `fetch` for paths of the in-process service: each request goes straight
 * to `handle` as if from `address` (default 127.0.0.1) with `Host: 127.0.0.1`.
 */
export function inProcessFetch(
  handle: Handler,
  options: { address?: string } = {},
): (path: string, init?: RequestInit) => Promise<Response> {
  return (path, init) => toEdge(handle, new Request(`http://127.0.0.1${path}`, init), options);
}

/**
 * POSTs `body` as JSON to `path` of the in-process service, as
 * `inProcessFetch` does any request.
 */
export function inProcessPost(
  handle: Handler,
  options: { address?: string } = {},
): (path: string, body: unknown) => Promise<Response> {
  const fetchPath = inProcessFetch(handle, options);
  return (path, body) =>
    fetchPath(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
}

/**
 * Calls the admin API of the in-process service with `token`: `path` below
 * `/sourcegraph/api/admin/v1`, a JSON body and an Idempotency-Key when given.
 */
export function adminFetch(
  handle: Handler,
  token: string,
): (method: string, path: string, options?: { body?: unknown; key?: string }) => Promise<Response> {
  return (method, path, options = {}) =>
    toEdge(
      handle,
      new Request(`http://127.0.0.1/sourcegraph/api/admin/v1${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(options.key ? { "idempotency-key": options.key } : {}),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      }),
      { token },
    );
}

/**
 * Registers `source` as the private monorepo `org/mono` whose one path group
 * `docs` holds the `docs` folder, monitoring `main`, and syncs it now.
 */
export async function registerDocsMonorepo(
  admin: ReturnType<typeof adminFetch>,
  options: { source: string; key: string },
): Promise<void> {
  const registered = await admin("POST", "/repos", {
    body: {
      name: "org/mono",
      source: options.source,
      public_read: false,
      index_mode: "monorepo",
      path_groups: [{ name: "docs", paths: ["docs"] }],
      policy: { branches: ["main"], default_branch: "main" },
    },
    key: options.key,
  });
  if (registered.status !== 202) {
    throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
  }
  await registered.body?.cancel();
  const prepared = await admin("POST", "/repo/prepare?repo=org/mono");
  const state = (await prepared.json()).state;
  if (state !== "succeeded") throw new Error(`prepare ${state}`);
}
