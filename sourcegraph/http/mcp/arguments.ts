/**
 * Argument schemas shared by several tools. The shared arguments
 * (`SHARED_ARGUMENTS`) carry no description of their own: the server's
 * instructions say once what each means, so the listing stays small.
 *
 * @module
 */

import { z } from "zod";
import { FANOUT_MAX_REPOSITORIES } from "../../service/repository_pins.ts";

/** A repository name. */
export const repo = z.string().min(1).max(256);
/** Repositories to cover: one name, a list of names and globs, or one glob (optional: all). */
export const repoSelection = z.union([
  z.string().min(1).max(256),
  z.array(z.string().min(1).max(256)).min(1).max(FANOUT_MAX_REPOSITORIES),
]).optional();

/** A revision: a monitored branch or a full SHA (optional). */
export const revision = z.string().min(1).max(256).optional();
/** A repository-relative path. */
export const path = z.string().min(1).max(4096);
/** A 1-based line number (optional). */
export const line = z.number().int().min(1).optional();
/** A position in a file, for `definition` and `references`: a line, and a column or a name on it. */
export const position = {
  line: z.number().int().min(1),
  column: z.number().int().min(1).max(100_000).optional(),
  symbol: z.string().min(1).max(200).optional(),
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
  name: z.string().min(1).max(64),
  args: z.record(z.string(), z.unknown()).optional(),
})).max(16).optional();
/** Path prefixes restricting a search or diff. */
export const paths = z.array(z.string().min(1).max(4096)).max(64).optional();
/** File globs as `rg -g` takes them. */
export const glob = z.array(z.string().min(1).max(1024)).max(64).optional();
/** A paging cursor of at most `maxLength` characters. */
export function cursor(maxLength: number): z.ZodOptional<z.ZodString> {
  return z.string().min(1).max(maxLength).optional();
}
/** A paging cursor. */
export const after = cursor(4096);
/** Most bytes of a page of entries by default (under 40,000 characters). */
export const PAGE_DEFAULT_MAX_BYTES = 32 * 1024;
/** A page's byte budget (entries past it come on the next page). */
export const pageBytes = z.number().int().min(1024).max(1024 * 1024).optional();

/**
 * The arguments listed without a description: the server's instructions
 * say what each means, once for every tool.
 */
export const SHARED_ARGUMENTS = [
  "repo",
  "revision",
  "path",
  "start_line",
  "end_line",
  "line",
  "column",
  "symbol",
  "first",
  "after",
  "max_bytes",
  "paths",
  "glob",
  "ignore_case",
  "plugins",
] as const;
