/**
 * Local repositories named on the command line (or the working directory's
 * checkout): each Git checkout or bare repository is registered as the
 * public `local/<folder>` monitoring its current branch.
 *
 * @module
 */

import { basename, isAbsolute, resolve } from "node:path";
import { GitError, runGit } from "../../shared/git.ts";
import type { ControlStore } from "../store/control_store.ts";
import { registerOnce } from "./config_file.ts";

/** The outcome of registering one local path. */
export type LocalRegistration =
  | { kind: "registered"; name: string; source: string; branch: string }
  | { kind: "known"; name: string }
  | { kind: "missing" }
  | { kind: "not_a_folder" }
  | { kind: "not_a_repository" }
  | { kind: "no_branch" }
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
  // Git is asked from "/" with -C: it says whether the folder exists even
  // where this process may not read it (Git runs as a child of its own).
  const git = (args: string[]) =>
    runGit(["-C", directory, ...args], { cwd: "/" }).then((r) =>
      new TextDecoder().decode(r.stdout).trim()
    );
  try {
    const bare = await git(["rev-parse", "--is-bare-repository"]);
    source = bare === "true"
      ? resolve(directory, await git(["rev-parse", "--git-dir"]))
      : await git(["rev-parse", "--show-toplevel"]);
  } catch (error) {
    const stderr = error instanceof GitError ? error.stderr : "";
    if (/cannot change to .*No such file or directory/.test(stderr)) return { kind: "missing" };
    if (/cannot change to .*Not a directory/.test(stderr)) return { kind: "not_a_folder" };
    return { kind: "not_a_repository" };
  }
  if (!isAbsolute(source)) return { kind: "not_a_repository" };
  try {
    branch = await git(["symbolic-ref", "--short", "-q", "HEAD"]);
  } catch {
    branch = "";
  }
  if (branch === "") return { kind: "no_branch" };
  const folder = basename(source).replace(/\.git$/, "") || "repository";
  const name = `local/${folder.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]/, "r")}`;
  const existing = store.repository(name);
  if (existing) {
    return existing.source === source ? { kind: "known", name } : { kind: "name_taken", name };
  }
  const registered = await registerOnce(store, {
    name,
    source,
    publicRead: true,
    policy: { branches: [branch], defaultBranch: branch, count: options.retain },
    pathGroups: [],
    syncIntervalMinutes: options.syncMinutes,
  });
  if (!registered) {
    return store.repository(name)?.source === source
      ? { kind: "known", name }
      : { kind: "name_taken", name };
  }
  return { kind: "registered", name, source, branch };
}
