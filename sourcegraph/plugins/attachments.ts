/**
 * The attachment contract: validating a plugin's output, the per-request
 * attachment budget, and placing attachments on the read items they name.
 * The host never parses business fields, labels, deduplicates or cuts
 * attachment text.
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

/**
 * Keeps attachments within the per-request budget, whole or not at all.
 * With `separators`, the blank line each attachment is rendered after is
 * counted too (a budget that is an answer's max_bytes).
 */
export class AttachmentBudget {
  #left: number;
  #separator: number;

  /** Starts with `bytes` of attachment text (default, and at most, 2 MiB). */
  constructor(bytes: number = ATTACHMENT_BUDGET_BYTES, options: { separators?: boolean } = {}) {
    this.#left = Math.min(ATTACHMENT_BUDGET_BYTES, bytes);
    this.#separator = options.separators ? 2 : 0;
  }

  /** Whether `attachment` fits (and spends it). */
  admit(attachment: Attachment): boolean {
    const size = new TextEncoder().encode(attachment.text).length + this.#separator;
    if (size > this.#left) return false;
    this.#left -= size;
    return true;
  }
}

/** What plugins added to a read: attachments by read item id, the rest, and issues. */
export interface Enrichment {
  /** Attachment texts placed on the item with that id (`read-i`), in output order. */
  byItem: ReadonlyMap<string, readonly string[]>;
  /** Attachments that name no item, in output order. */
  unattached: readonly string[];
  /** What went wrong, one entry per problem (the read itself stands). */
  issues: readonly PluginIssue[];
}

/** Nothing added. */
export const NO_ENRICHMENT: Enrichment = { byItem: new Map(), unattached: [], issues: [] };

/** Places accepted attachments on the items they name; id-less ones stay unattached. */
export function placeAttachments(
  attachments: readonly Attachment[],
  issues: readonly PluginIssue[],
): Enrichment {
  const byItem = new Map<string, string[]>();
  const unattached: string[] = [];
  for (const attachment of attachments) {
    if (attachment.itemId === null) unattached.push(attachment.text);
    else byItem.set(attachment.itemId, [...byItem.get(attachment.itemId) ?? [], attachment.text]);
  }
  return { byItem, unattached, issues };
}
