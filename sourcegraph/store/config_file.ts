/**
 * The optional `sourcegraph.toml` in the working directory: repositories to
 * register at start (those already registered keep their stored settings;
 * the admin API changes them later).
 *
 * ```toml
 * [[repositories]]
 * name = "org/app"
 * source = "https://example.org/org/app.git"
 * public_read = false
 * branches = ["main"]
 * default_branch = "main"
 * retain_count = 20
 * path_groups = [{ name = "docs", paths = ["docs"] }]
 * ```
 *
 * @module
 */

import * as fs from "node:fs";
import { parse } from "smol-toml";
import { z } from "zod";
import type { ControlStore } from "./control_store.ts";

const RepositoryEntry = z.strictObject({
  name: z.string().regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){1,2}$/,
  ),
  source: z.string().min(1).max(4096),
  public_read: z.boolean().default(false),
  branches: z.array(z.string().min(1).max(255)).min(1).max(64),
  default_branch: z.string().min(1).max(255).optional(),
  retain_count: z.number().int().min(1).max(10_000).optional(),
  retain_days: z.number().int().min(1).max(3650).optional(),
  path_groups: z.array(
    z.strictObject({ name: z.string().min(1), paths: z.array(z.string().min(1)).min(1) }),
  )
    .default([]),
  sync_interval_minutes: z.number().int().min(1).max(10_080).default(5),
});
const ConfigFile = z.strictObject({ repositories: z.array(RepositoryEntry).default([]) });

/** Reads `path` if it exists and registers new repositories; returns their names. */
export function applyConfigFile(path: string, store: ControlStore): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch {
    return [];
  }
  let config: z.infer<typeof ConfigFile>;
  try {
    config = ConfigFile.parse(parse(text));
  } catch (error) {
    throw new Error(
      `sourcegraph.toml is invalid: ${
        error instanceof Error ? error.message.split("\n")[0] : "parse error"
      }`,
    );
  }
  const added: string[] = [];
  for (const entry of config.repositories) {
    if (store.repository(entry.name)) continue;
    store.register({
      name: entry.name,
      source: entry.source,
      public_read: entry.public_read,
      policy: {
        branches: entry.branches,
        ...(entry.default_branch ? { default_branch: entry.default_branch } : {}),
        ...(entry.retain_count ? { count: entry.retain_count } : {}),
        ...(entry.retain_days ? { days: entry.retain_days } : {}),
      },
      path_groups: entry.path_groups,
      sync_interval_minutes: entry.sync_interval_minutes,
    });
    added.push(entry.name);
  }
  return added;
}
