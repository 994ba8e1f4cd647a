/**
 * Argument schemas shared by several tools.
 *
 * @module
 */

import { z } from "zod";
import { FANOUT_MAX_REPOSITORIES } from "../../service/repository_pins.ts";

/** A repository name. */
export const repo = z.string().min(1).max(256).describe(
  "Repository name as `repositories` lists it, e.g. `local/project` or `org/app`.",
);
/** Repositories to cover: one name, a list of names and globs, or one glob (optional: all). */
export const repoSelection = z.union([
  z.string().min(1).max(256),
  z.array(z.string().min(1).max(256)).min(1).max(FANOUT_MAX_REPOSITORIES),
]).optional().describe(
  "A repository name as `repositories` lists it; or a list of names and globs, or one glob (`org/*`); omitted: every repository you can see.",
);

/** A revision: a monitored branch or a full SHA (optional). */
export const revision = z.string().min(1).max(256).optional().describe(
  "A monitored branch or a retained full 40-hex SHA; default: the default branch.",
);
/** A repository-relative path. */
export const path = z.string().min(1).max(4096).describe(
  "File path from the repository root, e.g. `src/main.ts` (no leading `/`).",
);
/** A 1-based line number (optional). */
export const line = z.number().int().min(1).optional().describe("1-based line number.");
/** A position in a file, for `definition` and `references`: a line, and a column or a name on it. */
export const position = {
  line: z.number().int().min(1).describe("1-based line."),
  column: z.number().int().min(1).max(100_000).optional().describe("1-based, in characters."),
  symbol: z.string().min(1).max(200).optional().describe("Name on the line."),
};
/** A position as the service's requests name it. */
export interface PositionRequest {
  repo: string;
  revision?: string;
  path: string;
  line: number;
  column?: number;
  symbol?: string;
}

/** The position arguments of a tool's call, without its other arguments. */
export function positionRequest(args: PositionRequest): PositionRequest {
  const { repo, revision, path, line, column, symbol } = args;
  return { repo, revision, path, line, column, symbol };
}
/** The `plugins` tool argument. */
export const plugins = z.array(z.strictObject({
  name: z.string().min(1).max(64).describe("Plugin name from `availability` with include_plugins."),
  args: z.record(z.string(), z.unknown()).optional().describe("The plugin's own arguments."),
})).max(16).optional().describe(
  "Plugins to run on this read (up to 16); default: the repository's default-enabled ones.",
);
/** Path prefixes restricting a search or diff. */
export const paths = z.array(z.string().min(1).max(4096)).max(64).optional().describe(
  'Folders to restrict to (up to 64), e.g. ["src", "docs"].',
);
/** A paging cursor. */
export const after = z.string().min(1).max(4096).optional().describe(
  "next_cursor of the previous page, to continue after it.",
);
/** Most bytes of a page of entries by default (under 40,000 characters). */
export const PAGE_DEFAULT_MAX_BYTES = 32 * 1024;
/** A page's byte budget (entries past it come on the next page). */
export const pageBytes = z.number().int().min(1024).max(1024 * 1024).optional().describe(
  `Most bytes of the answer (1024 to 1048576; default ${PAGE_DEFAULT_MAX_BYTES}); entries past ` +
    "it come on the next page (next_cursor).",
);
