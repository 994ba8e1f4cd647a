/**
 * The `plugins` selection of a request: the URL parameter (absent/`auto`,
 * `off`, or a comma list) and the tool argument. The Wasm plugin host is not
 * part of this release yet, so an explicitly selected plugin reports
 * PLUGINS_DISABLED in a diagnostics block and automatic selection is silent;
 * the read itself is never changed.
 *
 * @module
 */

import { SourcegraphError } from "./errors.ts";
import type { FileResult } from "./file_read.ts";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_PLUGINS = 16;

/** What the URL asked for: automatic (null), off, or a default list. */
export type UrlPlugins = null | "off" | string[];

/** Parses the `plugins` URL parameter; throws INVALID_PLUGINS. */
export function parsePluginsParameter(url: URL): UrlPlugins {
  const values = url.searchParams.getAll("plugins");
  if (values.length === 0) return null;
  const invalid = (message: string) => new SourcegraphError("INVALID_PLUGINS", message, 400);
  if (values.length > 1) throw invalid("repeat the plugins parameter at most once");
  const value = values[0];
  if (value === "auto") return null;
  if (value === "off") return "off";
  if (value === "") throw invalid("plugins must be auto, off or a comma-separated list of names");
  const names = value.split(",");
  if (names.length > MAX_PLUGINS) throw invalid(`at most ${MAX_PLUGINS} plugins`);
  if (names.some((name) => !NAME.test(name))) throw invalid("invalid plugin name");
  if (new Set(names).size !== names.length) throw invalid("duplicate plugin name");
  return names;
}

/** The plugin selection of one request. */
export class PluginSelection {
  #url: UrlPlugins;

  /** Uses the URL selection of this request. */
  constructor(url: UrlPlugins) {
    this.#url = url;
  }

  /**
   * Validates the tool argument and returns diagnostics blocks (empty when
   * nothing was explicitly selected). Throws INVALID_PLUGINS on bad names.
   */
  diagnose(argument: unknown, files: readonly FileResult[]): string[] {
    if (this.#url === "off") return [];
    const explicit = argument === undefined
      ? this.#url
      : (argument as { name: string }[]).map((p) => p.name);
    if (argument !== undefined) {
      const names = (argument as { name: string }[]).map((p) => p.name);
      if (names.some((name) => !NAME.test(name)) || new Set(names).size !== names.length) {
        throw new SourcegraphError("INVALID_PLUGINS", "invalid or duplicate plugin name", 400);
      }
    }
    if (explicit === null || explicit.length === 0) return [];
    const eligible = files.some((file) =>
      file.Kind === "file" && !file.IsLFSPointer && file.ReturnedStartLine > 0
    );
    const code = eligible ? "PLUGINS_DISABLED" : "PLUGIN_NO_READABLE_FILES";
    const reason = eligible
      ? "the plugin host is not enabled on this service"
      : "no readable file in this result";
    return [
      [
        "Plugin diagnostics (original read retained):",
        ...explicit.map((name) => `${code}: ${name}: ${reason}`),
      ]
        .join("\n"),
    ];
  }
}
