/**
 * The attachment contract: validating a plugin's output, the per-request
 * attachment budget, and appending attachments and diagnostics to the
 * rendered read blocks. The host never parses business fields, labels,
 * deduplicates or cuts attachment text.
 *
 * @module
 */

import type { PluginIssue } from "./plugin_discovery.ts";

/** One accepted attachment. */
export interface Attachment {
  itemId: string | null;
  text: string;
}

/** Attachment text allowed per request (all plugins and folders together). */
export const ATTACHMENT_BUDGET_BYTES = 2 * 1024 * 1024;
/** The diagnostics block is cut near this size. */
export const DIAGNOSTICS_CAP_BYTES = 16 * 1024;
/** First line of the diagnostics block. */
export const DIAGNOSTICS_HEADING = "Plugin diagnostics (original read retained):";

/**
 * Validates one run's raw output against the item ids of that run. Output
 * that is not UTF-8 JSON is `PLUGIN_INVALID_OUTPUT`; JSON that is not an
 * object with an `attachments` array is `PLUGIN_PROTOCOL_ERROR`; both refuse
 * the output whole. A bad entry is dropped with a `PLUGIN_PROTOCOL_ERROR`
 * issue and the other entries are kept.
 */
export function parseAttachments(
  output: Uint8Array,
  itemIds: ReadonlySet<string>,
): { attachments: Attachment[]; issues: PluginIssue[] } | { failure: PluginIssue } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(output));
  } catch {
    return { failure: invalid("the output is not UTF-8 JSON") };
  }
  // Valid JSON of the wrong shape breaks the output protocol (refused whole).
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      failure: { code: "PLUGIN_PROTOCOL_ERROR", message: "the output is not a JSON object" },
    };
  }
  const list = (value as Record<string, unknown>).attachments;
  if (!Array.isArray(list)) {
    return {
      failure: { code: "PLUGIN_PROTOCOL_ERROR", message: "the output has no attachments array" },
    };
  }
  const attachments: Attachment[] = [];
  const issues: PluginIssue[] = [];
  const protocol = (message: string) => issues.push({ code: "PLUGIN_PROTOCOL_ERROR", message });
  for (const [index, entry] of list.entries()) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      protocol(`attachment ${index} is not an object`);
      continue;
    }
    const { text, item_id: itemId } = entry as Record<string, unknown>;
    if (typeof text !== "string") {
      protocol(`attachment ${index} has no text string`);
      continue;
    }
    if ("item_id" in entry) {
      if (typeof itemId !== "string" || itemId === "" || !itemIds.has(itemId)) {
        protocol(`attachment ${index} names an item_id that is not in this input`);
        continue;
      }
    }
    if (text === "") continue;
    attachments.push({ itemId: typeof itemId === "string" ? itemId : null, text });
  }
  return { attachments, issues };
}

function invalid(message: string): PluginIssue {
  return { code: "PLUGIN_INVALID_OUTPUT", message };
}

/** Keeps attachments within the per-request budget, whole or not at all. */
export class AttachmentBudget {
  #left: number;

  /** Starts with `bytes` of attachment text. */
  constructor(bytes: number = ATTACHMENT_BUDGET_BYTES) {
    this.#left = bytes;
  }

  /** Whether `attachment` fits (and spends it). */
  admit(attachment: Attachment): boolean {
    const size = new TextEncoder().encode(attachment.text).length;
    if (size > this.#left) return false;
    this.#left -= size;
    return true;
  }
}

/**
 * Appends attachments to the read blocks (`read-i` goes to block i, after a
 * blank line), then id-less attachments as blocks of their own, then one
 * diagnostics block when there are issues.
 */
export function renderEnhanced(
  blocks: readonly string[],
  added: { attachments: readonly Attachment[]; issues: readonly PluginIssue[] },
): string[] {
  const { attachments, issues } = added;
  const out = [...blocks];
  const tail: string[] = [];
  for (const attachment of attachments) {
    const index = attachment.itemId === null ? -1 : Number(attachment.itemId.slice(5));
    if (index >= 0 && index < out.length) {
      out[index] = `${out[index].replace(/\n+$/, "")}\n\n${attachment.text}`;
    } else {
      tail.push(attachment.text);
    }
  }
  out.push(...tail);
  if (issues.length > 0) out.push(renderDiagnostics(issues));
  return out;
}

function renderDiagnostics(issues: readonly PluginIssue[]): string {
  const lines = [DIAGNOSTICS_HEADING];
  let size = DIAGNOSTICS_HEADING.length;
  let shown = 0;
  for (const issue of issues) {
    const line = `${issue.code}: ${issue.message}`;
    if (size + line.length + 1 > DIAGNOSTICS_CAP_BYTES) break;
    lines.push(line);
    size += line.length + 1;
    shown++;
  }
  if (shown < issues.length) lines.push(`Additional diagnostics omitted: ${issues.length - shown}`);
  return lines.join("\n");
}
