/**
 * The commits of a file (followed across renames), a folder or a whole
 * version, newest first, as the `history` tool lists them (the same path
 * groups rules), 50 a page with a cursor to the older ones. Each commit
 * links to its page; subjects and names are repository data, escaped like
 * every other text.
 *
 * @module
 */

import { inertLine } from "./commit_text.ts";
import type { FileHistory } from "../read/file_history.ts";
import { Breadcrumbs, type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import { commitsUrl, commitUrl } from "../render/page_urls.ts";
import { encodeHistoryCursor } from "../render/search_cursor.ts";
import { commitDate } from "./entry_rows.ts";

/** Commits on one page of the list. */
export const COMMITS_PER_PAGE = 50;

/** The rows of commits: short SHA and subject linked to the commit, author, date. */
export function CommitRows(
  props: {
    repo: string;
    commits: readonly { commit: string; subject: string; authorName: string; authorDate: string }[];
    /** The path each commit had, when the list follows a file that moved. */
    paths?: readonly (string | null)[];
    path?: string | null;
    /** Commits marked as retained versions. */
    marked?: ReadonlySet<string>;
  },
): Html {
  return (
    <table class="commits">
      <thead>
        <tr>
          <th>Commit</th>
          <th>Subject</th>
          <th>Author</th>
          <th>Date</th>
        </tr>
      </thead>
      <tbody>
        {props.commits.map((entry, i) => {
          const moved = props.paths?.[i];
          return (
            <tr>
              <td>
                <a href={commitUrl(props.repo, entry.commit)}>
                  <ShortSha sha={entry.commit} />
                </a>
              </td>
              <td class="subject">
                <a href={commitUrl(props.repo, entry.commit)}>{inertLine(entry.subject)}</a>
                {moved && moved !== props.path ? <span class="muted">{moved}</span> : null}
                {props.marked?.has(entry.commit)
                  ? <span class="badge">retained version</span>
                  : null}
              </td>
              <td class="author">
                <span title={inertLine(entry.authorName)}>{inertLine(entry.authorName)}</span>
              </td>
              <td class="date">{commitDate(entry.authorDate)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The commits page. */
export function CommitsPage(props: { viewer: Viewer; repo: string; history: FileHistory }): Html {
  const { repo, history } = props;
  const path = history.path ?? "";
  const next = history.hasMore
    ? encodeHistoryCursor({
      repo,
      path: history.path,
      lines: null,
      commit: history.commit,
      skip: history.skip + history.commits.length,
    })
    : null;
  return (
    <Layout title={`History ${path || repo} · ${repo}`} viewer={props.viewer}>
      <h1>{repo}</h1>
      <Tabs repo={repo} current="versions" rev={history.commit} />
      <p class="muted history-of">
        Commits of {path === "" ? "the version" : <code>{path}</code>} from{" "}
        <ShortSha sha={history.commit} />, newest first
      </p>
      <Breadcrumbs repo={repo} commit={history.commit} path={path} />
      {history.scope === null
        ? null
        : <p class="muted">Within the path groups: {history.scope.join(", ")}</p>}
      {history.commits.length === 0 ? <p class="muted">No commits</p> : (
        <CommitRows
          repo={repo}
          commits={history.commits}
          paths={history.commits.map((entry) => entry.path)}
          path={history.path}
        />
      )}
      {next === null ? null : (
        <p>
          <a href={commitsUrl(repo, { rev: history.commit, path, after: next })}>Older commits</a>
        </p>
      )}
    </Layout>
  );
}
