/**
 * Parses `git ls-tree -z` output (with or without `-r`): one
 * `<mode> SP <type> SP <oid> TAB <path> NUL` record per entry. Paths are
 * taken verbatim (NUL-separated output needs no unquoting).
 *
 * @module
 */

/** One listed entry. */
export interface TreeListingEntry {
  /** The octal mode, e.g. `100644`, `120000` (symlink), `160000` (submodule). */
  mode: string;
  /** `blob`, `tree` or `commit`. */
  type: string;
  /** The object id. */
  oid: string;
  /** The path (relative to the listed tree's root with `--full-tree`). */
  path: string;
}

/**
 * The entries of `ls-tree -z` output, in output order.
 *
 * @example
 * ```ts ignore
 * const { stdout } = await runGit(["ls-tree", "-r", "-z", "--full-tree", "HEAD"], { cwd: "." });
 * const files = parseTreeListing(stdout).filter(isRegularFile).map((entry) => entry.path);
 * ```
 */
export function parseTreeListing(stdout: Uint8Array): TreeListingEntry[] {
  const entries: TreeListingEntry[] = [];
  for (const record of new TextDecoder().decode(stdout).split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1) continue;
    const [mode, type, oid] = record.slice(0, tab).split(" ");
    entries.push({ mode, type, oid, path: record.slice(tab + 1) });
  }
  return entries;
}

/**
 * Whether an entry is a regular file (not a symlink, submodule or folder).
 *
 * @example
 * ```ts ignore
 * console.assert(isRegularFile({ mode: "100644", type: "blob" }));
 * console.assert(!isRegularFile({ mode: "120000", type: "blob" })); // a symlink
 * ```
 */
export function isRegularFile(entry: { mode: string; type: string }): boolean {
  return entry.type === "blob" && (entry.mode === "100644" || entry.mode === "100755");
}
