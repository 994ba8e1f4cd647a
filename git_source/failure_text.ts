/**
 * What a failed tool call tells its client. The first text block is the
 * feed protocol's exact `"<tool> failed: <code>"` (clients match on it); a
 * second block says what failed and how to recover, so an agent or its
 * operator need not guess at a bare `unavailable`. Messages are the feed's
 * own short, safe sentences (never a host path or Git's output); an
 * unexpected failure is only named as such (the server's log has it).
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { GitSourceError } from "./errors.ts";
import type { GitSourceErrorCode } from "./protocol.ts";

const RECOVERY: Readonly<Record<GitSourceErrorCode, string>> = {
  invalid_config: "Fix GIT_SOURCE_REPOSITORY, GIT_SOURCE_PATHS or PLUGIN_DATA and restart.",
  invalid_path: "Remove the duplicate paths from GIT_SOURCE_PATHS and restart.",
  state_corrupt:
    "It is never treated as empty: keep it for diagnosis; to start over deliberately, point PLUGIN_DATA at a new folder.",
  configuration_changed: "Restore that configuration, or use a new data folder.",
  reconciliation_required:
    "History was rewritten below the acknowledged commit: restore the old history, or reconcile the consumer and start a new data folder.",
  unsupported_file:
    "Only regular UTF-8 committed files are delivered: fix the file or remove its path from GIT_SOURCE_PATHS.",
  file_too_large: "Shrink or split it, or remove its path from GIT_SOURCE_PATHS.",
  batch_too_large: "Raise the page limit.",
  unknown_ack: "Call git.changes and acknowledge the token it returns.",
  writer_locked: "If the process it names has stopped, remove that file and reconnect.",
  unavailable:
    "Restore the repository or its objects (or the data folder's permissions); calls work again once they are back, with no restart.",
};

/** The result of `tool` failing with `error`: the protocol's code line, then what failed and what to do. */
export function failureResult(tool: string, error: unknown): CallToolResult {
  const code = error instanceof GitSourceError ? error.code : "unavailable";
  const what = error instanceof GitSourceError
    ? error.message
    : "an unexpected failure (the server's log has it)";
  return {
    isError: true,
    content: [
      { type: "text", text: `${tool} failed: ${code}` },
      { type: "text", text: `${capitalized(what)}. ${RECOVERY[code]}` },
    ],
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
