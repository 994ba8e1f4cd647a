/**
 * The project root: the provider's cwd, which must be exactly an ordinary Git
 * working-tree root (linked worktrees included). Its filesystem identity is
 * captured at start and re-verified on every call, so a folder replaced at
 * the same path is refused.
 *
 * @module
 */

import { type FileIdentity, identityOf, sameIdentity } from "../../shared/safe_fs.ts";
import { GitError, runGit } from "../../shared/git.ts";
import { KnowledgeError } from "../errors.ts";

/** A verified project root. */
export interface ProjectRoot {
  /** Absolute path of the working-tree root. */
  path: string;
  /** Identity captured at start. */
  identity: FileIdentity;
}

/** Where the root candidate came from. */
export interface RootSources {
  /** The process cwd (the kernel's resolved path). */
  cwd: string;
  /** The inherited PWD, when readable: the path the launcher asked for. */
  pwd?: string;
  /** The user's home folder, when known. */
  home?: string;
}

/**
 * Validates the cwd as the project root. Refuses `/`, the home folder, a
 * symlink path (the launcher's PWD names the same folder by another path),
 * a subdirectory of a work tree, a bare repository and anything outside Git.
 */
export async function openProjectRoot(sources: RootSources): Promise<ProjectRoot> {
  const path = sources.cwd;
  const identity = statIdentity(path);
  if (path === "/") {
    throw new KnowledgeError("root_refused", "the filesystem root cannot be the project root");
  }
  if (
    sources.home &&
    (sources.home.replace(/\/+$/, "") === path || sameIdentityIfPresent(sources.home, identity))
  ) {
    throw new KnowledgeError("root_refused", "the home folder cannot be the project root");
  }
  if (sources.pwd && sources.pwd !== path && sameIdentityIfPresent(sources.pwd, identity)) {
    throw new KnowledgeError("root_refused", "the project root must not be a symlink path");
  }
  let topLevel: string;
  try {
    const result = await runGit(["rev-parse", "--is-bare-repository", "--show-toplevel"], {
      cwd: path,
      timeoutMs: 10_000,
      maxStdoutBytes: 64 * 1024,
    });
    const [bare, top] = new TextDecoder().decode(result.stdout).split("\n");
    if (bare !== "false" || !top) throw new Error("not a work tree");
    topLevel = top;
  } catch (error) {
    if (error instanceof GitError && error.code === "GIT_UNAVAILABLE") {
      throw new KnowledgeError("root_refused", "git could not be started");
    }
    throw new KnowledgeError("root_refused", "the cwd is not a git working tree");
  }
  if (topLevel !== path) {
    throw new KnowledgeError("root_refused", "the cwd is not the git working-tree root");
  }
  return { path, identity };
}

/** Throws root_changed unless the root folder still has its captured identity. */
export function verifyProjectRoot(root: ProjectRoot): void {
  let current: FileIdentity;
  try {
    current = identityOf(root.path);
  } catch {
    throw new KnowledgeError("root_changed", "the project root was removed or replaced");
  }
  if (!sameIdentity(current, root.identity)) {
    throw new KnowledgeError("root_changed", "the project root was removed or replaced");
  }
}

function statIdentity(path: string): FileIdentity {
  try {
    const stat = Deno.lstatSync(path);
    if (!stat.isDirectory) throw new Error("not a folder");
    return { dev: stat.dev, ino: stat.ino ?? 0 };
  } catch {
    throw new KnowledgeError(
      "root_refused",
      "the project root cannot be inspected (a symlink path, or not in --allow-read)",
    );
  }
}

// Outside the read permission a folder cannot be stat'ed; then only the exact
// path can be compared.
function sameIdentityIfPresent(path: string, identity: FileIdentity): boolean {
  try {
    const stat = Deno.statSync(path);
    return stat.dev === identity.dev && stat.ino === identity.ino;
  } catch {
    return false;
  }
}
