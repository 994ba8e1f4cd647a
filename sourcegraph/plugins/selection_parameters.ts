/**
 * The two ways a caller selects plugins: the `plugins` parameter of the MCP
 * URL (absent or `auto`, `off`, or a comma-separated list of names) and the
 * `plugins` tool argument (`[]` or `[{name, args}]`). Invalid or duplicate
 * names, or more than 16, are INVALID_PLUGINS (400).
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_PLUGINS = 16;

/** What the URL asked for: automatic (null), off, or a default list. */
export type UrlPlugins = null | "off" | string[];

/** A validated tool argument. */
export type PluginArgument = { name: string; args?: Record<string, unknown> }[];

function invalid(message: string): SourcegraphError {
  return new SourcegraphError("INVALID_PLUGINS", message);
}

function checkNames(names: string[]): void {
  if (names.length > MAX_PLUGINS) throw invalid(`at most ${MAX_PLUGINS} plugins`);
  if (names.some((name) => !NAME.test(name))) throw invalid("invalid plugin name");
  if (new Set(names).size !== names.length) throw invalid("duplicate plugin name");
}

/** Parses the values of the `plugins` URL parameter (none, one, or repeated); throws INVALID_PLUGINS. */
export function parsePluginsParameter(values: readonly string[]): UrlPlugins {
  if (values.length === 0) return null;
  if (values.length > 1) throw invalid("repeat the plugins parameter at most once");
  const value = values[0];
  if (value === "auto") return null;
  if (value === "off") return "off";
  if (value === "") throw invalid("plugins must be auto, off or a comma-separated list of names");
  const names = value.split(",");
  checkNames(names);
  return names;
}

/** Validates the tool argument (already shaped by the tool schema); throws INVALID_PLUGINS. */
export function validatePluginArgument(argument: PluginArgument | undefined): void {
  if (argument !== undefined) checkNames(argument.map((plugin) => plugin.name));
}
