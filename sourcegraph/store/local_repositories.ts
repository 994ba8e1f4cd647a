/**
 * Local repositories named on the command line (or the working directory's
 * checkout): each Git checkout or bare repository is registered as the
 * public `local/<folder>` monitoring its current branch.
 *
 * @module
 */

import { basename, isAbsolute, resolve } from "node:path";
import { runGit } from "../../shared/git.ts";
import type { ControlStore } from "./control_store.ts";

/** The outcome of registering one local path. */
export type LocalRegistration =
  | { kind: "registered"; name: string; source: string; branch: string }
  | { kind: "known"; name: string }
  | { kind: "not_a_repository" }
  | { kind: "name_taken"; name: string };

/**
 * Registers `directory` as `local/<folder>` (kept as is when already
 * registered for the same source).
 */
export async function registerLocalRepository(
  store: ControlStore,
  directory: string,
  options: { retain: number; syncMinutes: number },
): Promise<LocalRegistration> {
  let source: string;
  let branch: string;
  try {
    const decode = (r: { stdout: Uint8Array }) => new TextDecoder().decode(r.stdout).trim();
    const bare = decode(await runGit(["rev-parse", "--is-bare-repository"], { cwd: directory }));
    source = bare === "true"
      ? resolve(directory, decode(await runGit(["rev-parse", "--git-dir"], { cwd: directory })))
      : decode(await runGit(["rev-parse", "--show-toplevel"], { cwd: directory }));
    branch = decode(await runGit(["symbolic-ref", "--short", "-q", "HEAD"], { cwd: directory }));
  } catch {
    return { kind: "not_a_repository" };
  }
  if (!isAbsolute(source) || branch === "") return { kind: "not_a_repository" };
  const folder = basename(source).replace(/\.git$/, "") || "repository";
  const name = `local/${folder.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]/, "r")}`;
  const existing = store.repository(name);
  if (existing) {
    return existing.source === source ? { kind: "known", name } : { kind: "name_taken", name };
  }
  store.register({
    name,
    source,
    publicRead: true,
    policy: { branches: [branch], defaultBranch: branch, count: options.retain },
    pathGroups: [],
    syncIntervalMinutes: options.syncMinutes,
  });
  return { kind: "registered", name, source, branch };
}
