/**
 * The URL scheme of the web pages, in one place (pages link with these,
 * answers such as `symbols` link to them, and so do plugin authors; it sits
 * below the pages, which route by it):
 *
 * - `/sourcegraph/` home; `/sourcegraph/-/connect`, `/sourcegraph/-/sign-in`;
 *   `/sourcegraph/plugins/llms.txt`, the plugin contract;
 * - `/sourcegraph/<repo>`: the repository's files at its default branch head;
 * - `/sourcegraph/<repo>/-/tree/<rev>/<dir>`: files at a version;
 * - `/sourcegraph/<repo>/-/blob/<rev>/<path>#L2-L4`: one file, lines 2 to 4
 *   highlighted (also `#L2`); `<repo>/blob/<sha>/<path>` (the shape the
 *   example plugins build) redirects there;
 * - `/sourcegraph/<repo>/-/blame/<rev>/<path>?start=…&end=…#L2-L4`: who
 *   last changed each line of a file;
 * - `/sourcegraph/<repo>/-/definition/<rev>/<path>?line=L&column=C`: where the
 *   name at that position is declared (a redirect to its line when one
 *   place is found); the file page's names link to it (`?line=L&column=C`
 *   of the file page sends on to it);
 * - `/sourcegraph/<repo>/-/references/<rev>/<path>?line=L&column=C&after=…`:
 *   where that name occurs, a page at a time;
 * - `/sourcegraph/<repo>/-/commit/<sha>`: one commit, its message and diff;
 * - `/sourcegraph/<repo>/-/commits/<rev>/<path>`: the commits of a file or
 *   a folder (no path: of the revision), newest first;
 * - `/sourcegraph/<repo>/-/versions`, `/-/search?q=…&rev=…`,
 *   `/-/symbols?q=…&match=…&rev=…`, `/-/plugins?rev=…`: the other tabs.
 *
 * `<rev>` is a full commit SHA, or a monitored branch, which redirects to
 * the SHA it resolves to, so every page a link lands on is pinned. Path
 * segments are percent-encoded one by one.
 *
 * @module
 */

/** Whether the file at `path` is Markdown (rendered on its page and as a folder's README). */
export function isMarkdownPath(path: string): boolean {
  return /\.(?:md|markdown|mdown|mkd)$/i.test(path);
}

/** Where the pages live. */
export const PAGES_ROOT = "/sourcegraph";

// As `isFullCommitId` of shared/git.ts, written out: the Markdown worker loads this module
// with read access to it alone.
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether `text` is a full commit id. */
export function isFullSha(text: string): boolean {
  return SHA.test(text);
}

/** Percent-encodes each segment of a slash-separated path. */
export function encodePath(path: string): string {
  // Most paths hold nothing to encode (a search page links a file per row).
  if (UNRESERVED.test(path)) return path;
  return path.split("/").map(encodeURIComponent).join("/");
}

// Paths that `encodeURIComponent` leaves as they are, segment by segment.
const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()/]*$/;

/** The home page. */
export function homeUrl(): string {
  return `${PAGES_ROOT}/`;
}

/** A page of the service itself (`connect`, `sign-in`, `sign-out`, `search`, `static/…`). */
export function siteUrl(page: string): string {
  return `${PAGES_ROOT}/-/${page}`;
}

/** The OAuth authorization endpoint: the consent page. */
export function authorizeUrl(): string {
  return siteUrl("oauth/authorize");
}

/** The plugin author's contract. */
export function pluginContractUrl(): string {
  return `${PAGES_ROOT}/plugins/llms.txt`;
}

/** The MCP endpoint. */
export function mcpUrl(): string {
  return `${PAGES_ROOT}/mcp`;
}

/** A repository's page (its files at the default branch head). */
export function repositoryUrl(repo: string): string {
  return `${PAGES_ROOT}/${encodePath(repo)}`;
}

/** A directory at a version (`dir` "" for the top). */
export function treeUrl(repo: string, at: { rev: string; dir?: string }): string {
  const dir = at.dir ? `/${encodePath(at.dir)}` : "";
  return `${repositoryUrl(repo)}/-/tree/${encodePath(at.rev)}${dir}`;
}

/**
 * A file at a version, optionally with a line or a range highlighted (a
 * Markdown file's lines are in its source view, `?plain=1`).
 */
export function blobUrl(
  repo: string,
  at: { rev: string; path: string; start?: number; end?: number },
): string {
  const fragment = at.start === undefined
    ? ""
    : at.end !== undefined && at.end > at.start
    ? `#L${at.start}-L${at.end}`
    : `#L${at.start}`;
  const source = at.start !== undefined && isMarkdownPath(at.path) ? "?plain=1" : "";
  return `${repositoryUrl(repo)}/-/blob/${encodePath(at.rev)}/${
    encodePath(at.path)
  }${source}${fragment}`;
}

/** A file's bytes as committed, at a revision (the raw route). */
export function rawUrl(repo: string, at: { rev: string; path: string }): string {
  return `${repositoryUrl(repo)}/-/raw/${encodePath(at.rev)}/${encodePath(at.path)}`;
}

/**
 * Who last changed each line of a file at a version: lines `start..end`
 * when given (a page of them otherwise), `#L…` marking a line or a range.
 */
export function blameUrl(
  repo: string,
  at: { rev: string; path: string; start?: number; end?: number; mark?: string },
): string {
  const params = new URLSearchParams();
  if (at.start !== undefined) params.set("start", String(at.start));
  if (at.end !== undefined) params.set("end", String(at.end));
  const search = params.size > 0 ? `?${params}` : "";
  return `${repositoryUrl(repo)}/-/blame/${encodePath(at.rev)}/${encodePath(at.path)}${search}${
    at.mark ?? ""
  }`;
}

/** A position in a file at a version (1-based line, and column in characters). */
export interface PagePosition {
  rev: string;
  path: string;
  line: number;
  column: number;
}

/** The definition or references view of a file at a version, without its position. */
export function navigationUrl(
  repo: string,
  view: "definition" | "references",
  at: { rev: string; path: string },
): string {
  return `${repositoryUrl(repo)}/-/${view}/${encodePath(at.rev)}/${encodePath(at.path)}`;
}

/** Where the name at a position is declared (a redirect to it, or a list). */
export function definitionUrl(repo: string, at: PagePosition): string {
  return `${navigationUrl(repo, "definition", at)}?line=${at.line}&column=${at.column}`;
}

/** Where the name at a position occurs, from the page after `after` (a references cursor). */
export function referencesUrl(repo: string, at: PagePosition & { after?: string }): string {
  const after = at.after ? `&after=${encodeURIComponent(at.after)}` : "";
  return `${navigationUrl(repo, "references", at)}?line=${at.line}&column=${at.column}${after}`;
}

/** One commit: its message, parents and diff. */
export function commitUrl(repo: string, sha: string): string {
  return `${repositoryUrl(repo)}/-/commit/${encodePath(sha)}`;
}

/** The commits of `path` (a file or a folder; "" for the whole revision) from `rev`, newest first. */
export function commitsUrl(
  repo: string,
  at: { rev: string; path?: string; after?: string },
): string {
  const path = at.path ? `/${encodePath(at.path)}` : "";
  const after = at.after ? `?after=${encodeURIComponent(at.after)}` : "";
  return `${repositoryUrl(repo)}/-/commits/${encodePath(at.rev)}${path}${after}`;
}

/** A repository tab with query parameters. */
export function tabUrl(
  repo: string,
  tab: "versions" | "search" | "symbols" | "plugins",
  query: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.size > 0 ? `?${params}` : "";
  return `${repositoryUrl(repo)}/-/${tab}${search}`;
}

/** What a repository page path names. */
export type RepositoryRoute =
  | { page: "repository"; repo: string }
  | { page: "tree" | "blob"; repo: string; rest: string[] }
  | { page: "raw" | "blame" | "commits"; repo: string; rest: string[] }
  | { page: "definition" | "references"; repo: string; rest: string[] }
  | { page: "commit"; repo: string; sha: string }
  | { page: "versions" | "search" | "symbols" | "plugins"; repo: string }
  | { page: "plugin_blob"; repo: string; sha: string; path: string };

/**
 * Reads a path below `/sourcegraph/` (decoded segments, without the root);
 * null when it names no repository page.
 */
export function parseRepositoryPath(segments: readonly string[]): RepositoryRoute | null {
  const dash = segments.indexOf("-");
  if (dash === -1) {
    // `<repo>/blob/<sha>/<path>`, as plugins link, or a bare repository name.
    const blob = segments.findIndex((segment, i) =>
      segment === "blob" && i >= 2 && isFullSha(segments[i + 1] ?? "") && i + 2 < segments.length
    );
    if (blob !== -1) {
      return {
        page: "plugin_blob",
        repo: segments.slice(0, blob).join("/"),
        sha: segments[blob + 1],
        path: segments.slice(blob + 2).join("/"),
      };
    }
    return segments.length >= 2 ? { page: "repository", repo: segments.join("/") } : null;
  }
  if (dash < 2) return null;
  const repo = segments.slice(0, dash).join("/");
  const [tab, ...rest] = segments.slice(dash + 1);
  switch (tab) {
    case "tree":
    case "blob":
      return rest.length === 0 ? null : { page: tab, repo, rest };
    case "raw":
    case "blame":
    case "commits":
      return rest.length === 0 ? null : { page: tab, repo, rest };
    case "definition":
    case "references":
      return rest.length === 0 ? null : { page: tab, repo, rest };
    case "commit":
      return rest.length === 1 ? { page: "commit", repo, sha: rest[0] } : null;
    case "versions":
    case "search":
    case "symbols":
    case "plugins":
      return rest.length === 0 ? { page: tab, repo } : null;
    default:
      return null;
  }
}

/**
 * The segments when each is a plain name: not empty, not a dot segment, no
 * slash or control character; else null. A backslash is an ordinary
 * character of a Git path (`a\b.txt` is one file), so it stays.
 */
export function plainSegments(segments: readonly string[]): string[] | null {
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === ".." || /[\/\p{Cc}]/u.test(segment)) {
      return null;
    }
  }
  return [...segments];
}

/**
 * The decoded segments of a request path below the root; null when one is
 * not a plain name (an encoded slash, a dot segment, a control character).
 */
export function pathSegments(path: string): string[] | null {
  const segments: string[] = [];
  for (const raw of path.slice(PAGES_ROOT.length + 1).split("/")) {
    try {
      segments.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return plainSegments(segments);
}
