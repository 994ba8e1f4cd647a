/**
 * Launch configuration, only from the launcher's environment:
 * GIT_SOURCE_REPOSITORY (the repository), GIT_SOURCE_PATHS (a JSON array of
 * committed paths) and PLUGIN_DATA (the private data folder). Limits are the
 * product defaults and part of the state binding.
 *
 * @module
 */

import { isAbsolute } from "node:path";
import { z } from "zod";
import { GitSourceError } from "./errors.ts";

/** Per-source limits. */
export interface SourceLimits {
  /** Most updates per page. */
  maxFiles: number;
  /** Largest committed file, in bytes. */
  maxFileBytes: number;
  /** Largest serialized MCP result of a page, in bytes, including a 128-byte reserve. */
  maxBatchBytes: number;
}

/** The defaults: 200 files, 64 KiB per file, 512 KiB per page. */
export const DEFAULT_LIMITS: SourceLimits = {
  maxFiles: 200,
  maxFileBytes: 64 * 1024,
  maxBatchBytes: 512 * 1024,
};

/** Most configured paths. */
export const MAX_PATHS = 200;

/** A configured committed path: relative, ASCII, no empty, `.` or `..` segment. */
export const PathSchema: z.ZodType<string> = z.string().min(1).max(1024)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\/-]*$/)
  .refine((path) => path.split("/").every((part) => part !== "" && part !== "." && part !== ".."));

/** The limits, strictly. */
export const LimitsSchema: z.ZodType<SourceLimits> = z.strictObject({
  maxFiles: z.number().int().min(1).max(200),
  maxFileBytes: z.number().int().min(1).max(65_536),
  maxBatchBytes: z.number().int().min(1024).max(524_288),
});

/** A validated configuration. */
export interface SourceConfig {
  /** The repository folder as configured (resolved again on every call). */
  repository: string;
  /** Configured paths, in configuration order. */
  paths: string[];
  /** The private data folder. */
  dataDirectory: string;
  /** Limits. */
  limits: SourceLimits;
}

/** Validates a configuration; throws invalid_config or invalid_path. */
export function validateConfig(input: {
  repository: unknown;
  paths: unknown;
  dataDirectory: unknown;
  limits?: unknown;
}): SourceConfig {
  if (typeof input.repository !== "string" || !isAbsolute(input.repository)) {
    throw new GitSourceError("invalid_config", "the repository must be an absolute path");
  }
  if (typeof input.dataDirectory !== "string" || !isAbsolute(input.dataDirectory)) {
    throw new GitSourceError("invalid_config", "the data folder must be an absolute path");
  }
  const paths = z.array(PathSchema).min(1).max(MAX_PATHS).safeParse(input.paths);
  if (!paths.success) {
    throw new GitSourceError(
      "invalid_config",
      `paths must be 1 to ${MAX_PATHS} relative committed paths`,
    );
  }
  if (new Set(paths.data).size !== paths.data.length) {
    throw new GitSourceError("invalid_path", "configured paths contain duplicates");
  }
  const limits = LimitsSchema.safeParse(input.limits ?? DEFAULT_LIMITS);
  if (!limits.success) throw new GitSourceError("invalid_config", "limits are out of range");
  return {
    repository: input.repository,
    paths: paths.data,
    dataDirectory: input.dataDirectory,
    limits: limits.data,
  };
}

/** Reads the configuration from the launcher's environment. */
export function configFromEnvironment(read: (name: string) => string | undefined): SourceConfig {
  const repository = read("GIT_SOURCE_REPOSITORY");
  const rawPaths = read("GIT_SOURCE_PATHS");
  const dataDirectory = read("PLUGIN_DATA");
  if (!repository) throw new GitSourceError("invalid_config", "GIT_SOURCE_REPOSITORY is not set");
  if (!rawPaths) throw new GitSourceError("invalid_config", "GIT_SOURCE_PATHS is not set");
  if (!dataDirectory) throw new GitSourceError("invalid_config", "PLUGIN_DATA is not set");
  let paths: unknown;
  try {
    paths = JSON.parse(rawPaths);
  } catch {
    throw new GitSourceError("invalid_config", "GIT_SOURCE_PATHS is not a JSON array");
  }
  return validateConfig({ repository, paths, dataDirectory });
}
