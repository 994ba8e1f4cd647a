/**
 * Text of plugin enrichments: attachments after the block they were placed
 * on (after a blank line), unattached ones as blocks of their own, then one
 * diagnostics block when there are issues. Attachment text is the plugin's
 * and is never cut or rewritten here.
 *
 * @module
 */

import type { Enrichment } from "../plugins/attachments.ts";
import type { PluginIssue } from "../plugins/plugin_discovery.ts";
import { utf8Length } from "../../shared/text.ts";

/** The diagnostics block is cut near this size. */
export const DIAGNOSTICS_CAP_BYTES = 16 * 1024;
/** First line of the diagnostics block. */
export const DIAGNOSTICS_HEADING = "Plugin diagnostics (original read retained):";

/** `block` followed by each attachment text after a blank line. */
export function withAttachments(block: string, attachments: readonly string[]): string {
  if (attachments.length === 0) return block;
  return [block.replace(/\n+$/, ""), ...attachments].join("\n\n");
}

/**
 * The blocks that follow the read blocks: unattached attachments, then
 * diagnostics, cut near `diagnosticsBytes` (default 16 KiB).
 */
export function renderEnrichmentTail(
  enrichment: Enrichment,
  options: { diagnosticsBytes?: number } = {},
): string[] {
  const tail = [...enrichment.unattached];
  if (enrichment.issues.length > 0) {
    tail.push(
      renderDiagnostics(enrichment.issues, options.diagnosticsBytes ?? DIAGNOSTICS_CAP_BYTES),
    );
  }
  return tail;
}

function renderDiagnostics(issues: readonly PluginIssue[], cap: number): string {
  const lines = [DIAGNOSTICS_HEADING];
  let size = DIAGNOSTICS_HEADING.length;
  let shown = 0;
  for (const issue of issues) {
    const line = `${issue.code}: ${issue.message}`;
    // 64 bytes stay for the line that counts what was left out.
    if (size + utf8Length(line) + 1 > cap - 64) break;
    lines.push(line);
    size += utf8Length(line) + 1;
    shown++;
  }
  if (shown < issues.length) lines.push(`Additional diagnostics omitted: ${issues.length - shown}`);
  return lines.join("\n");
}

/**
 * How an answer's `max_bytes` left after its own blocks (`ownBytes`) is
 * shared: a quarter for plugin diagnostics (256 bytes to 16 KiB), the rest
 * for attachments.
 */
export function enrichmentRoom(
  maxBytes: number,
  ownBytes: number,
): { attachmentBytes: number; diagnosticsBytes: number } {
  const room = Math.max(0, maxBytes - ownBytes);
  const diagnosticsBytes = Math.min(DIAGNOSTICS_CAP_BYTES, Math.max(256, Math.floor(room / 4)));
  return { attachmentBytes: Math.max(0, room - diagnosticsBytes), diagnosticsBytes };
}
