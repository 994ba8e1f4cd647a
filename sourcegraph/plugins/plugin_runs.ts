/**
 * One plugin invocation from module bytes to accepted attachments: the
 * compiled module (cached by digest), an instance (reused when its key
 * matches, else a new sandbox process), the call under the enhancement's
 * deadline with host reads answered inside the target's scope, and the
 * output contract. Every failure is a stable code; a debug line per run
 * carries timings, never content or arguments.
 *
 * @module
 */

import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { PathScope } from "../access/path_scope.ts";
import type { FileRead } from "../read/file_read.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { canonicalJson, runInput } from "./abi_input.ts";
import { type Attachment, parseAttachments } from "./attachments.ts";
import type { Artifact } from "./catalog_cache.ts";
import { HostReads } from "./host_reads.ts";
import type { PluginIssue } from "./plugin_discovery.ts";
import { PluginInstances } from "./plugin_instances.ts";
import type { PluginInvocation } from "./plugin_plan.ts";
import type { PluginSettings } from "./plugin_settings.ts";
import { type SandboxProcess, SandboxUnavailable } from "./sandbox/sandbox_process.ts";
import { CompiledModules } from "./wasm/compiled_modules.ts";
import { encodeHex } from "../../shared/text.ts";

/** Where plugins run: one repository at one commit, with its scope. */
export interface PluginTarget {
  /** The data folder (cache keys are per store). */
  store: string;
  repo: RepositoryRecord;
  commit: string;
  tree: MirrorObjects;
  scope: PathScope;
  /** Throws when the caller may no longer read this commit or scope. */
  recheck: () => void;
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

/** Runs plugin invocations within the service's concurrency. */
export class PluginRuns {
  #settings: PluginSettings;
  #modules: CompiledModules;
  #instances: PluginInstances;
  #active = 0;
  #debug: ((line: string) => void) | null;
  #sandboxProblem: string | null = null;

  /** Runs under `settings`; `debug` receives one JSON line per run. */
  constructor(settings: PluginSettings, options: { debug?: (line: string) => void } = {}) {
    this.#settings = settings;
    this.#debug = options.debug ?? null;
    this.#instances = new PluginInstances(settings);
    this.#modules = new CompiledModules(
      settings.cacheEntries,
      (digest) => this.#instances.dropModule(digest),
    );
  }

  /** Compiles `artifact` ahead of use (never instantiating it); whether it was newly compiled. */
  async compileAhead(artifact: Artifact): Promise<boolean> {
    const outcome = await this.#modules.acquire(artifact.bytes, {
      deadline: performance.now() + this.#settings.timeoutMs,
      digest: artifact.digest,
    });
    if (!("module" in outcome)) return false;
    this.#modules.release(outcome.module.digest);
    return !outcome.hit;
  }

  /** Starts a spare sandbox process so a first run does not wait for one. */
  warm(): void {
    this.#instances.warm();
  }

  /**
   * Checks once that sandboxes start here; until a later check, runs are
   * answered PLUGIN_SANDBOX_UNAVAILABLE when they do not. Returns the reason.
   */
  async probeSandbox(): Promise<string | null> {
    this.#sandboxProblem = this.#settings.disabled ? null : await this.#instances.probe();
    return this.#sandboxProblem;
  }

  /** Kills every sandbox process. */
  close(): void {
    this.#instances.close();
  }

  /**
   * Runs one invocation on `target`: the compiled module (cached), an
   * instance (reused or new), the sandboxed call and the output checks.
   */
  async run(target: PluginTarget, context: RunContext): Promise<RunResult> {
    const started = performance.now();
    const trace: Trace = { plugin: context.invocation.plugin.name };
    const finish = (result: RunResult | string): RunResult => {
      if (typeof result === "string") {
        trace.code = result;
        result = {
          attachments: [],
          issues: [{ code: result, message: MESSAGES[result] ?? "the plugin failed" }],
        };
      }
      trace.total_ms = round(performance.now() - started);
      this.#debug?.(JSON.stringify({ event: "plugin_run", ...trace }));
      return result;
    };
    const artifact = context.artifact;
    if (!artifact) return finish("PLUGIN_UNAVAILABLE");
    if (performance.now() >= context.deadline) return finish("PLUGIN_TIMEOUT");
    if (this.#active >= this.#settings.concurrency) return finish("PLUGIN_BUSY");
    this.#active++;
    let referenced = false;
    try {
      const phase = performance.now();
      const compiled = await this.#modules.acquire(artifact.bytes, {
        deadline: context.deadline,
        digest: artifact.digest,
      });
      trace.compile_ms = round(performance.now() - phase);
      if (!("module" in compiled)) return finish(compiled.code);
      referenced = true;
      trace.compile_hit = compiled.hit;
      const key = await instanceKey(target, context.invocation);
      const instance = await this.#instance(artifact, { key, deadline: context.deadline, trace });
      if (typeof instance === "string") return finish(instance);
      const result = await this.#call(instance, { target, context, trace });
      if (typeof result !== "string" && trace.code === "OK") {
        this.#instances.put(instance, { digest: artifact.digest, key });
      }
      return finish(result);
    } finally {
      this.#active--;
      if (referenced) this.#modules.release(artifact.digest);
    }
  }

  // A loaded instance of the module: a kept one with the same key, else a
  // fresh sandbox loaded with it; or the failure's code.
  async #instance(
    artifact: Artifact,
    at: { key: string; deadline: number; trace: Trace },
  ): Promise<SandboxProcess | string> {
    const kept = this.#instances.take(artifact.digest, at.key);
    at.trace.instance_hit = kept !== null;
    if (kept !== null) return kept;
    if (this.#sandboxProblem !== null) return "PLUGIN_SANDBOX_UNAVAILABLE";
    const loading = performance.now();
    let instance: SandboxProcess;
    try {
      instance = this.#instances.blank();
    } catch (error) {
      if (error instanceof SandboxUnavailable) return "PLUGIN_SANDBOX_UNAVAILABLE";
      throw error;
    }
    const loaded = await instance.load(artifact.bytes, at.deadline);
    at.trace.instantiate_ms = round(performance.now() - loading);
    return loaded === null ? instance : loaded.code;
  }

  // The sandboxed call with host reads answered inside the target's scope,
  // then the output contract (a bad output kills the instance).
  async #call(
    instance: SandboxProcess,
    at: { target: PluginTarget; context: RunContext; trace: Trace },
  ): Promise<RunResult | string> {
    const { target, context, trace } = at;
    const { invocation } = context;
    const reads = new HostReads(target.tree, {
      commit: target.commit,
      root: invocation.plugin.root,
      scope: target.scope,
      settings: this.#settings,
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
        outputBytes: this.#settings.outputBytes,
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
    if ("code" in outcome) return outcome.code;
    const parsed = parseAttachments(
      outcome.output,
      new Set(invocation.files.map((file) => file.itemId)),
    );
    if ("failure" in parsed) {
      instance.kill();
      trace.code = parsed.failure.code;
      return { attachments: [], issues: [parsed.failure] };
    }
    trace.code = "OK";
    return parsed;
  }
}

/** What one run is given. */
export interface RunContext {
  invocation: PluginInvocation;
  operation: string;
  files: ReadonlyMap<string, FileRead>;
  deadline: number;
  artifact: Artifact | undefined;
}

/** What one run adds: accepted attachments, or the issues that say why none. */
export interface RunResult {
  attachments: Attachment[];
  issues: PluginIssue[];
}

type Trace = Record<string, unknown>;

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
