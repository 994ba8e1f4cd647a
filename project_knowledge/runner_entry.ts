/**
 * The provider's `[[plugins.providers]]` entry, in one place: the launch
 * line the README documents, the fake Runner of the tests spawns and the
 * end-to-end smoke writes into its runner.toml, so the three can never
 * disagree. `deno` is the Deno executable, `checkout` this repository's
 * folder, `root` the project's work tree (the entry's `cwd`) and
 * `cacheBase` the Runner environment's `XDG_CACHE_HOME`.
 *
 * @module
 */

import { join } from "node:path";

/** One `[[plugins.providers]]` entry of runner.toml. */
export interface ProviderEntry {
  id: string;
  name: string;
  command: string;
  args: string[];
  cwd: string;
  timeout_secs: number;
}

/** The provider id the documents and the smoke use. */
export const PROVIDER_ID = "project-knowledge";

/** The launch arguments for a project at `root` with its cache below `cacheBase`. */
export function providerArgs(
  at: { checkout: string; root: string; cacheBase: string },
  options: { allowEnv?: string[]; main?: string; noProgramRead?: boolean } = {},
): string[] {
  const cache = join(at.cacheBase, "webcodex-project-knowledge");
  const program = options.noProgramRead
    ? ""
    : `,${at.checkout}/project_knowledge,${at.checkout}/shared`;
  return [
    "run",
    "--no-config",
    "--no-remote",
    "--no-npm",
    "--no-prompt",
    "--quiet",
    `--allow-read=${at.root},${cache}${program}`,
    `--allow-write=${cache}`,
    "--allow-run=git",
    `--allow-env=${["HOME", "XDG_CACHE_HOME", "PATH", "PWD", ...options.allowEnv ?? []].join(",")}`,
    "--allow-sys=uid",
    options.main ?? join(at.checkout, "project_knowledge", "main.ts"),
  ];
}

/** The whole entry, as runner.toml holds it. */
export function providerEntry(
  at: { deno: string; checkout: string; root: string; cacheBase: string },
): ProviderEntry {
  return {
    id: PROVIDER_ID,
    name: "Project Knowledge",
    command: at.deno,
    args: providerArgs(at),
    cwd: at.root,
    timeout_secs: 30,
  };
}
