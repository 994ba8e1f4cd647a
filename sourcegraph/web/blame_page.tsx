/**
 * The blame page of a file at a full SHA: each line numbered (an anchor,
 * `#L2-L4` marked as on the file page), its code highlighted, and at the
 * start of each run of lines from one commit that commit's short SHA (a
 * link to its page), author, date and subject. One page holds up to 500
 * lines (`?start=…&end=…`, as the `blame` tool blames them); every link is
 * pinned to the SHA. Commit subjects and author names are repository data,
 * escaped like every other text.
 *
 * @module
 */

import { inertLine } from "./commit_text.ts";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { escapedText, highlightedCell } from "./code/code_rows.ts";
import type { BlameCommit } from "../git/file_blame.ts";
import type { FileBlame } from "../read/file_blame.ts";
import type { CodeLine } from "./code/highlighted_lines.ts";
import {
  Breadcrumbs,
  formatCommitTime,
  type Html,
  Layout,
  ShortSha,
  Tabs,
  type Viewer,
} from "./layout.tsx";
import { type PageProblem, Problem } from "./repository_pages.tsx";
import { blameUrl, blobUrl, commitsUrl, commitUrl } from "../render/page_urls.ts";

/** What the blame page shows. */
export interface BlameView {
  repo: string;
  commit: string;
  path: string;
  /** The blamed lines, or null with a problem. */
  blame: FileBlame | null;
  /** The lines highlighted (null: plain text). */
  highlighted: CodeLine[] | null;
  /** Why there are no lines (a binary file, a range past the end…). */
  problem: PageProblem | null;
}

// The commit cell at the start of a run: short SHA (a link), author, date, subject.
function commitCell(repo: string, sha: string, commit: BlameCommit | undefined): string {
  const who = inertLine(commit?.authorName ?? "");
  const when = formatCommitTime(commit?.authorTime ?? null).slice(0, 10);
  const subject = inertLine(commit?.subject ?? "");
  return `<div title="${escapedText(`${who}: ${subject}`)}"><a href="${
    escapedText(commitUrl(repo, sha))
  }"><code>${sha.slice(0, 7)}</code></a> ${escapedText(when)} <span class="blame-author">${
    escapedText(who)
  }</span> <span class="blame-subject">${escapedText(subject)}</span></div>`;
}

/**
 * The rows of the blame table as one HTML string (built with Hono's
 * escaping, as the file page's rows are: 500 rows of spans render in a few
 * milliseconds).
 */
export function blameRows(
  repo: string,
  blame: Pick<FileBlame, "lines" | "commits">,
  highlighted: readonly CodeLine[] | null,
): HtmlEscapedString {
  const rows: string[] = [];
  let previous: string | null = null;
  for (const [i, line] of blame.lines.entries()) {
    const starts = line.commit !== previous;
    previous = line.commit;
    const info = starts ? commitCell(repo, line.commit, blame.commits[line.commit]) : "";
    rows.push(
      `<tr id="L${line.line}"${starts ? ' class="run"' : ""}><td class="blame">${info}</td>` +
        `<td class="num"><a href="#L${line.line}">${line.line}</a></td><td>${
          highlightedCell(line.text, highlighted?.[i])
        }</td></tr>`,
    );
  }
  return raw(rows.join("")) as HtmlEscapedString;
}

/** The blame page. */
export function BlamePage(props: { viewer: Viewer; view: BlameView }): Html {
  const { view } = props;
  const at = { rev: view.commit, path: view.path };
  const blame = view.blame;
  return (
    <Layout title={`Blame ${view.path} · ${view.repo}`} viewer={props.viewer}>
      <h1>{view.repo}</h1>
      <Tabs repo={view.repo} current="files" rev={view.commit} />
      <p class="muted">
        Blame at <ShortSha sha={view.commit} />
      </p>
      <div class="file-header">
        <Breadcrumbs repo={view.repo} commit={view.commit} path={view.path} />
        <p class="file-actions">
          <a href={blobUrl(view.repo, at)}>File</a>
          <a href={commitsUrl(view.repo, { rev: view.commit, path: view.path })}>History</a>
          <a href={blameUrl(view.repo, at)}>Permalink</a>
        </p>
      </div>
      {view.problem === null ? null : <Problem problem={view.problem} />}
      {blame === null ? null : <BlameBody view={view} blame={blame} />}
    </Layout>
  );
}

function BlameBody(props: { view: BlameView; blame: FileBlame }): Html {
  const { view, blame } = props;
  const ignored = blame.ignoreRevs;
  return (
    <>
      {ignored === null || ignored.revisions === null || ignored.revisions === 0
        ? null
        : (
          <p class="muted">
            {ignored.revisions} revision(s) of <code>{ignored.path}</code> ignored
          </p>
        )}
      {blame.lines.length === 0 ? <p class="muted">Empty file</p> : (
        <table class="code blame-table">
          <tbody>{blameRows(view.repo, blame, view.highlighted)}</tbody>
        </table>
      )}
      {blame.nextStartLine === null ? null : (
        <p>
          <a
            href={blameUrl(view.repo, {
              rev: view.commit,
              path: view.path,
              start: blame.nextStartLine,
            })}
          >
            Lines from {blame.nextStartLine}
          </a>
        </p>
      )}
    </>
  );
}
