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

/** The diagnostics block is cut near this size. */
export const DIAGNOSTICS_CAP_BYTES = 16 * 1024;
/** First line of the diagnostics block. */
export const DIAGNOSTICS_HEADING = "Plugin diagnostics (original read retained):";

/** `block` followed by each attachment text after a blank line. */
export function withAttachments(block: string, attachments: readonly string[]): string {
  if (attachments.length === 0) return block;
  return [block.replace(/\n+$/, ""), ...attachments].join("\n\n");
}

/** The blocks that follow the read blocks: unattached attachments, then diagnostics. */
export function renderEnrichmentTail(enrichment: Enrichment): string[] {
  const tail = [...enrichment.unattached];
  if (enrichment.issues.length > 0) tail.push(renderDiagnostics(enrichment.issues));
  return tail;
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
