/**
 * The file page at a full SHA: numbered lines, each an anchor (`#L2`), a
 * `#L2-L4` range highlighted by the script, and a notice instead of the
 * text for binary, oversized and non-UTF-8 files, symbolic links and
 * submodules. Every link on it is pinned to the SHA.
 *
 * @module
 */

import type { FilePage } from "../read/file_page.ts";
import { type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import { blobUrl, rawUrl, treeUrl } from "./page_urls.ts";
import { Breadcrumbs } from "./repository_pages.tsx";

/** What the page shows of a file. */
export interface BlobView {
  repo: string;
  commit: string;
  path: string;
  /** The lines shown, from `firstLine`; null with a notice. */
  lines: string[] | null;
  firstLine: number;
  /** Where the next page of lines starts, when the file goes on. */
  nextStart: number | null;
  /** Why the text is not shown, or a remark above it. */
  notice: { code: string; message: string } | null;
  /** The path a symbolic link led to, when one was followed. */
  target: string | null;
}

const WITHHELD: Record<NonNullable<FilePage["withheld"]>, string> = {
  BINARY_FILE: "a binary file: it is not shown",
  READ_SCAN_LIMIT: "larger than the 8 MiB read limit: it is not shown",
  UNSUPPORTED_TEXT_ENCODING: "not UTF-8 text: it is not shown",
  FILE_LINE_TOO_LARGE: "a line is larger than 256 KiB: the file is not shown",
};

/** What the page shows of one page of a file read from `repo`. */
export function blobView(repo: string, read: FilePage): BlobView {
  const view: BlobView = {
    repo,
    commit: read.commit,
    path: read.path,
    lines: read.lines,
    firstLine: read.firstLine,
    nextStart: read.nextStartLine,
    notice: null,
    target: read.target,
  };
  if (read.withheld !== null) {
    return {
      ...view,
      lines: null,
      notice: { code: read.withheld, message: WITHHELD[read.withheld] },
    };
  }
  if (read.kind === "submodule") {
    const message = "a submodule: its content is another repository";
    return { ...view, lines: null, notice: { code: "SUBMODULE", message } };
  }
  if (read.kind === "symlink") {
    const message = read.followError ?? "a symbolic link that cannot be followed";
    return { ...view, lines: null, notice: { code: "SYMLINK", message } };
  }
  if (read.isLfsPointer) {
    const message = "a Git LFS pointer: the content is stored outside Git";
    return { ...view, notice: { code: "LFS_POINTER", message } };
  }
  return view;
}

// The path (each segment a link) and the file's actions, kept in view while
// the code scrolls. The copy buttons need the script, which shows them;
// "Copy citation" shows while a line range is selected.
function FileHeader(props: { view: BlobView }): Html {
  const { view } = props;
  return (
    <div class="file-header">
      <Breadcrumbs repo={view.repo} commit={view.commit} path={view.path} />
      <p class="file-actions">
        <button type="button" data-copy-text={view.path} hidden>Copy path</button>
        <a href={rawUrl(view.repo, { rev: view.commit, path: view.path })}>Raw</a>
        <a href={blobUrl(view.repo, { rev: view.commit, path: view.path })}>Permalink</a>
        <button type="button" data-citation={`${view.repo}@${view.commit} ${view.path}`} hidden>
          Copy citation
        </button>
      </p>
    </div>
  );
}

/** The file page. */
export function BlobPage(props: { viewer: Viewer; view: BlobView }): Html {
  const { view } = props;
  const parent = view.path.includes("/") ? view.path.slice(0, view.path.lastIndexOf("/")) : "";
  return (
    <Layout title={`${view.path} · ${view.repo}`} viewer={props.viewer}>
      <h1>{view.repo}</h1>
      <Tabs repo={view.repo} current="files" rev={view.commit} />
      <p class="muted">
        At <ShortSha sha={view.commit} /> ·{" "}
        <a href={treeUrl(view.repo, { rev: view.commit, dir: parent })}>folder</a>
      </p>
      <FileHeader view={view} />
      {view.target === null ? null : (
        <p class="notice">
          A symbolic link to{" "}
          <a href={blobUrl(view.repo, { rev: view.commit, path: view.target })}>{view.target}</a>
        </p>
      )}
      {view.notice === null ? null : (
        <p class="notice">
          <code>{view.notice.code}</code> {view.notice.message}
        </p>
      )}
      {view.lines === null ? null : (
        <table class="code">
          <tbody>
            {view.lines.map((line, i) => {
              const number = view.firstLine + i;
              return (
                <tr id={`L${number}`}>
                  <td class="num">
                    <a href={`#L${number}`}>{number}</a>
                  </td>
                  <td>{line}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {view.nextStart === null ? null : (
        <p>
          <a
            href={`${
              blobUrl(view.repo, { rev: view.commit, path: view.path })
            }?start=${view.nextStart}`}
          >
            Lines from {view.nextStart}
          </a>
        </p>
      )}
    </Layout>
  );
}
