/**
 * The plugin host: enriches a read or read_many with the attachments of
 * the selected repository plugins. Runs happen after the
 * base read, one invocation per (plugin, folder) in selection then folder
 * order, under one TIMEOUT for the whole enhancement, each in a killable
 * sandbox process. Any failure leaves the read as it is and becomes one
 * issue of the enrichment; the read is never turned into a tool error.
 *
 * @module
 */

import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { PathScope } from "../access/path_scope.ts";
import type { FileRead } from "../read/file_read.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import {
  type Attachment,
  AttachmentBudget,
  type Enrichment,
  NO_ENRICHMENT,
  parseAttachments,
  placeAttachments,
} from "./attachments.ts";
import { canonicalJson, runInput } from "./abi_input.ts";
import { type Artifact, CatalogCache, type CatalogSnapshot } from "./catalog_cache.ts";
import { CompiledModules, moduleDigest } from "./wasm/compiled_modules.ts";
import { beforeDeadline } from "../../shared/deadline.ts";
import { HostReads } from "./host_reads.ts";
import { discoverPlugins, type PluginCatalog, type PluginIssue } from "./plugin_discovery.ts";
import { SandboxUnavailable } from "./sandbox/sandbox_process.ts";
import { PluginInstances } from "./plugin_instances.ts";
import { planPlugins, type PluginInvocation, requestedPlugins } from "./plugin_plan.ts";
import type { PluginSettings } from "./plugin_settings.ts";
import type { PluginArgument, UrlPlugins } from "./selection_parameters.ts";
import { encodeHex } from "../../shared/text.ts";

/** Where plugins run: one repository at one commit, with its scope. */
export interface PluginTarget {
  /** The data folder (cache keys are per store). */
  store: string;
  repo: RepositoryRecord;
  commit: string;
  mirror: string;
  tree: MirrorObjects;
  scope: PathScope;
  /** Throws when the caller may no longer read this commit or scope. */
  recheck: () => void;
}

/** One read item offered to plugins. */
export interface EnhancedItem {
  itemId: string;
  file: FileRead;
}

/** An enhancement request. */
export interface EnhanceRequest {
  operation: "read" | "read_many";
  items: EnhancedItem[];
  url: UrlPlugins;
  argument?: PluginArgument;
}

const MESSAGES: Record<string, string> = {
  PLUGIN_TIMEOUT: "the plugin did not finish within the time limit",
  PLUGIN_BUSY: "all plugin slots are busy; retry later",
  PLUGIN_FAILED: "the plugin failed",
  PLUGIN_INVALID_OUTPUT: "the plugin output is not valid",
  PLUGIN_OUTPUT_TOO_LARGE: "the plugin output is larger than the output limit",
  PLUGIN_ABI_INCOMPATIBLE: "the module must export memory, alloc, dealloc and enrich",
  PLUGIN_INVALID: "the module is not a valid plugin",
  PLUGIN_UNAVAILABLE: "the module cannot be read",
  PLUGIN_SANDBOX_UNAVAILABLE: "the plugin sandbox cannot be started on this service",
};

/** Runs repository plugins. */
export class PluginHost {
  readonly settings: PluginSettings;
  readonly catalogs = new CatalogCache();
  readonly modules: CompiledModules;
  readonly instances: PluginInstances;
  #active = 0;
  #leases = new Map<number, number>();
  #debug: ((line: string) => void) | null;
  #log: (line: string) => void;
  #sandboxProblem: string | null = null;

  /** A host with `settings`; `debug` receives one JSON line per run, `log` unexpected failures. */
  constructor(
    settings: PluginSettings,
    options: { debug?: (line: string) => void; log?: (line: string) => void } = {},
  ) {
    this.settings = settings;
    this.#debug = options.debug ?? null;
    this.#log = options.log ?? ((line) => console.error(line));
    this.instances = new PluginInstances(settings);
    this.modules = new CompiledModules(
      settings.cacheEntries,
      (digest) => this.instances.dropModule(digest),
    );
  }

  /** Whether an enhancement of repository `id` is running (it may not be deleted). */
  leased(id: number): boolean {
    return (this.#leases.get(id) ?? 0) > 0;
  }

  /** The (cached) catalog of a target. */
  async catalog(target: PluginTarget): Promise<CatalogSnapshot> {
    const key = JSON.stringify([
      target.store,
      target.repo.id,
      target.repo.name,
      target.commit,
      target.repo.pathGroups,
    ]);
    return await this.catalogs.get(key, async () => {
      const modules = new Map<string, Uint8Array>();
      const catalog = await discoverPlugins(target.tree, {
        mirror: target.mirror,
        commit: target.commit,
        scope: target.scope,
        settings: this.settings,
        artifacts: modules,
      });
      const artifacts = new Map<string, Artifact>();
      for (const [path, bytes] of modules) {
        artifacts.set(path, { bytes, digest: await moduleDigest(bytes) });
      }
      return { catalog, artifacts };
    });
  }

  /**
   * Compiles the default-enabled plugins of a target ahead of use, never
   * instantiating them; returns how many modules were newly compiled.
   */
  async precompile(target: PluginTarget): Promise<number> {
    if (this.settings.disabled) return 0;
    const { catalog, artifacts } = await this.catalog(target);
    let compiled = 0;
    for (const plugin of catalog.plugins) {
      const artifact = artifacts.get(plugin.path);
      if (plugin.issues?.length || !artifact || plugin.metadata.defaultEnabled !== true) continue;
      const outcome = await this.modules.acquire(artifact.bytes, {
        deadline: performance.now() + this.settings.timeoutMs,
        digest: artifact.digest,
      });
      if ("module" in outcome) {
        this.modules.release(outcome.module.digest);
        if (!outcome.hit) compiled++;
      }
    }
    if (catalog.plugins.some((plugin) => plugin.metadata.defaultEnabled === true)) {
      this.instances.warm();
    }
    return compiled;
  }

  /**
   * What the selected plugins add to a read. Whatever fails, the read
   * stands: an unexpected failure is logged and named `PLUGIN_FAILED`.
   */
  async enhance(target: PluginTarget, request: EnhanceRequest): Promise<Enrichment> {
    try {
      return await this.#enhance(target, request);
    } catch (error) {
      this.#log(`plugin enhancement failed unexpectedly: ${(error as Error)?.stack ?? error}`);
      return placeAttachments([], [{
        code: "PLUGIN_FAILED",
        message: "the plugin host failed; the read is unchanged",
      }]);
    }
  }

  async #enhance(target: PluginTarget, request: EnhanceRequest): Promise<Enrichment> {
    const selection = requestedPlugins(request.url, request.argument);
    if (selection === "none") return NO_ENRICHMENT;
    const files = request.items.filter(({ file }) =>
      file.kind === "file" && !file.isLfsPointer && file.returnedStartLine > 0
    ).map(({ itemId, file }) => ({ itemId, path: file.path }));
    const plan = (catalog: PluginCatalog) =>
      planPlugins({
        catalog,
        files,
        operation: request.operation,
        url: request.url,
        argument: request.argument,
      });
    if (files.length === 0) {
      // Explicit selections hear PLUGIN_NO_READABLE_FILES; no catalog is needed.
      const { issues } = plan({ commit: target.commit, plugins: [] });
      return placeAttachments([], issues);
    }
    if (this.settings.disabled) {
      const names = selection === "auto" ? [] : selection.map((plugin) => plugin.name);
      return placeAttachments(
        [],
        names.map((name) => ({
          code: "PLUGINS_DISABLED",
          message: `${name}: plugins are disabled on this service`,
        })),
      );
    }
    const deadline = performance.now() + this.settings.timeoutMs;
    this.#leases.set(target.repo.id, (this.#leases.get(target.repo.id) ?? 0) + 1);
    try {
      // Discovery counts against TIMEOUT too; a late catalog is still cached for the next read.
      let snapshot: CatalogSnapshot | null;
      try {
        snapshot = await beforeDeadline(this.catalog(target), deadline);
      } catch {
        return placeAttachments([], [{
          code: "PLUGIN_UNAVAILABLE",
          message: "the plugin catalog cannot be loaded",
        }]);
      }
      if (snapshot === null) {
        return placeAttachments([], [{
          code: "PLUGIN_TIMEOUT",
          message: "plugin discovery did not finish within the time limit",
        }]);
      }
      const { invocations, issues: planned } = plan(snapshot.catalog);
      const read = new Map(request.items.map((item) => [item.itemId, item.file]));
      const attachments: Attachment[] = [];
      const issues: PluginIssue[] = [...planned];
      const budget = new AttachmentBudget();
      for (const invocation of invocations) {
        const label = invocation.plugin.root === ""
          ? invocation.plugin.name
          : `${invocation.plugin.name} (${invocation.plugin.root})`;
        const result = await this.#run(target, invocation, {
          operation: request.operation,
          files: read,
          deadline,
          artifact: snapshot.artifacts.get(invocation.plugin.path),
        });
        for (const issue of result.issues) {
          issues.push({ code: issue.code, message: `${label}: ${issue.message}` });
        }
        for (const attachment of result.attachments) {
          if (budget.admit(attachment)) attachments.push(attachment);
          else {
            issues.push({
              code: "PLUGIN_OUTPUT_TOO_LARGE",
              message: `${label}: an attachment was omitted (2 MiB of attachments per request)`,
            });
          }
        }
      }
      return placeAttachments(attachments, issues);
    } finally {
      const left = (this.#leases.get(target.repo.id) ?? 1) - 1;
      if (left > 0) this.#leases.set(target.repo.id, left);
      else this.#leases.delete(target.repo.id);
    }
  }

  /**
   * Checks once that sandboxes start here; until a later check, runs are
   * answered PLUGIN_SANDBOX_UNAVAILABLE when they do not. Returns the reason.
   */
  async probeSandbox(): Promise<string | null> {
    this.#sandboxProblem = this.settings.disabled ? null : await this.instances.probe();
    return this.#sandboxProblem;
  }

  /** Kills every sandbox process. */
  close(): void {
    this.instances.close();
    this.catalogs.close();
  }

  async #run(
    target: PluginTarget,
    invocation: PluginInvocation,
    context: {
      operation: string;
      files: Map<string, FileRead>;
      deadline: number;
      artifact: Artifact | undefined;
    },
  ): Promise<{ attachments: Attachment[]; issues: PluginIssue[] }> {
    const started = performance.now();
    const trace: Record<string, unknown> = { plugin: invocation.plugin.name };
    const fail = (code: string) => {
      trace.code = code;
      return {
        attachments: [],
        issues: [{ code, message: MESSAGES[code] ?? "the plugin failed" }],
      };
    };
    const finish = <T>(result: T): T => {
      trace.total_ms = round(performance.now() - started);
      this.#debug?.(JSON.stringify({ event: "plugin_run", ...trace }));
      return result;
    };
    const artifact = context.artifact;
    if (!artifact) return finish(fail("PLUGIN_UNAVAILABLE"));
    if (performance.now() >= context.deadline) return finish(fail("PLUGIN_TIMEOUT"));
    if (this.#active >= this.settings.concurrency) return finish(fail("PLUGIN_BUSY"));
    this.#active++;
    const digest = artifact.digest;
    let referenced = false;
    try {
      const phase = performance.now();
      const compiled = await this.modules.acquire(artifact.bytes, {
        deadline: context.deadline,
        digest,
      });
      trace.compile_ms = round(performance.now() - phase);
      if (!("module" in compiled)) return finish(fail(compiled.code));
      referenced = true;
      trace.compile_hit = compiled.hit;
      const key = await instanceKey(target, invocation);
      let instance = this.instances.take(digest, key);
      trace.instance_hit = instance !== null;
      if (instance === null) {
        if (this.#sandboxProblem !== null) return finish(fail("PLUGIN_SANDBOX_UNAVAILABLE"));
        const loading = performance.now();
        try {
          instance = this.instances.blank();
        } catch (error) {
          if (error instanceof SandboxUnavailable) {
            return finish(fail("PLUGIN_SANDBOX_UNAVAILABLE"));
          }
          throw error;
        }
        const loaded = await instance.load(artifact.bytes, context.deadline);
        trace.instantiate_ms = round(performance.now() - loading);
        if (loaded !== null) return finish(fail(loaded.code));
      }
      const reads = new HostReads(target.tree, {
        commit: target.commit,
        root: invocation.plugin.root,
        scope: target.scope,
        settings: this.settings,
        recheck: target.recheck,
      });
      let readMs = 0;
      const running = performance.now();
      const outcome = await instance.run(
        runInput(invocation, {
          commit: target.commit,
          repository: target.repo.name,
          operation: context.operation,
          files: context.files,
        }),
        {
          outputBytes: this.settings.outputBytes,
          deadline: context.deadline,
          onRead: async (kind, request) => {
            const at = performance.now();
            try {
              return await reads.answer(kind, request);
            } finally {
              readMs += performance.now() - at;
            }
          },
        },
      );
      Object.assign(trace, {
        run_ms: round(performance.now() - running),
        read_ms: round(readMs),
        reads: reads.calls,
        read_bytes: reads.bytes,
      });
      if ("code" in outcome) return finish(fail(outcome.code));
      const parsed = parseAttachments(
        outcome.output,
        new Set(invocation.files.map((file) => file.itemId)),
      );
      if ("failure" in parsed) {
        instance.kill();
        trace.code = parsed.failure.code;
        return finish({ attachments: [], issues: [parsed.failure] });
      }
      this.instances.put(digest, key, instance);
      trace.code = "OK";
      return finish(parsed);
    } finally {
      this.#active--;
      if (referenced) this.modules.release(digest);
    }
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

async function instanceKey(target: PluginTarget, invocation: PluginInvocation): Promise<string> {
  const key = canonicalJson([
    target.store,
    target.repo.id,
    target.repo.name,
    target.commit,
    invocation.plugin.root,
    target.repo.pathGroups,
    invocation.args,
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return encodeHex(new Uint8Array(digest));
}
