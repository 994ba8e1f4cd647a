/**
 * The plugin host: enriches a read or read_many with the attachments of
 * the selected repository plugins: the catalog (cached), the plan, then one
 * invocation per (plugin, folder) in selection then folder order under one
 * TIMEOUT for the whole enhancement (each run in a killable sandbox process,
 * `plugin_runs.ts`), and the per-request attachment budget. Any failure leaves the read as it is and becomes one
 * issue of the enrichment; the read is never turned into a tool error.
 *
 * @module
 */

import type { FileRead } from "../read/file_read.ts";
import {
  type Attachment,
  AttachmentBudget,
  type Enrichment,
  NO_ENRICHMENT,
  placeAttachments,
} from "./attachments.ts";
import { type Artifact, CatalogCache, type CatalogSnapshot } from "./catalog_cache.ts";
import { moduleDigest } from "./wasm/compiled_modules.ts";
import { beforeDeadline } from "../../shared/deadline.ts";
import { discoverPlugins, type PluginCatalog, type PluginIssue } from "./plugin_discovery.ts";
import { PluginRuns, type PluginTarget } from "./plugin_runs.ts";
import { planPlugins, type PluginInvocation, requestedPlugins } from "./plugin_plan.ts";
import type { PluginSettings } from "./plugin_settings.ts";
import type { PluginArgument, UrlPlugins } from "./selection_parameters.ts";

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
  /**
   * The attachment bytes this request may add (each attachment counted with
   * the blank line before it), at most the 2 MiB per request; default 2 MiB.
   */
  attachmentBytes?: number;
}

/** Runs repository plugins. */
export class PluginHost {
  #settings: PluginSettings;
  #catalogs = new CatalogCache();
  #runs: PluginRuns;
  #leases = new Map<number, number>();
  #log: (line: string) => void;

  /** A host with `settings`; `debug` receives one JSON line per run, `log` unexpected failures. */
  constructor(
    settings: PluginSettings,
    options: { debug?: (line: string) => void; log?: (line: string) => void } = {},
  ) {
    this.#settings = settings;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#runs = new PluginRuns(settings, { debug: options.debug });
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
    return await this.#catalogs.get(key, async () => {
      const modules = new Map<string, Uint8Array>();
      const catalog = await discoverPlugins(target.tree, {
        commit: target.commit,
        scope: target.scope,
        settings: this.#settings,
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
    if (this.#settings.disabled) return 0;
    const { catalog, artifacts } = await this.catalog(target);
    let compiled = 0;
    for (const plugin of catalog.plugins) {
      const artifact = artifacts.get(plugin.path);
      if (plugin.issues?.length || !artifact || plugin.metadata.defaultEnabled !== true) continue;
      if (await this.#runs.compileAhead(artifact)) compiled++;
    }
    if (catalog.plugins.some((plugin) => plugin.metadata.defaultEnabled === true)) {
      this.#runs.warm();
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
    if (this.#settings.disabled) {
      const names = selection === "auto" ? [] : selection.map((plugin) => plugin.name);
      return placeAttachments(
        [],
        names.map((name) => ({
          code: "PLUGINS_DISABLED",
          message: `${name}: plugins are disabled on this service`,
        })),
      );
    }
    const deadline = performance.now() + this.#settings.timeoutMs;
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
      const { invocations, issues } = plan(snapshot.catalog);
      return await this.#runAll(target, { request, invocations, issues, snapshot, deadline });
    } finally {
      const left = (this.#leases.get(target.repo.id) ?? 1) - 1;
      if (left > 0) this.#leases.set(target.repo.id, left);
      else this.#leases.delete(target.repo.id);
    }
  }

  // The invocations in order under one deadline, each issue labelled with
  // its plugin, attachments admitted while the request's budget lasts.
  async #runAll(
    target: PluginTarget,
    at: {
      request: EnhanceRequest;
      invocations: readonly PluginInvocation[];
      issues: PluginIssue[];
      snapshot: CatalogSnapshot;
      deadline: number;
    },
  ): Promise<Enrichment> {
    const read = new Map(at.request.items.map((item) => [item.itemId, item.file]));
    const attachments: Attachment[] = [];
    const issues = [...at.issues];
    const budget = new AttachmentBudget(at.request.attachmentBytes, {
      separators: at.request.attachmentBytes !== undefined,
    });
    for (const invocation of at.invocations) {
      const label = invocation.plugin.root === ""
        ? invocation.plugin.name
        : `${invocation.plugin.name} (${invocation.plugin.root})`;
      const result = await this.#runs.run(target, {
        invocation,
        operation: at.request.operation,
        files: read,
        deadline: at.deadline,
        artifact: at.snapshot.artifacts.get(invocation.plugin.path),
      });
      for (const issue of result.issues) {
        issues.push({ code: issue.code, message: `${label}: ${issue.message}` });
      }
      for (const attachment of result.attachments) {
        if (budget.admit(attachment)) attachments.push(attachment);
        else {
          issues.push({
            code: "PLUGIN_OUTPUT_TOO_LARGE",
            message: at.request.attachmentBytes === undefined
              ? `${label}: an attachment was omitted (2 MiB of attachments per request)`
              : `${label}: an attachment was omitted (it does not fit the answer's max_bytes)`,
          });
        }
      }
    }
    return placeAttachments(attachments, issues);
  }

  /**
   * Checks once that sandboxes start here; until a later check, runs are
   * answered PLUGIN_SANDBOX_UNAVAILABLE when they do not. Returns the reason.
   */
  probeSandbox(): Promise<string | null> {
    return this.#runs.probeSandbox();
  }

  /** Kills every sandbox process. */
  close(): void {
    this.#runs.close();
    this.#catalogs.close();
  }
}
