/**
 * Plugin discovery at one fixed commit: regular `*.sourcegraph.wasm` blobs
 * inside the registered scope, named by their file name, with metadata read
 * statically from each module (never running plugin code). Entries are sorted
 * by path; problems become issues with stable codes, never exceptions.
 *
 * @module
 */

import { isRegularFile, parseTreeListing } from "../../shared/tree_listing.ts";
import { posix } from "node:path";
import { GitError, runGit } from "../../shared/git.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { PathScope } from "../access/path_scope.ts";
import type { PluginSettings } from "./plugin_settings.ts";
import { SourcegraphError } from "../errors.ts";
import { inspectMetadata, type PluginMetadata } from "./wasm/wasm_metadata.ts";

/** A problem found during discovery. */
export interface PluginIssue {
  code: string;
  message: string;
}

/** One discovered plugin. */
export interface PluginEntry {
  name: string;
  /** The plugin's folder ("" at the top level). */
  root: string;
  path: string;
  /** The module's blob id (its content digest for caches). */
  oid: string;
  metadata: PluginMetadata;
  issues?: PluginIssue[];
}

/** The catalog of one commit. */
export interface PluginCatalog {
  commit: string;
  plugins: PluginEntry[];
  issues?: PluginIssue[];
}

const SUFFIX = ".sourcegraph.wasm";
/**
 * The scan's own bound. A read waits for discovery only until its TIMEOUT, but
 * discovery goes on and its catalog is cached for the next read, so the scan
 * is not cut at the TIMEOUT of the read that started it (a TIMEOUT shorter
 * than one ls-tree would otherwise leave every catalog failed).
 */
const SCAN_TIMEOUT_MS = 30_000;
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Discovers the plugins of `commit` in the mirror of `tree` within the registered folders of `scope`. */
export async function discoverPlugins(
  tree: MirrorObjects,
  options: {
    commit: string;
    scope: PathScope;
    settings: PluginSettings;
    /** Filled with the bytes of each readable module, by path. */
    artifacts?: Map<string, Uint8Array>;
  },
): Promise<PluginCatalog> {
  const { commit } = options;
  const mirror = tree.path;
  const catalog: PluginCatalog = { commit, plugins: [] };
  const seen = new Set<string>();
  for (const root of options.scope.roots) {
    let listing: Uint8Array;
    try {
      listing = (await runGit(
        ["ls-tree", "-r", "-z", "--full-tree", commit, "--", ...(root === "" ? [] : [`${root}/`])],
        { cwd: mirror, maxStdoutBytes: 64 * 1024 * 1024, timeoutMs: SCAN_TIMEOUT_MS },
      )).stdout;
    } catch (error) {
      const reason = error instanceof GitError && error.code === "GIT_TIMEOUT"
        ? "TIMEOUT"
        : "GIT_OPERATION_FAILED";
      (catalog.issues ??= []).push({
        code: "PLUGIN_DISCOVERY_FAILED",
        message: `scope ${root === "" ? "." : root}: ${reason}`,
      });
      continue;
    }
    for (const entry of parseTreeListing(listing)) {
      const { path, oid } = entry;
      if (!path.endsWith(SUFFIX) || seen.has(path) || !isRegularFile(entry)) continue;
      const name = posix.basename(path).slice(0, -SUFFIX.length);
      if (!NAME.test(name) || !options.scope.covers(path)) continue;
      seen.add(path);
      catalog.plugins.push(await describe(tree, { name, path, oid }, options, catalog));
    }
  }
  catalog.plugins.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return catalog;
}

async function describe(
  tree: MirrorObjects,
  found: { name: string; path: string; oid: string },
  options: { settings: PluginSettings; artifacts?: Map<string, Uint8Array> },
  catalog: PluginCatalog,
): Promise<PluginEntry> {
  const settings = options.settings;
  const dir = posix.dirname(found.path);
  const entry: PluginEntry = { ...found, root: dir === "." ? "" : dir, metadata: {} };
  let bytes: Uint8Array | null;
  try {
    bytes = await tree.blob(found.oid, settings.artifactBytes);
  } catch {
    (catalog.issues ??= []).push({
      code: "PLUGIN_UNAVAILABLE",
      message: `${found.path}: the module cannot be read`,
    });
    entry.issues = [{ code: "PLUGIN_UNAVAILABLE", message: "the module cannot be read" }];
    return entry;
  }
  if (bytes === null) {
    entry.issues = [{
      code: "PLUGIN_TOO_LARGE",
      message: "the module is larger than ARTIFACT_BYTES",
    }];
    return entry;
  }
  options.artifacts?.set(found.path, bytes);
  try {
    entry.metadata = inspectMetadata(bytes, { maxMetadataBytes: settings.metadataBytes });
  } catch (error) {
    const known = error instanceof SourcegraphError
      ? error
      : new SourcegraphError("PLUGIN_UNAVAILABLE", "the metadata cannot be read");
    entry.issues = [{ code: known.code, message: known.message }];
  }
  return entry;
}
