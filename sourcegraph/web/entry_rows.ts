/**
 * The rows of a folder listing as one HTML string: folders first, each
 * entry's link (a folder, a file, a symbolic link) or a submodule's name,
 * and, when known, its latest commit's subject (a link to the commit) and
 * date. Built with Hono's escaping, as a file page's code rows are: 1,000
 * rows of JSX took tens of milliseconds on the service's main thread, which
 * this takes a few.
 *
 * @module
 */

import { inertLine } from "./commit_text.ts";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { LastCommit } from "../git/last_commits.ts";
import type { DirectoryListing } from "../service/repository_reads.ts";
import { blobUrl, commitUrl, treeUrl } from "../render/page_urls.ts";
import { escapedText } from "./code/code_rows.ts";

/** A commit's date as the lists show it: its day and time, in the author's offset. */
export function commitDate(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

type Entry = DirectoryListing["entries"][number];

// One entry: a folder or file link, or a submodule's name.
function entryLink(listing: DirectoryListing, entry: Entry): string {
  const name = escapedText(entry.path.slice(entry.path.lastIndexOf("/") + 1));
  const at = { rev: listing.commit };
  if (entry.kind === "directory") {
    return `<a href="${
      escapedText(treeUrl(listing.repo, { ...at, dir: entry.path }))
    }">${name}/</a>`;
  }
  if (entry.kind === "submodule") {
    return `<span>${name} <span class="badge">submodule</span></span>`;
  }
  const badge = entry.kind === "symlink" ? '<span class="badge">symlink</span>' : "";
  return `<a href="${
    escapedText(blobUrl(listing.repo, { ...at, path: entry.path }))
  }">${name}${badge}</a>`;
}

// An entry's latest commit: subject (linked, in full on hover) and date; empty cells when unknown.
function lastCommitCells(repo: string, last: LastCommit | undefined): string {
  if (last === undefined) return '<td class="last-subject"></td><td class="date"></td>';
  const subject = escapedText(inertLine(last.subject));
  return `<td class="last-subject"><a href="${
    escapedText(commitUrl(repo, last.commit))
  }" title="${subject}">${subject}</a></td><td class="date">${
    escapedText(commitDate(last.authorDate))
  }</td>`;
}

/**
 * The rows of `listing`, folders first; with `lastCommits` (by entry name,
 * null: no column) each entry's latest commit.
 */
export function entryRows(
  listing: DirectoryListing,
  lastCommits: Record<string, LastCommit> | null,
): HtmlEscapedString {
  if (listing.entries.length === 0) return raw('<tr><td class="muted">Empty folder</td></tr>');
  const entries = listing.entries.toSorted((a, b) =>
    Number(b.kind === "directory") - Number(a.kind === "directory")
  );
  const rows = entries.map((entry) => {
    const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
    // Own entries only: a file named "constructor" has no commit from Object's prototype.
    const last = lastCommits !== null && Object.hasOwn(lastCommits, name)
      ? lastCommits[name]
      : undefined;
    const cells = lastCommits === null ? "" : lastCommitCells(listing.repo, last);
    return `<tr><td>${entryLink(listing, entry)}</td>${cells}</tr>`;
  });
  return raw(rows.join("")) as HtmlEscapedString;
}
