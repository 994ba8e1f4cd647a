/**
 * The commit page: the whole message, author, dates, parents (links to
 * their pages), the changed files, and each file's diff against the first
 * parent, its code highlighted, within the page's budgets (a file over its
 * own, or past the page's, says so in place of its diff). Renamed and copied
 * files show as "old -> new"; each file links to its page at the parent
 * (under its old path) and at the commit, by full SHAs, which the file pages
 * serve since a retained version holds both; an added file has the commit's
 * side only, a deleted one the parent's. Messages, names and paths are
 * repository data, escaped like every other text.
 *
 * @module
 */

import { inertBody, inertLine } from "./commit_text.ts";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { escapedText, highlightedCell } from "./code/code_rows.ts";
import { COMMIT_PAGE_BUDGETS } from "../git/commit_diff.ts";
import type { CommitDetail, CommitFile } from "../service/commit_detail.ts";
import type { CodeLine } from "./code/highlighted_lines.ts";
import { type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import { blobUrl, commitsUrl, commitUrl, treeUrl } from "../render/page_urls.ts";

/** The code of a patch's lines (those starting with " ", "+" or "-"), in order: what is highlighted. */
export function patchCode(lines: readonly string[]): string[] {
  return lines.filter((line) => /^[ +-]/.test(line)).map((line) => line.slice(1));
}

const KIND: Record<string, string> = { " ": "ctx", "+": "add", "-": "del" };

/**
 * A patch's rows as one HTML string: a hunk's header, then each line with
 * its old and new numbers and its sign; `highlighted` holds the code lines'
 * segments in the order of `patchCode`.
 */
export function diffRows(
  lines: readonly string[],
  highlighted: readonly (CodeLine | null)[] | null,
): HtmlEscapedString {
  const rows: string[] = [];
  let old = 0;
  let now = 0;
  let code = 0;
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      old = Number(hunk[1]);
      now = Number(hunk[2]);
      rows.push(
        `<tr class="hunk"><td class="num"></td><td class="num"></td><td>${
          escapedText(line)
        }</td></tr>`,
      );
      continue;
    }
    const kind = KIND[line[0]];
    if (kind === undefined) {
      rows.push(
        `<tr class="note"><td class="num"></td><td class="num"></td><td>${
          escapedText(line)
        }</td></tr>`,
      );
      continue;
    }
    const left = kind === "add" ? "" : String(old++);
    const right = kind === "del" ? "" : String(now++);
    rows.push(
      `<tr class="${kind}"><td class="num">${left}</td><td class="num">${right}</td><td>` +
        `<span class="sign">${line[0]}</span>${
          highlightedCell(line.slice(1), highlighted?.[code++])
        }</td></tr>`,
    );
  }
  return raw(rows.join("")) as HtmlEscapedString;
}

const STATUS_LABEL: Record<CommitFile["status"], string> = {
  added: "added",
  deleted: "deleted",
  modified: "modified",
  type_changed: "type changed",
  renamed: "renamed",
  copied: "copied",
};

// A file's name as the page says it: "old -> new" for a rename or a copy.
function shownPath(file: CommitFile): string {
  return file.from === null ? file.path : `${file.from} -> ${file.path}`;
}

function kib(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString("en")} KiB`;
}

// Why a file's diff is not shown.
function omission(file: CommitFile, stopped: CommitDetail["stopped"]): string | null {
  const patch = file.patch;
  const { fileBytes, fileLines, pageBytes } = COMMIT_PAGE_BUDGETS;
  if (patch === null) {
    return stopped === "deadline"
      ? "Diff not shown: the page's time ran out before this file."
      : `Diff not shown: the page's ${kib(pageBytes)} of diffs were spent before this file.`;
  }
  if (patch.binary) return "Binary file: its diff is not shown.";
  if (patch.omitted === "file_budget") {
    return `Diff too large to show (over ${kib(fileBytes)} or ${
      fileLines.toLocaleString("en")
    } lines).`;
  }
  if (patch.omitted === "page_budget") {
    return `Diff too large to show: the page's ${kib(pageBytes)} of diffs were spent in it.`;
  }
  if (patch.omitted === "deadline") return "Diff not shown: the page's time ran out in it.";
  if (patch.lines !== null && patch.lines.length === 0) {
    if (file.status === "renamed") return "Renamed without a change to the content.";
    if (file.status === "copied") return "Copied without a change to the content.";
    return "No change to the content.";
  }
  return null;
}

// Links to a file at both sides: its page at the parent (its old path for a
// rename or a copy) unless it was added, and at the commit unless deleted.
function FileLinks(props: { detail: CommitDetail; file: CommitFile }): Html {
  const { detail, file } = props;
  const { repo, header, base } = detail;
  const links: Html[] = [];
  if (file.status !== "added" && base !== null) {
    links.push(<a href={blobUrl(repo, { rev: base, path: file.from ?? file.path })}>Before</a>);
  }
  if (file.status !== "deleted") {
    links.push(<a href={blobUrl(repo, { rev: header.commit, path: file.path })}>After</a>);
  }
  links.push(<a href={commitsUrl(repo, { rev: detail.version, path: file.path })}>History</a>);
  return <span class="file-links">{links}</span>;
}

function FileDiff(
  props: {
    detail: CommitDetail;
    file: CommitFile;
    index: number;
    highlighted: (CodeLine | null)[] | null;
  },
): Html {
  const { detail, file, index } = props;
  const note = omission(file, detail.stopped);
  return (
    <section class="diff-file" id={`diff-${index + 1}`}>
      <div class="diff-header">
        <span class="badge">{STATUS_LABEL[file.status]}</span> <code>{shownPath(file)}</code>
        {file.patch === null ? null : (
          <span class="diff-stat">
            <span class="added">+{file.patch.added}</span>{" "}
            <span class="removed">−{file.patch.removed}</span>
          </span>
        )}
        <FileLinks detail={detail} file={file} />
      </div>
      {note !== null ? <p class="notice">{note}</p> : (
        <table class="code diff">
          <tbody>{diffRows(file.patch!.lines!, props.highlighted)}</tbody>
        </table>
      )}
    </section>
  );
}

/** The commit page; `highlighted` holds each file's code lines highlighted (null: plain). */
export function CommitPage(props: {
  viewer: Viewer;
  detail: CommitDetail;
  highlighted: ((CodeLine | null)[] | null)[];
}): Html {
  const { detail } = props;
  const { header, repo } = detail;
  const message = header.message ?? "";
  const firstLine = message.split("\n", 1)[0];
  const subject = inertLine(firstLine);
  // A subject cut for the heading is shown whole with the body.
  const body = inertBody(
    subject.length < firstLine.length
      ? message
      : message.slice(firstLine.length).replace(/^\n+/, ""),
  );
  return (
    <Layout
      title={`${subject.slice(0, 80)} · ${header.commit.slice(0, 12)} · ${repo}`}
      viewer={props.viewer}
    >
      <h1>{repo}</h1>
      <Tabs repo={repo} current="versions" rev={detail.version} />
      <h2 class="commit-subject">
        {header.message === null
          ? <span class="muted">(message over 256 KiB, not shown)</span>
          : subject}
      </h2>
      {body === "" ? null : <pre class="commit-message">{body}</pre>}
      <Facts detail={detail} />
      <Summary detail={detail} />
      {detail.files.map((file, i) => (
        <FileDiff
          detail={detail}
          file={file}
          index={i}
          highlighted={props.highlighted[i] ?? null}
        />
      ))}
    </Layout>
  );
}

// The commit's SHA, author, committer (when another), parents and version.
function Facts(props: { detail: CommitDetail }): Html {
  const { detail } = props;
  const { header, repo } = detail;
  return (
    <dl class="facts">
      <dt>Commit</dt>
      <dd>
        <code class="sha">{header.commit}</code>
      </dd>
      <dt>Author</dt>
      <dd>
        {inertLine(header.authorName)} · {header.authorDate}
      </dd>
      {header.committerName === header.authorName && header.committerDate === header.authorDate
        ? null
        : (
          <>
            <dt>Committer</dt>
            <dd>
              {inertLine(header.committerName)} · {header.committerDate}
            </dd>
          </>
        )}
      <dt>Parents</dt>
      <dd>
        {header.parents.length === 0 ? <span class="muted">none (a root commit)</span> : null}
        {header.parents.map((parent) => (
          <>
            <a href={commitUrl(repo, parent)}>
              <ShortSha sha={parent} />
            </a>
            {" "}
          </>
        ))}
      </dd>
      <dt>In version</dt>
      <dd>
        <a href={treeUrl(repo, { rev: detail.version })}>
          <ShortSha sha={detail.version} />
        </a>
      </dd>
    </dl>
  );
}

function Summary(props: { detail: CommitDetail }): Html {
  const { detail } = props;
  const parents = detail.header.parents.length;
  return (
    <>
      <h2>
        {detail.changedFiles} changed file(s)
        {parents > 1 ? <span class="muted">against the first parent</span> : null}
      </h2>
      {detail.scope === null
        ? null
        : <p class="muted">Within the path groups: {detail.scope.join(", ")}</p>}
      <ul class="changed-files">
        {detail.files.map((file, i) => (
          <li>
            <a href={`#diff-${i + 1}`}>{shownPath(file)}</a>{" "}
            <span class="muted">{STATUS_LABEL[file.status]}</span>
          </li>
        ))}
      </ul>
      {detail.files.length < detail.changedFiles
        ? (
          <p class="notice">
            The first {detail.files.length} of {detail.changedFiles} files are listed.
          </p>
        )
        : null}
    </>
  );
}
