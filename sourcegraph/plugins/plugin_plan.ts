/**
 * Which plugins run on a read, and on which files: the selection rules of
 * the plugin contract. `off` in the URL wins; a tool argument `[]` disables;
 * a tool argument list selects exactly those (even ones not enabled by
 * default); a URL list applies when the argument is absent; otherwise the
 * selection is automatic. Per file and per name the nearest same-name
 * ancestor plugin applies (a child overrides its parent); in automatic mode
 * it must be `default_enabled` for this operation, and a disabled child
 * shadows its parent. One invocation per (name, folder), folders in order,
 * with paths relative to the folder. Nothing here runs plugin code.
 *
 * @module
 */

import type { PluginCatalog, PluginEntry, PluginIssue } from "./plugin_discovery.ts";
import type { PluginArgument, UrlPlugins } from "./selection_parameters.ts";

/** A file a read returned (only files with returned lines are eligible). */
export interface ReadFileRef {
  /** `read-<index in the original request>`. */
  itemId: string;
  /** Canonical repository path. */
  path: string;
}

/** One planned run. */
export interface PluginInvocation {
  plugin: PluginEntry;
  args: Record<string, unknown>;
  files: (ReadFileRef & { relativePath: string })[];
}

/** The outcome of selection. */
export interface PluginPlan {
  invocations: PluginInvocation[];
  issues: PluginIssue[];
}

/** One requested plugin. */
export type Requested = PluginArgument[number];

/** Most plugins automatic selection runs on one request. */
export const MAX_AUTO_PLUGINS = 16;

/**
 * What a request selects: nothing (`off` in the URL or an empty argument),
 * automatic selection, or exactly these plugins (the argument, else the URL list).
 */
export function requestedPlugins(
  url: UrlPlugins,
  argument: PluginArgument | undefined,
): "none" | "auto" | Requested[] {
  if (url === "off" || argument?.length === 0) return "none";
  return argument ?? (url === null ? "auto" : url.map((name) => ({ name })));
}

/** Plans the runs for one read or read_many. */
export function planPlugins(input: {
  catalog: PluginCatalog;
  files: readonly ReadFileRef[];
  operation: "read" | "read_many";
  url: UrlPlugins;
  argument?: PluginArgument;
}): PluginPlan {
  const plan: PluginPlan = { invocations: [], issues: [] };
  const selection = requestedPlugins(input.url, input.argument);
  if (selection === "none") return plan;
  const auto = selection === "auto";
  const requested: Requested[] = auto
    ? [...new Set(input.catalog.plugins.map((plugin) => plugin.name))].map((name) => ({ name }))
    : selection;
  if (input.files.length === 0) {
    if (!auto) {
      for (const { name } of requested) {
        plan.issues.push({
          code: "PLUGIN_NO_READABLE_FILES",
          message: `${name}: no readable file in this result`,
        });
      }
    }
    return plan;
  }
  if (auto) plan.issues.push(...discoveryIssues(input.catalog));
  let autoCount = 0;
  for (const { name, args } of requested) {
    const { groups, unavailable } = groupByPlugin(input, { name, args, auto });
    plan.issues.push(...unavailable);
    if (groups.size === 0) {
      if (!auto && unavailable.length === 0) plan.issues.push(missingPlugin(input.catalog, name));
      continue;
    }
    if (auto && ++autoCount > MAX_AUTO_PLUGINS) {
      plan.issues.push({
        code: "PLUGIN_LIMIT",
        message: `more than ${MAX_AUTO_PLUGINS} automatic plugins`,
      });
      break;
    }
    for (const root of [...groups.keys()].sort()) plan.invocations.push(groups.get(root)!);
  }
  return plan;
}

// The files of one requested name grouped by their nearest plugin, and
// (explicit selections only) one issue per nearest plugin that discovery
// found unusable.
function groupByPlugin(
  input: { catalog: PluginCatalog; files: readonly ReadFileRef[]; operation: string },
  request: { name: string; args?: Record<string, unknown>; auto: boolean },
): { groups: Map<string, PluginInvocation>; unavailable: PluginIssue[] } {
  const { name, auto } = request;
  const groups = new Map<string, PluginInvocation>();
  const unavailable = new Map<string, PluginIssue>();
  for (const file of input.files) {
    const nearest = nearestPlugin(input.catalog, name, file.path);
    if (!nearest) continue;
    if (nearest.issues?.length) {
      if (!auto && !unavailable.has(nearest.path)) {
        // The discovery code says why (PLUGIN_ABI_INCOMPATIBLE, PLUGIN_UNAVAILABLE, ...).
        unavailable.set(nearest.path, {
          code: nearest.issues[0].code,
          message: `${name}: ${nearest.issues[0].message}`,
        });
      }
      continue;
    }
    if (
      auto &&
      (nearest.metadata.defaultEnabled !== true ||
        !nearest.metadata.operations?.includes(input.operation))
    ) {
      continue; // a disabled child shadows its parent: no fallback
    }
    let invocation = groups.get(nearest.root);
    if (!invocation) {
      invocation = { plugin: nearest, args: request.args ?? {}, files: [] };
      groups.set(nearest.root, invocation);
    }
    invocation.files.push({
      ...file,
      relativePath: nearest.root === "" ? file.path : file.path.slice(nearest.root.length + 1),
    });
  }
  return { groups, unavailable: [...unavailable.values()] };
}

// An explicit name that applies to no file. A failed scan may have missed
// the plugin: "not found" would be a guess.
function missingPlugin(catalog: PluginCatalog, name: string): PluginIssue {
  return catalog.issues?.length
    ? {
      code: "PLUGIN_UNAVAILABLE",
      message: `${name}: plugin discovery was incomplete (${catalog.issues[0].code})`,
    }
    : { code: "PLUGIN_FILE_NOT_FOUND", message: `${name}: no applicable plugin for these files` };
}

function nearestPlugin(catalog: PluginCatalog, name: string, path: string): PluginEntry | null {
  let best: PluginEntry | null = null;
  for (const plugin of catalog.plugins) {
    if (plugin.name !== name) continue;
    if (plugin.root !== "" && !path.startsWith(`${plugin.root}/`)) continue;
    if (!best || plugin.root.length > best.root.length) best = plugin;
  }
  return best;
}

function discoveryIssues(catalog: PluginCatalog): PluginIssue[] {
  return [
    ...(catalog.issues ?? []),
    ...catalog.plugins.flatMap((plugin) =>
      (plugin.issues ?? []).map((issue) => ({
        code: issue.code,
        message: `${plugin.path}: ${issue.message}`,
      }))
    ),
  ];
}
