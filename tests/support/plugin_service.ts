/**
 * Plugin test harness: the committed fixture modules, repositories that carry
 * them, and the service with an MCP client: composed in process by default
 * (the SDK's client over `Request → Response`), or started as a process with
 * `process: true` for what only a process shows (signals, its children).
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DIAGNOSTICS_HEADING } from "../../sourcegraph/render/attachment_text.ts";
import { withMetadata } from "../../sourcegraph/plugins/wasm/wasm_sections.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "./git_repo.ts";
import { readSettings } from "../../sourcegraph/settings.ts";
import type { PluginSettings } from "../../sourcegraph/plugins/plugin_settings.ts";
import { connectInProcess, inProcessFetch, withInProcessService } from "./in_process_service.ts";
import { connectClient, type RunningService, startService } from "./sourcegraph_service.ts";
import { toolOutcome } from "./tool_calls.ts";

const FIXTURES = new URL("../fixtures/plugins/", import.meta.url);

/** The repository name the service gives the checkout. */
export const PLUGIN_REPO = "local/project";

/** A committed fixture module (`fixture`, `minimal`, `membomb`, ...). */
export function fixture(name: string): Uint8Array {
  return Deno.readFileSync(new URL(`${name}.wasm`, FIXTURES));
}

/** A fixture with extra metadata (a later section overrides earlier keys). */
export function fixtureWith(name: string, metadata: object): Uint8Array {
  return withMetadata(fixture(name), [metadata]);
}

/** Metadata that makes a plugin run automatically on read and read_many. */
export const ENABLED = { default_enabled: true, operations: ["read", "read_many"] };

/** What a plugin test gets. */
export interface PluginWorld {
  repo: TestRepo;
  head: string;
  /** The service process (only with `process: true`). */
  service: RunningService | null;
  /** The service's log lines so far (debug lines with `SOURCEGRAPH_LOG_LEVEL=debug`). */
  log: string[];
  /** Sends a request for `path` (e.g. `/metrics`) to the service. */
  fetchPath: (path: string, init?: RequestInit) => Promise<Response>;
  client: Client;
  /** Calls a tool and returns its text blocks (asserting it is not a tool error). */
  call(name: string, args: Record<string, unknown>, client?: Client): Promise<string[]>;
  /** Another client, e.g. with `?plugins=off`. */
  connect(query: string): Promise<Client>;
  /**
   * The plugin host's limits as the in-process service runs under them (null
   * for a process): a test of one limit sets a generous one for what follows.
   */
  limits: PluginSettings | null;
}

/** How to set up a plugin test. */
export interface PluginSetup {
  /** Files committed into the checkout (a `.gitignore` for the data folder is added). */
  files: Record<string, string | Uint8Array>;
  /** Service environment. */
  env?: Record<string, string>;
  /** Runs before the commit (e.g. adds symlinks or a sourcegraph.toml). */
  configure?: (repo: TestRepo) => Promise<void>;
  /** Start the service as a process (a `sourcegraph.toml` is read only then). */
  process?: boolean;
  /**
   * The registrations, each a checkout of the same files (default one: `PLUGIN_REPO`, public,
   * the whole repository); composed services only.
   */
  repositories?: { name: string; pathGroups?: { name: string; paths: string[] }[] }[];
}

/** Commits the files into a fresh checkout, serves it, and runs `test`. */
export function withPluginService(
  setup: PluginSetup,
  test: (world: PluginWorld) => Promise<void>,
): Promise<void> {
  return setup.process ? withPluginProcess(setup, test) : withComposedPlugins(setup, test);
}

type Connect = (query: string) => Promise<Client>;

function worldOf(
  at: {
    repo: TestRepo;
    head: string;
    service: RunningService | null;
    log: string[];
    fetchPath: PluginWorld["fetchPath"];
    limits: PluginSettings | null;
  },
  connect: Connect,
  client: Client,
): PluginWorld {
  return {
    ...at,
    client,
    connect,
    async call(name, args, other) {
      const result = await (other ?? client).callTool({
        name,
        arguments: { repo: PLUGIN_REPO, ...args },
      });
      // Plugin text is in the text blocks only: a read's structured content holds its facts.
      const facts = JSON.stringify(result.structuredContent ?? {});
      const fields = new Set(facts.match(/"[a-z_]+":/g) ?? []);
      const known = ["repo", "items", "commit", "path", "start_line", "end_line", "has_more"];
      const allowed = new Set([...known, "next_start_line", "url", "error"].map((k) => `"${k}":`));
      const read = name === "read" || name === "read_many";
      if (read && ([...fields].some((field) => !allowed.has(field)) || facts.includes("\\n"))) {
        throw new Error(`a read's structured content holds more than its facts: ${facts}`);
      }
      const outcome = toolOutcome(result);
      if (outcome.code !== "OK") {
        throw new Error(`tool error: ${outcome.texts.join("\n")}\n${at.log.join("\n")}`);
      }
      return outcome.texts;
    },
  };
}

async function withComposedPlugins(
  setup: PluginSetup,
  test: (world: PluginWorld) => Promise<void>,
): Promise<void> {
  const env = setup.env ?? {};
  const settings = readSettings((name) => env[name], Deno.cwd());
  if (!settings.ok) throw new Error(settings.problems.join("\n"));
  const log: string[] = [];
  const clients: Client[] = [];
  await withInProcessService(async ({ handle, sources, heads }) => {
    const connect = async (query: string) => {
      const client = await connectInProcess(handle, { query });
      clients.push(client);
      return client;
    };
    try {
      const first = setup.repositories?.[0]?.name ?? PLUGIN_REPO;
      const world = {
        repo: sources.get(first)!,
        head: heads.get(first)!,
        service: null,
        log,
        fetchPath: inProcessFetch(handle),
        limits: settings.settings.plugins,
      };
      await test(worldOf(world, connect, await connect("")));
    } finally {
      for (const client of clients) await client.close().catch(() => {});
    }
  }, {
    repositories: (setup.repositories ?? [{ name: PLUGIN_REPO }]).map((repository) => ({
      ...repository,
      publicRead: true,
      files: { ".gitignore": ".sourcegraph/\n", ...setup.files },
      prepare: setup.configure,
      message: "plugins",
    })),
    plugins: settings.settings.plugins,
    settings: settings.settings.serviceToken === undefined
      ? {}
      : { serviceToken: settings.settings.serviceToken },
    log: (line) => log.push(line),
    debug: settings.settings.debug,
  });
}

async function withPluginProcess(
  setup: PluginSetup,
  test: (world: PluginWorld) => Promise<void>,
): Promise<void> {
  if (setup.repositories) throw new Error("a service process serves the checkout it starts in");
  const parent = await tempDir("sg-plugin-");
  const clients: Client[] = [];
  try {
    const repo = await createRepo({ ".gitignore": ".sourcegraph/\n", ...setup.files }, {
      parent,
      name: "project",
    });
    await setup.configure?.(repo);
    const head = await repo.commit("plugins");
    const service = await startService(repo.path, setup.env ?? {});
    try {
      const connect = async (query: string) => {
        const client = await connectClient(service.url, { query });
        clients.push(client);
        return client;
      };
      const fetchPath = (path: string, init?: RequestInit) => fetch(`${service.url}${path}`, init);
      const world = { repo, head, service, log: service.log, fetchPath, limits: null };
      await test(worldOf(world, connect, await connect("")));
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
}

/** The diagnostic lines of a result (empty when there is no diagnostics block). */
export function diagnostics(blocks: string[]): string[] {
  const last = blocks[blocks.length - 1] ?? "";
  return last.startsWith(DIAGNOSTICS_HEADING) ? last.split("\n").slice(1) : [];
}

/** The codes of the diagnostic lines. */
export function diagnosticCodes(blocks: string[]): string[] {
  return diagnostics(blocks).map((line) => line.split(":")[0]);
}

/** The input an echo run saw (the fixture attaches its input as JSON text). */
export function echoed(block: string): Record<string, unknown> {
  return JSON.parse(block);
}

/** A service process with one plugin whose `loop` action never returns (TIMEOUT 60 s). */
export const LOOPING_PLUGIN: PluginSetup = {
  files: { "fixture.sourcegraph.wasm": fixture("fixture"), "a.md": "a\n" },
  env: { SOURCEGRAPH_PLUGINS_TIMEOUT: "60s" },
  process: true,
};

/** Starts a read whose plugin loops; resolves when the read ends (null if it failed). */
export function readWithLoopingPlugin(client: Client): Promise<unknown> {
  return client.callTool({
    name: "read",
    arguments: {
      repo: PLUGIN_REPO,
      path: "a.md",
      plugins: [{ name: "fixture", args: { action: "loop" } }],
    },
  }).catch(() => null);
}
