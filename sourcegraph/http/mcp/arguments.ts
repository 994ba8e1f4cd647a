/**
 * Argument schemas shared by several tools.
 *
 * @module
 */

import { z } from "zod";

/** A repository name. */
export const repo = z.string().min(1).max(256);
/** A revision: a monitored branch or a full SHA (optional). */
export const revision = z.string().min(1).max(256).optional();
/** A repository-relative path. */
export const path = z.string().min(1).max(4096);
/** A 1-based line number (optional). */
export const line = z.number().int().min(1).optional();
/** The `plugins` tool argument. */
export const plugins = z.array(z.strictObject({
  name: z.string().min(1).max(64),
  args: z.record(z.string(), z.unknown()).optional(),
})).max(16).optional();
/** Path prefixes restricting a search or diff. */
export const paths = z.array(z.string().min(1).max(4096)).max(64).optional();
/** A paging cursor. */
export const after = z.string().min(1).max(4096).optional();
