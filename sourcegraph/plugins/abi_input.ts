/**
 * The plugin ABI input (version 2): the canonical JSON a plugin's `enrich`
 * receives, mapped from the structured reads it may see. Field names and
 * key order are the ABI's: snake_case, keys sorted at every level.
 *
 * @module
 */

import type { FileRead } from "../read/file_read.ts";
import type { PluginInvocation } from "./plugin_plan.ts";

/** The ABI version this host writes. */
export const ABI_VERSION = 2;

/** The input bytes of one invocation over the files it was planned for. */
export function runInput(
  invocation: PluginInvocation,
  context: {
    commit: string;
    repository: string;
    operation: string;
    files: ReadonlyMap<string, FileRead>;
  },
): Uint8Array {
  return new TextEncoder().encode(canonicalJson({
    abi_version: ABI_VERSION,
    args: invocation.args,
    commit: context.commit,
    files: invocation.files.map((ref) => {
      const file = context.files.get(ref.itemId)!;
      return {
        content: file.content,
        end_line: file.returnedEndLine,
        has_more: file.hasMore,
        item_id: ref.itemId,
        next_start_line: file.nextStartLine,
        path: ref.relativePath,
        repository_path: ref.path,
        start_line: file.returnedStartLine,
        truncated: file.truncated,
      };
    }),
    operation: context.operation,
    repository: context.repository,
    root: invocation.plugin.root,
  }));
}

/** JSON with object keys sorted at every level (as compatible hosts write it). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, field) => {
    if (typeof field !== "object" || field === null || Array.isArray(field)) return field;
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(field).sort()) sorted[name] = field[name];
    return sorted;
  });
}
