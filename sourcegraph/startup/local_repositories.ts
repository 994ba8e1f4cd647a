/**
 * Local repositories named on the command line (or the working directory's
 * checkout): each Git checkout or bare repository is registered as the
 * public `local/<folder>` monitoring its current branch, and the command
 * line says the whole set: a repository an earlier command line registered
 * and this one does not name is unregistered. Registrations of the admin API
 * and `sourcegraph.toml` are never touched (the store marks which ones a
 * command line made). Two folders of one name get `local/<folder>` and
 * `local/<folder>-2` (then -3, …); a name, once given, stays with its source.
 *
 * @module
 */

import { basename, isAbsolute, resolve } from "node:path";
import { GitError, runGit } from "../../shared/git.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { registerOnce } from "./config_file.ts";

/** What is wrong with a path given as a repository. */
export type LocalProblem =
  | "missing"
  | "not_a_folder"
  | "not_a_repository"
  | "no_branch";

/** What is wrong with a path, to follow it in the start's one-line refusal. */
export function describeLocalProblem(problem: LocalProblem): string {
  switch (problem) {
    case "missing":
      return "does not exist";
    case "not_a_folder":
      return "is not a folder";
    case "not_a_repository":
      return "is not a Git repository (a checkout or a bare repository)";
    case "no_branch":
      return "is a Git repository with no branch checked out (a detached HEAD); check out a branch";
  }
}

/** A Git repository on a branch, as a path names it. */
export interface LocalSource {
  /** The checkout's top folder, or the bare repository's folder (absolute). */
  source: string;
  branch: string;
}

/** The outcome of one path of the command line. */
export type LocalRegistration =
  | { kind: "registered"; directory: string; name: string; source: string; branch: string }
  | { kind: "known"; directory: string; name: string }
  | { kind: "problem"; directory: string; problem: LocalProblem };

/** What serving the command line's set did. */
export interface LocalOutcome {
  /** One entry per distinct path, in the order given. */
  paths: LocalRegistration[];
  /** The names unregistered because this command line no longer names them. */
  dropped: string[];
}

/** The Git repository at `directory` and its current branch, or what is wrong. */
export async function inspectLocalRepository(
  directory: string,
): Promise<LocalSource | LocalProblem> {
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
    if (/cannot change to .*No such file or directory/.test(stderr)) return "missing";
    if (/cannot change to .*Not a directory/.test(stderr)) return "not_a_folder";
    return "not_a_repository";
  }
  if (!isAbsolute(source)) return "not_a_repository";
  try {
    branch = await git(["symbolic-ref", "--short", "-q", "HEAD"]);
  } catch {
    branch = "";
  }
  return branch === "" ? "no_branch" : { source, branch };
}

/**
 * Serves exactly `directories` as command-line repositories: each is
 * registered (or kept, when its source already is), and every earlier
 * command-line registration not among them is removed with `remove` (its
 * mirror and index go too). When a path has a problem, only the problems
 * are answered and nothing is registered or removed.
 */
export async function serveLocalRepositories(
  store: ControlStore,
  directories: readonly string[],
  options: { retain: number; syncMinutes: number; remove: (name: string) => Promise<void> },
): Promise<LocalOutcome> {
  const paths: LocalRegistration[] = [];
  const sources: { directory: string; local: LocalSource }[] = [];
  const seen = new Set<string>();
  for (const directory of directories) {
    const local = await inspectLocalRepository(directory);
    if (typeof local === "string") {
      paths.push({ kind: "problem", directory, problem: local });
    } else if (!seen.has(local.source)) {
      seen.add(local.source);
      sources.push({ directory, local });
    }
  }
  // A command line with a wrong path changes nothing: it is refused as a whole.
  if (paths.length > 0) return { paths, dropped: [] };
  const marked = new Set(await store.commandLineRepositories());
  const bySource = (source: string): RepositoryRecord | undefined => {
    const all = store.repositories().filter((repo) => repo.source === source);
    return all.find((repo) => marked.has(repo.id)) ?? all[0];
  };
  const kept = new Set<number>();
  for (const { local } of sources) {
    const existing = bySource(local.source);
    if (existing) kept.add(existing.id);
  }
  // Dropped first: a name they free may be the one a new source of the same folder gets.
  const dropped: string[] = [];
  for (const repo of store.repositories()) {
    if (marked.has(repo.id) && !kept.has(repo.id)) {
      await options.remove(repo.name);
      dropped.push(repo.name);
    }
  }
  for (const { directory, local } of sources) {
    const existing = bySource(local.source);
    if (existing) {
      paths.push({ kind: "known", directory, name: existing.name });
      continue;
    }
    const name = await registerUnderFreeName(store, local, options);
    paths.push({ kind: "registered", directory, name, ...local });
  }
  return { paths, dropped };
}

// Registers `local` as `local/<folder>`, or the first `local/<folder>-N` free; returns the name.
async function registerUnderFreeName(
  store: ControlStore,
  local: LocalSource,
  options: { retain: number; syncMinutes: number },
): Promise<string> {
  const base = `local/${folderName(local.source)}`;
  for (let n = 1;; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (store.repository(name)) continue;
    const registered = await registerOnce(store, {
      name,
      source: local.source,
      publicRead: true,
      policy: { branches: [local.branch], defaultBranch: local.branch, count: options.retain },
      pathGroups: [],
      syncIntervalMinutes: options.syncMinutes,
      commandLine: true,
    });
    if (registered) return name; // else taken meanwhile (another replica): the next suffix
  }
}

// The folder's name as a repository name's last part.
function folderName(source: string): string {
  const folder = basename(source).replace(/\.git$/, "") || "repository";
  return folder.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]/, "r");
}

/**
 * A start's command line served: `repositories` (paths as given, relative
 * to `cwd`) are exactly the command-line registrations; with none given,
 * the checkout at `cwd` is served when nothing else is registered, and
 * replicas of a shared store (`shared`) started with no path leave what
 * the others' command lines registered. Answers the lines to log, and the
 * line a path with a problem stops the start with (`refusal`, then nothing
 * was changed).
 */
export async function serveCommandLine(
  store: ControlStore,
  repositories: readonly string[],
  options: {
    cwd: string;
    shared: boolean;
    retain: number;
    syncMinutes: number;
    remove: (name: string) => Promise<void>;
  },
): Promise<{ lines: string[]; refusal?: string }> {
  const { cwd } = options;
  const named = repositories.length > 0;
  // Replicas of one shared store start alike; one started with no path (in whatever folder) must
  // not replace what the others' command lines registered.
  if (!named && options.shared && store.repositories().length > 0) return { lines: [] };
  const marked = new Set(await store.commandLineRepositories());
  const others = store.repositories().some((repo) => !marked.has(repo.id));
  const directories = named ? repositories.map((path) => resolve(cwd, path)) : others ? [] : [cwd];
  const outcome = await serveLocalRepositories(store, directories, options);
  const lines = outcome.dropped.map((name) =>
    `unregistered ${name}: the command line no longer names it`
  );
  for (const path of outcome.paths) {
    if (path.kind === "problem") {
      const problem = describeLocalProblem(path.problem);
      if (!named) {
        lines.push(`the working directory ${problem}; nothing registered`);
        continue;
      }
      const given = repositories[directories.indexOf(path.directory)] ?? path.directory;
      return { lines, refusal: `${given} ${problem}` };
    }
    if (path.kind === "registered") {
      const what = path.directory === cwd ? "this checkout" : path.source;
      lines.push(`registered ${what} as ${path.name}, monitoring ${path.branch}`);
    }
  }
  return { lines };
}
