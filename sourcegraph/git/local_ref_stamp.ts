/**
 * A cheap fingerprint of where a local repository keeps some branches, so a
 * periodic check can tell "nothing can have moved" without starting Git.
 * A service over local folders checks every 2 s by default; an unchanged
 * source then costs a few `stat` and 41-byte reads instead of one Git
 * process per repository and check.
 *
 * The stamp holds the content of each branch's loose ref file (Git rewrites
 * it on every update of the branch) and the identity (inode, size, change
 * times) of `packed-refs` and of the reftable list, so any write of a branch
 * changes it. Layouts it does not understand (a branch that is a symbolic
 * ref, a source that is not the root of a work tree or a bare repository, a
 * folder outside the process's read permission) give no stamp: the caller
 * then asks Git.
 *
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";

/**
 * The stamp of `branches` in the repository at `source` (a work tree root or
 * a bare repository), or null when it cannot be told without Git.
 */
export async function localRefStamp(
  source: string,
  branches: readonly string[],
): Promise<string | null> {
  if (branches.some((branch) => branch.split("/").includes(".."))) return null;
  try {
    if (!readable(source)) return null;
    const commonDir = await gitCommonDir(source);
    if (commonDir === null || !readable(commonDir)) return null;
    const parts = [
      branches.join("\0"),
      // Which `.git` (a replaced repository), not its times: Git writes
      // there for other reasons (an editor refreshing the index).
      String((await Deno.lstat(join(source, ".git")).catch(() => null))?.ino),
      await identity(join(commonDir, "packed-refs")),
      await identity(join(commonDir, "reftable", "tables.list")),
      await content(join(commonDir, "reftable", "tables.list")),
    ];
    for (const branch of branches) {
      const loose = await content(join(commonDir, "refs", "heads", branch));
      if (loose.startsWith("ref:")) return null;
      parts.push(loose);
    }
    return parts.join("\n");
  } catch {
    return null;
  }
}

// The folder holding the refs shared by all work trees: `.git` of a work
// tree, what a `.git` file points to (through its `commondir` for a linked
// work tree), or the source itself when it is a bare repository.
async function gitCommonDir(source: string): Promise<string | null> {
  const dotGit = join(source, ".git");
  const info = await Deno.lstat(dotGit).catch(() => null);
  let gitDir: string;
  if (info?.isDirectory) gitDir = dotGit;
  else if (info?.isFile) {
    const pointer = /^gitdir: (.+)$/m.exec(await Deno.readTextFile(dotGit));
    if (!pointer) return null;
    gitDir = resolve(source, pointer[1].trim());
  } else if (info === null && await isFile(join(source, "HEAD"))) gitDir = source;
  else return null;
  const common = (await content(join(gitDir, "commondir"))).trim();
  if (common === "") return gitDir;
  return isAbsolute(common) ? common : resolve(gitDir, common);
}

// Asked first so a service run without `--no-prompt` never prompts: a
// folder outside its read permission is left to Git.
function readable(path: string): boolean {
  return Deno.permissions.querySync({ name: "read", path }).state === "granted";
}

async function isFile(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null))?.isFile ?? false;
}

// "-" for a missing file; other errors (permission) propagate: no stamp.
async function identity(path: string): Promise<string> {
  try {
    const info = await Deno.stat(path);
    return `${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "-";
    throw error;
  }
}

async function content(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return "";
    }
    throw error;
  }
}
